// `waitroom`: parses the subcommand and hands over. No simulation logic here.
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli_support.hpp"
#include "commands.hpp"
#include "import_command.hpp"
#include "redis_commands.hpp"
#include "report_command.hpp"
#include "sim/input_error.hpp"
#include "version.hpp"

int main(int argc, char** argv) {
  using namespace waitroom::cli;
  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
      fmt::print("{}", usage());
      return args.empty() ? exit_bad_input : exit_ok;
    }
    if (args[0] == "--version") {
      fmt::print("waitroom {}\n", version);
      return exit_ok;
    }
    std::string cmd = args[0];
    args.erase(args.begin());
    if (cmd == "run") return wants_redis(args) ? redis_run_command(args) : run_command(args);
    if (cmd == "validate") return validate_command(args);
    if (cmd == "check") return check_command(args);
    if (cmd == "compare") return compare_command(args);
    if (cmd == "estimate") return estimate_command(args);
    if (cmd == "sweep") return sweep_command(args);
    if (cmd == "plan") return plan_command(args);
    if (cmd == "merge") return merge_command(args);
    if (cmd == "report") return report_command(args);
    if (cmd == "load") return load_command(args);
    if (cmd == "import") return import_command(args);
    fmt::print(stderr,
               "waitroom: unknown command '{}' (commands: run, check, compare, sweep, merge, plan, "
               "report, estimate, validate, import; see "
               "waitroom --help)\n",
               cmd);
    return exit_bad_input;
  } catch (const help_requested& h) {
    fmt::print("{}", h.what());
    return exit_ok;
  } catch (const waitroom::sim::input_error& e) {
    // Every command reports bad input the same way: one line, exit code 2.
    fmt::print(stderr, "waitroom: {}\n", e.what());
    return exit_bad_input;
  } catch (const std::exception& e) {
    fmt::print(stderr, "waitroom: internal error: {}\n", e.what());
    return exit_internal;
  }
}
