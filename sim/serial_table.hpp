#pragma once
// A table indexed by ever-increasing serial numbers (one per entity, never reused), kept in
// fixed-size blocks. A block whose entities are all gone is freed, in any order, so memory
// follows the entities alive now rather than all that ever lived. The caller tracks
// liveness (see block_liveness) and frees blocks.
#include <cstdint>
#include <memory>
#include <vector>

#include "sim/block_alloc.hpp"

namespace waitroom::sim {

// 2^18 users a block: 2 MiB of entry times, a huge page when asked for.
inline constexpr unsigned serial_block_bits = 18;
inline constexpr std::size_t serial_block_size = std::size_t{1} << serial_block_bits;

template <class T>
class serial_table {
 public:
  T& operator[](std::uint32_t i) {
    return blocks_[i >> serial_block_bits][i & (serial_block_size - 1)];
  }
  const T& operator[](std::uint32_t i) const {
    return blocks_[i >> serial_block_bits][i & (serial_block_size - 1)];
  }
  // A hint that element i (alive) is read soon. Always inlined: gcc 12's ipa-modref pass
  // ignores a prefetch's effect, finds a helper made of prefetches free of side effects and
  // deletes its calls where it was not inlined (tests/bench/check_prefetch.py).
  [[gnu::always_inline]] void prefetch(std::uint32_t i) const { __builtin_prefetch(&(*this)[i]); }
  // Writes element i, the next serial (i == number of elements pushed so far). huge_pages: a
  // new block goes on transparent huge pages (see block_alloc.hpp), for tables read at random.
  // Otherwise every block after the first has its pages brought in at once: serials are
  // pushed in order, so a table that filled a block will likely fill the next (at most one
  // block is populated beyond what the table fills).
  void push(std::uint32_t i, const T& v, bool huge_pages = false) {
    std::size_t b = i >> serial_block_bits;
    if (b == blocks_.size()) {
      const block_pages pages = huge_pages ? block_pages::huge
                                : b == 0   ? block_pages::on_touch
                                           : block_pages::populate;
      blocks_.push_back(allocate_block<T>(serial_block_size, pages));
      ++live_blocks_;
    }
    (*this)[i] = v;
  }
  // False once element i's block has been freed (or before it was created).
  bool has(std::uint32_t i) const {
    std::size_t b = i >> serial_block_bits;
    return b < blocks_.size() && blocks_[b] != nullptr;
  }
  void free_block(std::size_t b) {
    blocks_[b].reset();
    --live_blocks_;
  }
  std::size_t memory_bytes() const {
    return live_blocks_ * serial_block_size * sizeof(T) + blocks_.capacity() * sizeof(blocks_[0]);
  }

 private:
  std::vector<std::unique_ptr<T[], free_deleter>> blocks_;
  std::size_t live_blocks_ = 0;
};

// Counts live entities per block; says when a finished block has emptied.
class block_liveness {
 public:
  // Entity i (the next serial) is born. Returns true, with the block in `empty`, when
  // this completes an earlier block whose entities had all gone already.
  bool born(std::uint32_t i, std::size_t& empty) {
    std::size_t b = i >> serial_block_bits;
    bool freed = false;
    if (b == live_.size()) {
      freed = b > 0 && live_[b - 1] == 0;
      empty = b - 1;
      live_.push_back(0);
    }
    ++live_[b];
    next_ = std::uint64_t{i} + 1;
    return freed;
  }
  // True when entity i's block is now empty and complete (no serial will be added to it).
  bool died(std::uint32_t i) {
    std::size_t b = i >> serial_block_bits;
    return --live_[b] == 0 && complete(b);
  }
  // Complete once the next block has begun: a block emptied before that is freed by born(),
  // after it by died(), never by both.
  bool complete(std::size_t b) const { return (b + 1) * serial_block_size < next_; }
  std::uint32_t live_in(std::size_t b) const { return live_[b]; }

 private:
  std::vector<std::uint32_t> live_;
  std::uint64_t next_ = 0;
};

}  // namespace waitroom::sim
