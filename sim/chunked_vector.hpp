#pragma once
// A growable array in fixed-size blocks: no 2x over-allocation when it grows and stable
// element addresses. Used for per-entity tables and node pools that reach millions.
#include <cstdint>
#include <memory>
#include <vector>

#include "sim/block_alloc.hpp"

namespace waitroom::sim {

template <class T, unsigned BlockBits = 14>
class chunked_vector {
 public:
  static constexpr std::size_t block_size = std::size_t{1} << BlockBits;

  T& operator[](std::size_t i) { return blocks_[i >> BlockBits][i & (block_size - 1)]; }
  const T& operator[](std::size_t i) const { return blocks_[i >> BlockBits][i & (block_size - 1)]; }
  std::size_t size() const { return size_; }

  std::size_t push_back(const T& v) {
    std::size_t i = emplace_uninitialized();
    (*this)[i] = v;
    return i;
  }
  // Adds an element without writing it (for large PODs the caller fills in part by part).
  // Every block after the first has its pages brought in at once (block_alloc.hpp): a vector
  // that filled one block will likely fill the next. A small one populates nothing, a large
  // one at most one block beyond what it fills.
  std::size_t emplace_uninitialized() {
    if (size_ == blocks_.size() * block_size)
      blocks_.push_back(allocate_block<T>(
          block_size, blocks_.empty() ? block_pages::on_touch : block_pages::populate));
    return size_++;
  }
  std::size_t memory_bytes() const {
    return blocks_.size() * block_size * sizeof(T) + blocks_.capacity() * sizeof(blocks_[0]);
  }

 private:
  std::vector<std::unique_ptr<T[], free_deleter>> blocks_;
  std::size_t size_ = 0;
};

}  // namespace waitroom::sim
