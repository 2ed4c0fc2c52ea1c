// Pool blocks on huge pages only where the caller asks (sim/block_alloc.hpp): checked in the
// kernel's own record of the process's mappings, /proc/self/smaps ("hg": MADV_HUGEPAGE). And
// blocks populated ahead where they will be filled: checked with mincore.
#include <gtest/gtest.h>
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "sim/block_alloc.hpp"
#include "sim/chunked_vector.hpp"
#include "sim/serial_table.hpp"

using namespace waitroom::sim;

namespace {
// Whether the mapping that holds p is advised for huge pages; nullopt if no mapping holds it.
std::optional<bool> advised_huge(const void* p) {
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    if (line.rfind("VmFlags:", 0) == 0) {
      if (!inside) continue;
      std::istringstream flags(line.substr(8));
      std::string flag;
      while (flags >> flag)
        if (flag == "hg") return true;
      return false;
    }
    // A mapping's first line: "start-end perms offset dev inode path".
    std::uintptr_t start = 0, end = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> start >> dash >> end && dash == '-') inside = start <= at && at < end;
  }
  return std::nullopt;
}

bool kernel_has_thp() {
  return std::filesystem::exists("/sys/kernel/mm/transparent_hugepage");
}

// THP `always`: the first write to a 2 MiB-aligned range may bring in the whole huge page.
bool thp_always() {
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string s;
  std::getline(f, s);
  return s.find("[always]") != std::string::npos;
}

// Each block its own mapping: glibc raises its mmap threshold when a large block is freed, and
// a later block carved from the heap could lie where an earlier one was advised (the advice
// outlives free()), or be resident already, which would say nothing about the block under
// test. What the heap holds free is handed back first (another test may have kept it).
void blocks_in_own_mappings() {
#ifdef __GLIBC__
  mallopt(M_MMAP_THRESHOLD, 128 << 10);
  mallopt(M_TRIM_THRESHOLD, 0);
  malloc_trim(0);
#endif
}
}  // namespace

TEST(BlockAlloc, HugePagesOnlyWhereAsked) {
  if (!kernel_has_thp()) GTEST_SKIP() << "this kernel has no transparent huge pages";
  blocks_in_own_mappings();
  const std::size_t n = huge_page_bytes / sizeof(std::int64_t);
  const auto huge = allocate_block<std::int64_t>(n, block_pages::huge);
  const auto plain = allocate_block<std::int64_t>(n);
  huge[0] = plain[0] = 1;  // touched: mapped for sure
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(huge.get()) % huge_page_bytes, 0u);
  EXPECT_EQ(advised_huge(huge.get()), std::optional<bool>(true));
  EXPECT_EQ(advised_huge(plain.get()), std::optional<bool>(false));
  // Smaller than a huge page: never advised, even when asked.
  const auto small = allocate_block<std::int64_t>(n / 4, block_pages::huge);
  small[0] = 1;
  EXPECT_EQ(advised_huge(small.get()), std::optional<bool>(false));
}

TEST(SerialTable, BlocksOnHugePagesOnlyForTablesReadAtRandom) {
  if (!kernel_has_thp()) GTEST_SKIP() << "this kernel has no transparent huge pages";
  blocks_in_own_mappings();
  serial_table<std::int64_t> at_random;
  serial_table<std::int64_t> in_order;
  at_random.push(0, 5, true);
  in_order.push(0, 6);
  EXPECT_EQ(at_random[0], 5);
  EXPECT_EQ(in_order[0], 6);
  EXPECT_EQ(advised_huge(&at_random[0]), std::optional<bool>(true));
  EXPECT_EQ(advised_huge(&in_order[0]), std::optional<bool>(false));
}

namespace {
// The share of the whole pages inside [p, p + bytes) that are resident (mincore), which for
// memory nothing has written to yet says whether the pages were brought in ahead.
double resident_share(const void* p, std::size_t bytes) {
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto begin = (reinterpret_cast<std::uintptr_t>(p) + page - 1) & ~(page - 1);
  const auto end = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~(page - 1);
  std::vector<unsigned char> in_core((end - begin) / page);
  if (in_core.empty() || ::mincore(reinterpret_cast<void*>(begin), end - begin, in_core.data()))
    return -1.0;
  std::size_t resident = 0;
  for (unsigned char c : in_core) resident += c & 1;
  return static_cast<double>(resident) / static_cast<double>(in_core.size());
}

// Whether this kernel populates on request (Linux 5.14 and later), asked directly with the
// kernel's own number for MADV_POPULATE_WRITE, not through the code under test (which would
// turn a broken populate_pages into a skipped test).
bool kernel_populates() {
  constexpr int kernel_madv_populate_write = 23;
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  void* m = ::mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return false;
  const bool done = ::madvise(m, page, kernel_madv_populate_write) == 0;
  ::munmap(m, page);
  return done;
}

// Whether untouched pages can be expected to stay out: not under a sanitizer (ASan's malloc
// writes the first 4 KiB of each block) nor THP `always` (a first write may bring in 2 MiB).
std::string why_not_absent() {
  if (!std::string_view(WAITROOM_SANITIZER).empty()) return WAITROOM_SANITIZER;
  if (thp_always()) return "transparent huge pages: always";
  return "";
}
}  // namespace

TEST(BlockAlloc, PopulatedBlockIsResidentBeforeItIsWritten) {
  if (!kernel_populates()) GTEST_SKIP() << "this kernel does not populate on request";
  blocks_in_own_mappings();  // fresh mappings: nothing resident unless brought in
  const std::size_t bytes = std::size_t{8} << 20;
  const auto populated = allocate_block<char>(bytes, block_pages::populate);
  const auto on_touch = allocate_block<char>(bytes);
  EXPECT_EQ(resident_share(populated.get(), bytes), 1.0);
  if (const auto why = why_not_absent(); !why.empty()) GTEST_SKIP() << why;
  EXPECT_LT(resident_share(on_touch.get(), bytes), 0.01);
}

TEST(SerialTable, BlocksAfterTheFirstArePopulated) {
  if (!kernel_populates()) GTEST_SKIP() << "this kernel does not populate on request";
  blocks_in_own_mappings();
  serial_table<std::int64_t> t;
  const std::size_t block_bytes = serial_block_size * sizeof(std::int64_t);
  t.push(0, 7);
  // The first block: a small run may never fill it, so its pages come in as they are written.
  if (why_not_absent().empty()) {
    EXPECT_LT(resident_share(&t[0], block_bytes), 0.01);
  }
  for (std::uint32_t i = 1; i <= serial_block_size; ++i) t.push(i, i);
  const auto second = static_cast<std::uint32_t>(serial_block_size);
  // The second block: one element written, every page already in.
  EXPECT_EQ(resident_share(&t[second], block_bytes), 1.0);
  EXPECT_EQ(t[second], static_cast<std::int64_t>(second));
}

TEST(ChunkedVector, BlocksAfterTheFirstArePopulated) {
  if (!kernel_populates()) GTEST_SKIP() << "this kernel does not populate on request";
  blocks_in_own_mappings();
  chunked_vector<std::int64_t, 15> v;  // 256 KiB blocks
  const std::size_t block_bytes = v.block_size * sizeof(std::int64_t);
  v.push_back(1);
  if (why_not_absent().empty()) {
    EXPECT_LT(resident_share(&v[0], block_bytes), 0.1);
  }
  for (std::size_t i = 1; i <= v.block_size; ++i) v.push_back(static_cast<std::int64_t>(i));
  EXPECT_EQ(resident_share(&v[v.block_size], block_bytes), 1.0);
  EXPECT_EQ(v[v.block_size], static_cast<std::int64_t>(v.block_size));
}
