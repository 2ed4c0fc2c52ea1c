// `waitroom`: parses the subcommand and hands over. No simulation logic here.
#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include "commands.hpp"
#include "import_command.hpp"
#include "options.hpp"
#include "output_file.hpp"
#include "redis_commands.hpp"
#include "report_command.hpp"
#include "sim/input_error.hpp"
#include "sim/memory_reuse.hpp"
#include "version.hpp"

namespace {

int dispatch(std::vector<std::string> args) {
  using namespace waitroom::cli;
  try {
    check_arguments_utf8(args);
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
    if (cmd == "fit") return fit_command(args);
    fmt::print(stderr,
               "waitroom: unknown command '{}' (commands: run, check, compare, sweep, merge, plan, "
               "report, estimate, validate, import, fit; see "
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
  } catch (const output_error& e) {
    fmt::print(stderr, "waitroom: {}\n", e.what());
    return exit_output;
  } catch (const std::bad_alloc&) {
    // Nothing that allocates: the message is a literal.
    std::fputs(
        "waitroom: internal error: out of memory (the memory estimate did not foresee this "
        "run's need; lower --replications, --threads or the run's size, and report it)\n",
        stderr);
    return exit_internal;
  } catch (const std::system_error& e) {
    // fmt::print throws this when standard output cannot be written (a full disk, /dev/full).
    if (std::ferror(stdout)) {
      fmt::print(stderr, "waitroom: standard output: could not write ({})\n", e.what());
      return exit_output;
    }
    fmt::print(stderr, "waitroom: internal error: {}\n", e.what());
    return exit_internal;
  } catch (const std::exception& e) {
    fmt::print(stderr, "waitroom: internal error: {}\n", e.what());
    return exit_internal;
  }
}

}  // namespace

int main(int argc, char** argv) {
  using namespace waitroom::cli;
  install_temp_file_cleanup();         // an interrupted run leaves no FILE.tmp.PID behind
  waitroom::sim::keep_freed_memory();  // replications reuse each other's pages
  int rc = exit_internal;
  try {
    rc = dispatch(std::vector<std::string>(argv + 1, argv + argc));
  } catch (...) {  // a handler's own message failed (out of memory while reporting an error)
    std::fputs("waitroom: internal error: out of memory while reporting an error\n", stderr);
    return exit_internal;
  }
  // A result printed to a full disk or a closed pipe is a failed write, not a success.
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    fmt::print(stderr, "waitroom: standard output: could not write the result\n");
    return rc == exit_ok || rc == exit_sla_failed ? exit_output : rc;
  }
  return rc;
}
