// Memory a run frees kept for the next (sim/memory_reuse.hpp): checked by the kernel's count
// of the process's resident pages and of its page faults.
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdio>
#include <string_view>

#include "sim/block_alloc.hpp"
#include "sim/memory_reuse.hpp"

namespace {

long minor_faults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

// Resident bytes of this process (/proc/self/statm, second field, in pages). Read without
// the heap: a block allocated above the one under test would keep it from being trimmed.
long resident_bytes() {
  char text[128] = {};
  const int fd = open("/proc/self/statm", O_RDONLY);
  if (fd < 0) return -1;
  const ssize_t n = read(fd, text, sizeof text - 1);
  close(fd);
  long size = 0, resident = 0;
  if (n <= 0 || std::sscanf(text, "%ld %ld", &size, &resident) != 2) return -1;
  return resident * sysconf(_SC_PAGESIZE);
}

constexpr std::size_t page = 4096;

}  // namespace

TEST(MemoryReuse, AFreedBlockStaysAndIsReusedWithoutNewPageFaults) {
  // A sanitizer brings its own malloc, which these settings do not reach.
  if (!std::string_view(WAITROOM_SANITIZER).empty()) GTEST_SKIP() << WAITROOM_SANITIZER;
#ifndef __GLIBC__
  GTEST_SKIP() << "glibc's malloc only";
#endif
  waitroom::sim::keep_freed_memory();
  // Above glibc's default thresholds (a block of its own, handed back when freed), below the
  // heap block limit: a replication's sorted-set leaves and per-user tables are 2-3 MiB.
  constexpr std::size_t bytes = 16 << 20;
  long resident_in_use = 0;
  {
    auto block = waitroom::sim::allocate_block<char>(bytes);
    volatile char* p = block.get();  // the writes must happen
    for (std::size_t i = 0; i < bytes; i += page) p[i] = 1;
    resident_in_use = resident_bytes();
    ASSERT_GT(resident_in_use, 0) << "/proc/self/statm";
  }
  // Handed back, the 16 MiB would leave the resident set (with huge pages too).
  EXPECT_GT(resident_bytes(), resident_in_use - static_cast<long>(bytes / 2));
  const long before = minor_faults();
  {
    auto block = waitroom::sim::allocate_block<char>(bytes);  // the same size again
    volatile char* p = block.get();
    for (std::size_t i = 0; i < bytes; i += page) p[i] = 1;
  }
  // Handed back, the block would fault in its 4,096 pages again.
  EXPECT_LT(minor_faults() - before, 64);
}
