// What a page's first touch costs on this machine, three ways, in alternating rounds: a fresh
// mapping written one byte per 4 KiB page (a page fault each), the same after
// madvise(MADV_POPULATE_WRITE) (what sim/block_alloc.hpp does for a block that will be
// filled), and after madvise(MADV_HUGEPAGE) (docs/perf.md):
//   build/tests/bench/first_touch [MiB] [rounds]
#include <fmt/format.h>
#include <sys/mman.h>

#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

enum class way { fault, populate, huge };

std::string_view name(way w) {
  switch (w) {
    case way::fault:
      return "page faults";
    case way::populate:
      return "MADV_POPULATE_WRITE";
    case way::huge:
      return "MADV_HUGEPAGE";
  }
  return "?";
}

// Milliseconds to map `bytes`, bring them in the given way and write every page once; a
// negative value when the mapping fails.
double first_touch_ms(std::size_t bytes, way w) {
  const auto start = std::chrono::steady_clock::now();
  void* m = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return -1;
  auto* p = static_cast<volatile char*>(m);
#ifdef MADV_POPULATE_WRITE
  if (w == way::populate) ::madvise(m, bytes, MADV_POPULATE_WRITE);
#endif
  if (w == way::huge) ::madvise(m, bytes, MADV_HUGEPAGE);
  for (std::size_t i = 0; i < bytes; i += 4096) p[i] = 1;
  const std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - start;
  ::munmap(m, bytes);
  return took.count();
}

}  // namespace

int main(int argc, char** argv) {
  const long mib = argc > 1 ? std::strtol(argv[1], nullptr, 10) : 24;
  const long rounds = argc > 2 ? std::strtol(argv[2], nullptr, 10) : 4;
  if (mib <= 0 || rounds <= 0) {
    fmt::print(stderr, "usage: first_touch [MiB > 0] [rounds > 0]\n");
    return 2;
  }
  const std::size_t bytes = static_cast<std::size_t>(mib) << 20;
  for (long r = 0; r < rounds; ++r)
    for (way w : {way::fault, way::populate, way::huge}) {
      const double ms = first_touch_ms(bytes, w);
      if (ms < 0) {
        fmt::print(stderr, "first_touch: could not map {} MiB\n", mib);
        return 1;
      }
      fmt::print("round {} {:<20} {} MiB ({} pages): {:.1f} ms\n", r + 1, name(w), mib,
                 bytes / 4096, ms);
    }
  return 0;
}
