#pragma once
// A distribution (a duration or a count) under a key of a scenario: its reader and its writer.
// Here rather than with the scenario's sections because the arrivals' writer
// (models/spec/arrival_spec.cpp) writes one too.
#include <string>

#include <nlohmann/json.hpp>

#include "models/json/json_reader.hpp"
#include "sim/distribution.hpp"

namespace waitroom::models {

// Each kind takes exactly its own parameters (a stray one is refused) within the input's range.
sim::distribution read_distribution(const object_reader& parent, const std::string& key);
nlohmann::json write_distribution(const sim::distribution& d);

}  // namespace waitroom::models
