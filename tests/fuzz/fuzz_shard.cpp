// libFuzzer harness: the shard reader, through `waitroom merge` of one shard file, as the CLI
// runs it (merge_command). Its outcome must be an exit code or sim::input_error (exit 2);
// any other exception, a crash or a sanitizer report is a bug. The shard names its scenario
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

namespace {
std::string temp(const char* what) {
  return std::string("/tmp/waitroom-fuzz-") + what + "." + std::to_string(::getpid()) + ".json";
}
}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (::chdir(WAITROOM_SOURCE_DIR) != 0) std::abort();
  // merge prints tables; keep the fuzzer's output readable.
  if (!std::freopen("/dev/null", "w", stdout)) std::abort();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string shard = temp("shard"), out = temp("merged");
  {
    std::FILE* f = std::fopen(shard.c_str(), "wb");
    if (!f) std::abort();
    if (size && std::fwrite(data, 1, size, f) != size) std::abort();
    std::fclose(f);
  }
  try {
    const int code = waitroom::cli::merge_command({shard, "--out", out});
    if (code < 0 || code > 4) std::abort();
  } catch (const waitroom::sim::input_error&) {
    // bad input: exit 2
  }
  return 0;
}
