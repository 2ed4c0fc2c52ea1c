#pragma once
// A temporary arrivals trace (timestamp_s,class lines) for by-hand runs, removed when the
// test ends. Named by the text's hash and gtest's random seed, so parallel cases stay apart.
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include <gtest/gtest.h>

namespace waitroom::testing_support {

struct trace_file {
  std::filesystem::path path;
  trace_file(const std::string& tag, const std::string& text) {
    const auto dir = std::filesystem::temp_directory_path() / ("waitroom-" + tag + "-test");
    std::filesystem::create_directories(dir);
    path = dir / ("trace-" + std::to_string(std::hash<std::string>{}(text)) + "-" +
                  std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + ".csv");
    std::ofstream(path) << text;
  }
  trace_file(const trace_file&) = delete;
  trace_file& operator=(const trace_file&) = delete;
  ~trace_file() { std::filesystem::remove(path); }
};

}  // namespace waitroom::testing_support
