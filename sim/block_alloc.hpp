#pragma once
// Storage for large pool blocks, and how their pages come in.
//
// Huge pages are a trade: a table read at random (a lottery's users) saves a TLB miss per
// access on them, but on a virtual machine that hands free memory back to its host (free page
// reporting) each huge page's first touch costs a 2 MiB clear and likely a host fault: a flash
// crowd, which fills its tables in order, spent 0.62 s of kernel time on them against 0.14 s
// without (docs/perf.md, "Memory per waiting user"). So blocks are advised to use transparent huge
// pages only where the caller asks (with THP `always` the kernel still uses them everywhere).
//
// A block that will be filled can instead have all its pages brought in by one madvise call
// (MADV_POPULATE_WRITE) rather than by one page fault per page. Under a hypervisor each fault
// is a trap out of the guest: bringing in the flash crowd's 50,000 pages in calls instead made
// it 1.20x faster (docs/perf.md). A block the caller may leave mostly empty (the
// first of a table: a small run never fills it) is left to fault page by page.
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <type_traits>

namespace waitroom::sim {

inline constexpr std::size_t huge_page_bytes = std::size_t{2} << 20;
// Smaller blocks are left to fault: a few pages' faults are not worth a system call (not
// measured; every block the tables populate is 128 KiB or more).
inline constexpr std::size_t populate_min_bytes = std::size_t{64} << 10;

#ifdef __linux__
// MADV_POPULATE_WRITE is Linux 5.14's; glibc's headers name it from 2.35. The value is the
// kernel's ABI, so older headers get it here, and a kernel that does not know it refuses it.
#ifdef MADV_POPULATE_WRITE
inline constexpr int madv_populate_write = MADV_POPULATE_WRITE;
#else
inline constexpr int madv_populate_write = 23;
#endif
#endif

// How a new block's pages come in (see above).
enum class block_pages : std::uint8_t {
  on_touch,  // one fault per page, when first written
  populate,  // all at once, before the caller writes any
  huge,      // transparent huge pages, for a table read at random
};

// Brings in the whole pages inside [p, p + bytes) for writing; true when the kernel did.
// Advice only: where it refuses (before Linux 5.14, or not Linux) the pages fault in as they
// are written, and errno is left as it was.
inline bool populate_pages(void* p, std::size_t bytes) {
#ifdef __linux__
  static const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto begin = (reinterpret_cast<std::uintptr_t>(p) + page - 1) & ~(page - 1);
  const auto end = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~(page - 1);
  if (end <= begin) return false;
  const int saved = errno;
  const bool done =
      ::madvise(reinterpret_cast<void*>(begin), end - begin, madv_populate_write) == 0;
  errno = saved;
  return done;
#else
  (void)p;
  (void)bytes;
  return false;
#endif
}

struct free_deleter {
  void operator()(void* p) const { std::free(p); }
};

// n uninitialised elements of a trivially copyable T (every element is written before it
// is read). With block_pages::huge, a block of 2 MiB or more is 2 MiB-aligned and advised to
// use transparent huge pages (where the system allows: `madvise` or `always`); with
// block_pages::populate, a block of populate_min_bytes or more has its pages brought in.
template <class T>
std::unique_ptr<T[], free_deleter> allocate_block(std::size_t n,
                                                  block_pages pages = block_pages::on_touch) {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);
  std::size_t bytes = n * sizeof(T);
  void* p = nullptr;
  if (pages == block_pages::huge && bytes >= huge_page_bytes) {
    bytes = (bytes + huge_page_bytes - 1) / huge_page_bytes * huge_page_bytes;
    p = std::aligned_alloc(huge_page_bytes, bytes);
    if (p) ::madvise(p, bytes, MADV_HUGEPAGE);  // advice only: failure is harmless
  } else {
    p = std::malloc(bytes);
    if (p && pages == block_pages::populate && bytes >= populate_min_bytes)
      populate_pages(p, bytes);
  }
  if (!p) throw std::bad_alloc();
  return std::unique_ptr<T[], free_deleter>(static_cast<T*>(p));
}

}  // namespace waitroom::sim
