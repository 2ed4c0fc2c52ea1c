#pragma once
// Storage for large pool blocks. Huge pages are a trade: a table read at random (a lottery's
// users) saves a TLB miss per access on them, but on a virtual machine that hands free
// memory back to its host (free page reporting) each huge page's first touch costs a 2 MiB
// clear and likely a host fault: a flash crowd, which fills its tables in order, spent 0.62 s
// of kernel time on them against 0.14 s without (docs/perf.md, session 13). So blocks are
// advised to use transparent huge pages only where the caller asks (with THP `always` the
// kernel still uses them everywhere).
#include <sys/mman.h>

#include <cstdlib>
#include <memory>
#include <new>
#include <type_traits>

namespace waitroom::sim {

inline constexpr std::size_t huge_page_bytes = std::size_t{2} << 20;

struct free_deleter {
  void operator()(void* p) const { std::free(p); }
};

// n uninitialised elements of a trivially copyable T (every element is written before it
// is read). With huge_pages, a block of 2 MiB or more is 2 MiB-aligned and advised to use
// transparent huge pages (where the system allows: `madvise` or `always`).
template <class T>
std::unique_ptr<T[], free_deleter> allocate_block(std::size_t n, bool huge_pages = false) {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);
  std::size_t bytes = n * sizeof(T);
  void* p = nullptr;
  if (huge_pages && bytes >= huge_page_bytes) {
    bytes = (bytes + huge_page_bytes - 1) / huge_page_bytes * huge_page_bytes;
    p = std::aligned_alloc(huge_page_bytes, bytes);
    if (p) ::madvise(p, bytes, MADV_HUGEPAGE);  // advice only: failure is harmless
  } else {
    p = std::malloc(bytes);
  }
  if (!p) throw std::bad_alloc();
  return std::unique_ptr<T[], free_deleter>(static_cast<T*>(p));
}

}  // namespace waitroom::sim
