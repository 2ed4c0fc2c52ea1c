// Pool blocks on huge pages only where the caller asks (sim/block_alloc.hpp): checked in the
// kernel's own record of the process's mappings, /proc/self/smaps ("hg": MADV_HUGEPAGE).
#include <gtest/gtest.h>
#include <malloc.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "sim/block_alloc.hpp"
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

// Each block its own mapping: glibc raises its mmap threshold when a large block is freed, and
// a later block carved from the heap could lie where an earlier one was advised (the advice
// outlives free()), which would say nothing about the block under test.
void blocks_in_own_mappings() {
#ifdef __GLIBC__
  mallopt(M_MMAP_THRESHOLD, 128 << 10);
#endif
}
}  // namespace

TEST(BlockAlloc, HugePagesOnlyWhereAsked) {
  if (!kernel_has_thp()) GTEST_SKIP() << "this kernel has no transparent huge pages";
  blocks_in_own_mappings();
  const std::size_t n = huge_page_bytes / sizeof(std::int64_t);
  const auto huge = allocate_block<std::int64_t>(n, true);
  const auto plain = allocate_block<std::int64_t>(n);
  huge[0] = plain[0] = 1;  // touched: mapped for sure
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(huge.get()) % huge_page_bytes, 0u);
  EXPECT_EQ(advised_huge(huge.get()), std::optional<bool>(true));
  EXPECT_EQ(advised_huge(plain.get()), std::optional<bool>(false));
  // Smaller than a huge page: never advised, even when asked.
  const auto small = allocate_block<std::int64_t>(n / 4, true);
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
