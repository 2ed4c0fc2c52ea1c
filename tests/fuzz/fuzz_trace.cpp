// libFuzzer harness: the trace CSV reader (`timestamp_s,class[,user_id]`). Bad input must
// end in sim::input_error naming the file and line; anything else is a bug. What it accepts
// must be in non-decreasing time order with known classes.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "sim/arrivals.hpp"
#include "sim/input_error.hpp"

namespace {
std::string trace_path() {
  return "/tmp/waitroom-fuzz-trace." + std::to_string(::getpid()) + ".csv";
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path = trace_path();
  static const std::vector<std::string> classes{"vip", "normal"};
  {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) std::abort();
    if (size && std::fwrite(data, 1, size, f) != size) std::abort();
    std::fclose(f);
  }
  try {
    const auto records = waitroom::sim::read_trace_csv(path, classes);
    for (std::size_t i = 0; i < records.size(); ++i) {
      if (records[i].user_class >= classes.size()) std::abort();
      if (i && records[i].time < records[i - 1].time) std::abort();
    }
  } catch (const waitroom::sim::input_error&) {
    // bad input: exit 2 in the CLI
  }
  return 0;
}
