#include <sys/resource.h>

#include <gtest/gtest.h>

#include <cstddef>

#include "sim/block_alloc.hpp"
#include "sim/memory_reuse.hpp"

namespace {

long minor_faults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

// Allocates `bytes`, writes a byte to each page (faulting it in unless it was kept) and frees.
void touch_block(std::size_t bytes) {
  auto block = waitroom::sim::allocate_block<char>(bytes);
  volatile char* p = block.get();  // the writes must happen
  for (std::size_t i = 0; i < bytes; i += 4096) p[i] = 1;
}

}  // namespace

TEST(MemoryReuse, AFreedBlockIsReusedWithoutNewPageFaults) {
#if defined(__SANITIZE_ADDRESS__) || !defined(__GLIBC__)
  GTEST_SKIP() << "needs glibc's own malloc (a sanitizer brings its own)";
#else
  waitroom::sim::keep_freed_memory();
  // Above glibc's default thresholds (a block of its own, handed back when freed), below the
  // heap block limit: a replication's sorted-set leaves and per-user tables are 2-3 MiB.
  constexpr std::size_t bytes = 16 << 20;
  touch_block(bytes);
  const long before = minor_faults();
  touch_block(bytes);  // the same size again: the freed pages, already faulted in
  // Handed back, the block would fault in its 4,096 pages again.
  EXPECT_LT(minor_faults() - before, 64);
#endif
}
