#pragma once
// The built `waitroom` run as a user runs it, for the CLI tests: stdout and stderr to files
// of their own, stdin from /dev/null, under a time limit so a hang fails the case with a
// message instead of waiting for ctest's timeout (coreutils' timeout exits 124 when it fires).
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace waitroom::testing_support {

struct cli_outcome {
  int code;
  std::string out, err;
};

// 60 s, scaled under a sanitizer (WAITROOM_TIMEOUT_SCALE, from tests/CMakeLists.txt).
inline constexpr int cli_timeout_s = 60 * WAITROOM_TIMEOUT_SCALE;
inline constexpr int timed_out_status = 124;

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// The command line that runs the program with `args` under the time limit.
inline std::string bounded(const std::string& args) {
  return "timeout -k 5 " + std::to_string(cli_timeout_s) + " " + WAITROOM_BINARY + " " + args;
}

// A folder of this test process's own: ctest runs each case in its own process, in
// parallel, and the pid keeps their files apart.
inline std::filesystem::path process_temp_dir(const std::string& tag) {
  auto dir = std::filesystem::path(testing::TempDir()) /
             ("waitroom_" + tag + "_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir;
}

// Runs the program; its stdout goes to `stdout_to` when given (and `out` stays empty).
inline cli_outcome run_cli(const std::string& tag, const std::string& args,
                           const std::string& stdout_to = {}) {
  static int n = 0;
  const auto dir = process_temp_dir(tag);
  const auto out = stdout_to.empty() ? dir / ("out" + std::to_string(n) + ".txt")
                                     : std::filesystem::path(stdout_to);
  const auto err = dir / ("err" + std::to_string(n++) + ".txt");
  const std::string cmd =
      bounded(args) + " >" + out.string() + " 2>" + err.string() + " </dev/null";
  const int status = std::system(cmd.c_str());
  if (WEXITSTATUS(status) == timed_out_status)
    ADD_FAILURE() << "waitroom " << args << " ran longer than " << cli_timeout_s << " s";
  return {WEXITSTATUS(status), stdout_to.empty() ? slurp(out) : std::string(), slurp(err)};
}

inline std::string scenario_path(const std::string& name) {
  return std::string(WAITROOM_SOURCE_DIR) + "/scenarios/" + name;
}

}  // namespace waitroom::testing_support
