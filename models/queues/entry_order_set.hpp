#pragma once
// One lottery class's waiting users in entry order, for draws weighted by wait. Members stay
// in their slots (a removal clears a bit), so the entry times of a group of 1,024 slots lie
// between those of its first slot and of the next group's: with a wait spanning seconds and
// a group a few milliseconds, the bounds settle almost every accept-or-reject test and class
// weight without reading the member (a cache miss among millions). The k-th member is found
// through counts per group, per 16 groups, per 256 and so on, then a byte per 64-slot word
// counting its members, then the word's bits: all but the bits are a few hundred KiB at 10M
// members and stay in cache, so a draw's steps before the member's slot wait on no miss.
// Slots of removed members are reclaimed once they are most of the slots. The slots are read
// at random, so they sit on huge pages where the system allows (sim/block_alloc.hpp).
#include <bit>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <vector>

#include "sim/block_alloc.hpp"

namespace waitroom::models {

class entry_order_set {
 public:
  // Appends a member that entered at entry_ns (not before the last one); returns its slot.
  std::uint32_t push(std::uint32_t user, std::int64_t entry_ns) {
    if (entry_ns < last_entry_ns_ && size_ > 0)
      throw std::logic_error("entry_order_set: members must enter in time order");
    const auto slot = static_cast<std::uint32_t>(size_);
    const std::size_t word = slot >> word_shift;
    if ((slot & word_mask) == 0) {
      if ((word & fan_mask) == 0) group_first_ns_.push_back(entry_ns);
      bits_.push_back(0);
      word_count_.push_back(0);
      if ((slot & block_mask) == 0 && slot >> block_shift == blocks_.size())
        blocks_.push_back(sim::allocate_block<std::uint32_t>(block_size, sim::block_pages::huge));
    }
    at(slot) = user;
    ++size_;
    bits_.back() |= std::uint64_t{1} << (slot & word_mask);
    ++word_count_.back();
    last_entry_ns_ = entry_ns;
    ++live_;
    for (std::size_t l = 0; l < counts_.size(); ++l) {
      const std::size_t i = word >> (fan_shift * (l + 1));
      if (i == counts_[l].size()) counts_[l].push_back(0);
      ++counts_[l][i];
    }
    if (counts_.back().size() > fan) add_level();
    return slot;
  }

  std::size_t size() const { return live_; }
  bool empty() const { return live_ == 0; }
  std::uint32_t user_at(std::uint32_t slot) const {
    return blocks_[slot >> block_shift][slot & block_mask];
  }
  void prefetch(std::uint32_t slot) const {
    __builtin_prefetch(&blocks_[slot >> block_shift][slot & block_mask]);
  }

  // The slot of the k-th member in entry order (k < size()).
  std::uint32_t select(std::uint64_t k) const {
    const std::size_t group = select_group(k);
    const std::uint32_t word = select_word(group, k);
    return slot_in_word(word, k);
  }

  // A draw made in steps, so that the steps before the member's slot read only cache-resident
  // counts: the group of 16 words holding the k-th member (k becomes its rank in the group),
  // then the word (k becomes its rank in the word), then take(word) counts it gone, and
  // clear(word, k) clears its bit and gives its slot. Members taken but not yet cleared are
  // counted gone (size(), and the ranks of later draws) but still hold their bits, so clears
  // must come in the order of the takes; slot_in_word, oldest_word's first slot, erase,
  // for_each and compact need none pending.
  std::size_t select_group(std::uint64_t& k) const {
    std::size_t i = 0;
    for (const std::uint32_t* c = counts_.back().data(); k >= c[i]; ++i) k -= c[i];
    for (std::size_t l = counts_.size() - 1; l-- > 0;) {
      const std::uint32_t* c = counts_[l].data();
      for (i *= fan; k >= c[i]; ++i) k -= c[i];
    }
    return i;
  }
  std::uint32_t select_word(std::size_t group, std::uint64_t& k) const {
    const std::uint8_t* c = word_count_.data();
    std::size_t i = group * fan;
    for (; k >= c[i]; ++i) k -= c[i];
    return static_cast<std::uint32_t>(i);
  }
  std::uint32_t slot_in_word(std::uint32_t word, std::uint64_t k) const {
    return static_cast<std::uint32_t>(word * word_bits + select_in_word(bits_[word], k));
  }
  void take(std::uint32_t word) {
    --word_count_[word];
    --live_;
    for (std::size_t l = 0; l < counts_.size(); ++l) --counts_[l][word >> (fan_shift * (l + 1))];
  }
  std::uint32_t clear(std::uint32_t word, std::uint64_t k) {
    const std::uint32_t slot = slot_in_word(word, k);
    bits_[word] &= ~(std::uint64_t{1} << (slot & word_mask));
    return slot;
  }
  void prefetch_word(std::uint32_t word) const { __builtin_prefetch(&bits_[word]); }

  // The entry times of a group's members lie in [lo, hi]: the entry times of the first slots
  // of the group and of the next (a few KiB per million members: they stay in cache).
  std::int64_t group_lo(std::size_t group) const { return group_first_ns_[group]; }
  std::int64_t group_hi(std::size_t group) const {
    return group + 1 < group_first_ns_.size() ? group_first_ns_[group + 1] : last_entry_ns_;
  }
  std::int64_t entry_lo(std::uint32_t slot) const { return group_lo(slot >> group_shift); }
  std::int64_t entry_hi(std::uint32_t slot) const { return group_hi(slot >> group_shift); }

  void erase(std::uint32_t slot) {
    take(slot >> word_shift);
    bits_[slot >> word_shift] &= ~(std::uint64_t{1} << (slot & word_mask));
  }

  // The first word holding a member (counting taken ones gone; the set must not be empty),
  // and a word's first member's slot (none of its members taken and not cleared).
  std::uint32_t oldest_word() {
    while (word_count_[oldest_word_] == 0) ++oldest_word_;
    return static_cast<std::uint32_t>(oldest_word_);
  }
  std::uint32_t first_in_word(std::uint32_t word) const {
    return static_cast<std::uint32_t>(word * word_bits +
                                      static_cast<std::size_t>(std::countr_zero(bits_[word])));
  }
  std::uint32_t oldest() { return first_in_word(oldest_word()); }

  // True when removed members' slots are over three in four (and worth reclaiming): a draining
  // set is compacted a few times, each moving a quarter of the members it had before.
  bool sparse() const { return size_ > 4 * live_ + 4 * word_bits; }
  // Moves the members to the front, in entry order; moved(user, new_slot) is called for each,
  // and entry_ns(user) gives the entry time of each new word's first member.
  template <class Moved, class Entry>
  void compact(Moved moved, Entry entry_ns) {
    std::uint32_t to = 0;  // never past the slot read: members move down
    for_each_slot([&](std::uint32_t slot) {
      const std::uint32_t user = user_at(slot);
      at(to) = user;
      moved(user, to);
      ++to;
    });
    size_ = to;
    const std::size_t words = (size_ + word_mask) / word_bits;
    bits_.assign(words, ~std::uint64_t{0});
    word_count_.assign(words, static_cast<std::uint8_t>(word_bits));
    group_first_ns_.resize((words + fan_mask) / fan);
    for (std::size_t g = 0; g < group_first_ns_.size(); ++g)
      group_first_ns_[g] = entry_ns(user_at(static_cast<std::uint32_t>(g * fan * word_bits)));
    if ((size_ & word_mask) != 0) {
      bits_.back() = (std::uint64_t{1} << (size_ & word_mask)) - 1;
      word_count_.back() = static_cast<std::uint8_t>(size_ & word_mask);
    }
    counts_.assign(1, std::vector<std::uint32_t>((words + fan_mask) / fan + (words == 0), 0));
    for (std::size_t w = 0; w < words; ++w) counts_[0][w >> fan_shift] += word_count_[w];
    while (counts_.back().size() > fan) add_level();
    oldest_word_ = 0;
    blocks_.resize((size_ + block_mask) >> block_shift);  // the emptied blocks are freed
  }

  template <class F>
  void for_each(F&& f) const {
    for_each_slot([&](std::uint32_t slot) { f(user_at(slot)); });
  }

  std::size_t memory_bytes() const {
    std::size_t b = blocks_.size() * block_size * sizeof(std::uint32_t) +
                    bits_.capacity() * sizeof(std::uint64_t) + word_count_.capacity() +
                    group_first_ns_.capacity() * sizeof(std::int64_t);
    for (const auto& c : counts_) b += c.capacity() * sizeof(std::uint32_t);
    return b;
  }

 private:
  static constexpr unsigned block_shift = 19;  // 2 MiB of slots: one huge page
  static constexpr std::size_t block_size = std::size_t{1} << block_shift;
  static constexpr std::size_t block_mask = block_size - 1;
  static constexpr unsigned fan_shift = 4;  // each count covers 16 of the level below
  static constexpr std::size_t fan = std::size_t{1} << fan_shift;
  static constexpr std::size_t fan_mask = fan - 1;
  static constexpr unsigned word_shift = 6;
  static constexpr std::size_t word_bits = std::size_t{1} << word_shift;
  static constexpr std::size_t word_mask = word_bits - 1;
  static constexpr unsigned group_shift = word_shift + fan_shift;  // slots per group: 1,024

  template <class F>
  void for_each_slot(F&& f) const {
    for (std::size_t w = 0; w < bits_.size(); ++w)
      for (std::uint64_t b = bits_[w]; b != 0; b &= b - 1)
        f(static_cast<std::uint32_t>(w * word_bits +
                                     static_cast<std::size_t>(std::countr_zero(b))));
  }

  // The position of the k-th set bit (k < its count). Broadword (the bytes' counts summed
  // cumulatively by one multiplication), as the build targets baseline x86-64, where
  // std::popcount is a library call.
  static unsigned select_in_word(std::uint64_t bits, std::uint64_t k) {
    std::uint64_t s = bits - ((bits >> 1) & 0x5555555555555555);
    s = (s & 0x3333333333333333) + ((s >> 2) & 0x3333333333333333);
    s = ((s + (s >> 4)) & 0x0f0f0f0f0f0f0f0f) * 0x0101010101010101;  // byte i: bytes 0..i
    unsigned byte = 0;
    while (((s >> (8 * byte)) & 0xff) <= k) ++byte;
    if (byte > 0) k -= (s >> (8 * (byte - 1))) & 0xff;
    std::uint64_t b = (bits >> (8 * byte)) & 0xff;
    for (; k > 0; --k) b &= b - 1;
    return 8 * byte + static_cast<unsigned>(std::countr_zero(b));
  }

  // The top level holds more than `fan` counts: one more above it.
  void add_level() {
    std::vector<std::uint32_t> up((counts_.back().size() + fan_mask) / fan, 0);
    for (std::size_t i = 0; i < counts_.back().size(); ++i) up[i >> fan_shift] += counts_.back()[i];
    counts_.push_back(std::move(up));
  }

  std::uint32_t& at(std::uint32_t slot) { return blocks_[slot >> block_shift][slot & block_mask]; }

  std::vector<std::unique_ptr<std::uint32_t[], sim::free_deleter>> blocks_;  // slot -> user
  std::size_t size_ = 0;                      // slots used (members and emptied ones)
  std::vector<std::uint64_t> bits_;           // per word: which of its slots hold a member
  std::vector<std::uint8_t> word_count_;      // per word: its members
  std::vector<std::int64_t> group_first_ns_;  // per 16 words: the entry time of the first slot
  // counts_[l][i]: members in words [i 16^(l+1), (i + 1) 16^(l+1)) (level 0: per group);
  // the top level has at most 16 counts.
  std::vector<std::vector<std::uint32_t>> counts_{std::vector<std::uint32_t>{0}};
  std::uint64_t live_ = 0;
  std::size_t oldest_word_ = 0;
  std::int64_t last_entry_ns_ = 0;
};

}  // namespace waitroom::models
