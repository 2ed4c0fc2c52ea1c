#pragma once
// Loading a scenario (a file, or the embedded default) with the --set and --unset overrides,
// refusing before any work what would not fit or would take hours.
#include <optional>
#include <string>

#include "models/scenario/scenario.hpp"
#include "options.hpp"

namespace waitroom::cli {

models::scenario load(const common_args& a, std::optional<std::string> path);
// A scenario file as load() read it (each file is read once per process, so a shard records
// exactly what it ran).
const scenario_source& source_of(const std::string& path);

}  // namespace waitroom::cli
