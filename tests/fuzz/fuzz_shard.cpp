// libFuzzer harness: the shard reader, through `waitroom merge SHARD --format json` of one
// shard file held in memory (merge_texts: merge_command without reading the file, so the
// same JSON reader, consistency checks, merge and JSON report; the merged result goes to
// stdout, which is /dev/null here, rather than to a file written per input). Its outcome must
// be an exit code from 0 to 4 or sim::input_error (exit 2); any other exception, a crash or a
// sanitizer report is a bug. A shard written before sources were embedded names its scenario
// by path: the harness runs from the repository (WAITROOM_SOURCE_DIR) so the corpus's
// scenarios/ paths resolve.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "commands.hpp"
#include "sim/input_error.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (::chdir(WAITROOM_SOURCE_DIR) != 0) std::abort();
  // merge prints its result; keep the fuzzer's output readable.
  if (!std::freopen("/dev/null", "w", stdout)) std::abort();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::vector<std::string> args{"fuzz-shard.json", "--format", "json"};
  std::vector<std::string> texts{std::string(reinterpret_cast<const char*>(data), size)};
  try {
    const int code = waitroom::cli::merge_texts(args, texts);
    if (code < 0 || code > 4) std::abort();
  } catch (const waitroom::sim::input_error&) {
    // bad input: exit 2
  }
  return 0;
}
