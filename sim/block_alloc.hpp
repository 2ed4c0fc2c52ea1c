#pragma once
// Storage for large pool blocks. Blocks of 2 MiB or more are 2 MiB-aligned and advised to
// use transparent huge pages: on this kind of machine first-touch page faults were a fifth
// of a 10M-user run, and a huge page takes one fault where 4 KiB pages take 512.
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
// is read).
template <class T>
std::unique_ptr<T[], free_deleter> allocate_block(std::size_t n) {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);
  std::size_t bytes = n * sizeof(T);
  void* p = nullptr;
  if (bytes >= huge_page_bytes) {
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
