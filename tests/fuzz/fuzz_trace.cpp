// libFuzzer harness: the trace CSV reader (`timestamp_s,class[,user_id]`), fed from memory
// through parse_trace_csv (read_trace_csv is it after reading the file: the same checks and
// parser, without a file written per input). Bad input must end in sim::input_error naming
// the file (and line); anything else is a bug. What it accepts must be in non-decreasing
// time order with known classes and user ids given once.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unordered_set>
#include <vector>

#include "sim/arrivals.hpp"
#include "sim/input_error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string name = "fuzz.csv";
  static const std::vector<std::string> classes{"vip", "normal"};
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const auto records = waitroom::sim::parse_trace_csv(text, name, classes);
    std::unordered_set<std::uint64_t> ids;
    for (std::size_t i = 0; i < records.size(); ++i) {
      if (records[i].user_class >= classes.size()) std::abort();
      if (i && records[i].time < records[i - 1].time) std::abort();
      // 0 is "no id given" (a two-column line); any other id appears once.
      if (records[i].user_id != 0 && !ids.insert(records[i].user_id).second) std::abort();
    }
  } catch (const waitroom::sim::input_error& e) {
    // Bad input (exit 2 in the CLI): the message must name the file.
    if (e.where().rfind(name, 0) != 0) {
      std::fprintf(stderr, "an error that does not name the file: %s\n", e.what());
      std::abort();
    }
  }
  return 0;
}
