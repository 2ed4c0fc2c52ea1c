// `waitroom validate`: a scenario checked and printed as the effective scenario.
#include <fmt/format.h>

#include "commands.hpp"
#include "options.hpp"
#include "scenario_loading.hpp"
#include "sim/input_error.hpp"

namespace waitroom::cli {

int validate_command(const std::vector<std::string>& args) {
  common_args a = parse_args("validate", args, command_kind::validate);
  if (!a.scenario_path)
    throw sim::input_error("waitroom validate", "a SCENARIO file argument", "none");
  models::scenario s = load(a, a.scenario_path);
  fmt::print("{}\n", models::to_json(s).dump(2));
  fmt::print(stderr, "waitroom: {} is valid\n", *a.scenario_path);
  return exit_ok;
}

}  // namespace waitroom::cli
