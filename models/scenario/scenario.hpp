#pragma once
// Reading and writing scenarios: JSON in, a validated models::scenario out, and back.
#include <string>

#include <nlohmann/json.hpp>

#include "models/spec/scenario.hpp"
#include "sim/arrivals.hpp"
#include "sim/distribution.hpp"

namespace waitroom::models {

// Parses and validates. `file` names the source in errors; relative trace paths resolve
// against `base_dir`. Throws sim::input_error.
scenario parse_scenario(const nlohmann::json& j, const std::string& file,
                        const std::string& base_dir);
// Reads a file (malformed JSON is reported with line and column) and parses it.
nlohmann::json read_json_file(const std::string& path);
nlohmann::json parse_json_text(const std::string& text, const std::string& name);
// Applies `--set /pointer=value` (value parsed as JSON, else taken as a string).
// A null value is refused (a scenario has no null keys): use apply_unset.
void apply_override(nlohmann::json& j, const std::string& assignment);
// Applies `--unset /pointer`: removes an object's key or an array's element; the pointer must
// name a value that is there.
void apply_unset(nlohmann::json& j, const std::string& pointer);

nlohmann::json to_json(const sim::distribution& d);
nlohmann::json to_json(const scenario& s);

}  // namespace waitroom::models
