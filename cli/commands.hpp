#pragma once
// The `waitroom` subcommands. Each parses its own arguments and returns an exit code.
#include <string>
#include <vector>

namespace waitroom::cli {

// Documented in `waitroom --help` and docs/cli.md.
enum exit_code : int {
  exit_ok = 0,
  exit_sla_failed = 1,  // `check`: a target failed
  exit_bad_input = 2,   // bad arguments, scenario or trace
  exit_internal = 3,    // a bug: please report it
  exit_output = 4,      // the output file could not be written
};

int run_command(const std::vector<std::string>& args);
int validate_command(const std::vector<std::string>& args);
int check_command(const std::vector<std::string>& args);
int compare_command(const std::vector<std::string>& args);
int estimate_command(const std::vector<std::string>& args);
int sweep_command(const std::vector<std::string>& args);
int plan_command(const std::vector<std::string>& args);
int merge_command(const std::vector<std::string>& args);
int fit_command(const std::vector<std::string>& args);
std::string fit_usage();
// `merge` of shard files already in memory (the fuzzer's entry point: merge_command without
// reading the files): texts[i] is the content of the i-th file `args` names, and that name is
// what errors give, so the two report alike.
int merge_texts(const std::vector<std::string>& args, const std::vector<std::string>& texts);
std::string usage();

}  // namespace waitroom::cli
