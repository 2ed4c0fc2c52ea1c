#pragma once
// A growable array in fixed-size blocks: no 2x over-allocation when it grows and stable
// element addresses. Used for per-entity tables and node pools that reach millions.
#include <cstdint>
#include <memory>
#include <vector>

namespace waitroom::sim {

template <class T, unsigned BlockBits = 14>
class chunked_vector {
 public:
  static constexpr std::size_t block_size = std::size_t{1} << BlockBits;

  T& operator[](std::size_t i) { return blocks_[i >> BlockBits][i & (block_size - 1)]; }
  const T& operator[](std::size_t i) const { return blocks_[i >> BlockBits][i & (block_size - 1)]; }
  std::size_t size() const { return size_; }

  std::size_t push_back(const T& v) {
    // for_overwrite: no zeroing; every element is written before it is read.
    if (size_ == blocks_.size() * block_size)
      blocks_.push_back(std::make_unique_for_overwrite<T[]>(block_size));
    (*this)[size_] = v;
    return size_++;
  }
  std::size_t memory_bytes() const {
    return blocks_.size() * block_size * sizeof(T) +
           blocks_.capacity() * sizeof(std::unique_ptr<T[]>);
  }

 private:
  std::vector<std::unique_ptr<T[]>> blocks_;
  std::size_t size_ = 0;
};

}  // namespace waitroom::sim
