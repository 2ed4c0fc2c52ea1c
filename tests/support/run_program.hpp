#pragma once
// Runs the built `waitroom` with arguments through the shell, stdout and stderr together,
// under a time limit so a hang fails the case with a message instead of ctest's timeout.
#include <sys/wait.h>

#include <cstdio>
#include <string>

#include <gtest/gtest.h>

namespace waitroom::testing_support {

struct program_outcome {
  int code;         // the exit status; -1 when killed by a signal
  std::string out;  // stdout and stderr, interleaved
};

inline program_outcome run_waitroom(const std::string& args, int timeout_s = 300) {
  std::string cmd = "timeout -k 5 " + std::to_string(timeout_s) + " " +
                    std::string(WAITROOM_BINARY) + " " + args + " 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  std::string out;
  if (p == nullptr) {
    ADD_FAILURE() << "could not start: " << cmd;
    return {-1, out};
  }
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  int status = ::pclose(p);
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (code == 124) ADD_FAILURE() << "waitroom " << args << " ran longer than " << timeout_s << " s";
  return {code, out};
}

}  // namespace waitroom::testing_support
