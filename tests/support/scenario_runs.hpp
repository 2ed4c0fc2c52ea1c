#pragma once
// For tests that run the built program on the shipped scenarios (WAITROOM_SOURCE_DIR and
// WAITROOM_BINARY defined by the test target): the scenarios' paths, the program run under a
// time limit (run_program.hpp), and the JSON it wrote to a file or printed.
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "support/run_program.hpp"

namespace waitroom::testing_support {

// `waitroom ARGS`, stdout and stderr together.
inline program_outcome run(const std::string& args, int timeout_s = 300) {
  return run_waitroom(args, timeout_s);
}

// scenarios/NAME.json of the source tree.
inline std::string shipped_scenario(const std::string& name) {
  return std::string(WAITROOM_SOURCE_DIR) + "/scenarios/" + name + ".json";
}

inline nlohmann::json read_json(const std::string& path) {
  std::ifstream f(path);
  return nlohmann::json::parse(f);
}

// The JSON document in a program's output, after any lines of text printed before it.
inline nlohmann::json json_in(const std::string& out) {
  return nlohmann::json::parse(out.substr(out.find('{')));
}

}  // namespace waitroom::testing_support
