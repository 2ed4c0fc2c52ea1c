#pragma once
// One lottery class's waiting users in entry order, for draws weighted by wait. Members stay
// in their slots (a removal clears a bit), so the entry times of a group of 1,024 slots lie
// between those of its first slot and of the next group's. The k-th member is found through
// counts per group, per 16 groups, per 256 and so on, then a byte per 64-slot word counting
// its members, then the word's bits: all but the bits are a few hundred KiB at 10M members
// and stay in cache, so a draw's steps before the member's slot wait on no miss.
// For a draw by wait, each group also keeps the entry time of its oldest member (`live_lo_`),
// and each count above the groups the sum of count x oldest entry over its groups: a member
// waited at most now - its group's oldest entry, and these envelopes of the waits are summed
// exactly (128-bit integers) over any range, so a draw can pick a group by its envelope and
// accept a member in proportion to its wait, decided by the group's bounds almost always
// (queues::draw_by_wait). Slots of removed members are reclaimed once they are most of the
// slots. The slots are read at random, so they sit on huge pages where the system allows
// (sim/block_alloc.hpp).
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <vector>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "sim/block_alloc.hpp"

namespace waitroom::models {

namespace detail {
// The first of 16 byte counts c whose running sum exceeds k (k below their sum, itself at most
// 1,024), k becoming its rank there. Branch-free with SSE2 (a draw's word is unpredictable):
// the running sums in 16-bit lanes, the first above k found by a comparison mask.
inline unsigned select_in_16(const std::uint8_t* c, std::uint64_t& k) {
#if defined(__SSE2__)
  const __m128i zero = _mm_setzero_si128();
  const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(c));
  __m128i lo = _mm_unpacklo_epi8(b, zero);
  __m128i hi = _mm_unpackhi_epi8(b, zero);
  lo = _mm_add_epi16(lo, _mm_slli_si128(lo, 2));
  hi = _mm_add_epi16(hi, _mm_slli_si128(hi, 2));
  lo = _mm_add_epi16(lo, _mm_slli_si128(lo, 4));
  hi = _mm_add_epi16(hi, _mm_slli_si128(hi, 4));
  lo = _mm_add_epi16(lo, _mm_slli_si128(lo, 8));
  hi = _mm_add_epi16(hi, _mm_slli_si128(hi, 8));
  hi = _mm_add_epi16(hi, _mm_shuffle_epi32(_mm_shufflehi_epi16(lo, 0xff), 0xff));
  const __m128i kv = _mm_set1_epi16(static_cast<short>(k));
  const auto over = static_cast<unsigned>(
      _mm_movemask_epi8(_mm_packs_epi16(_mm_cmpgt_epi16(lo, kv), _mm_cmpgt_epi16(hi, kv))));
  const auto i = static_cast<unsigned>(std::countr_zero(over));
  alignas(16) std::uint16_t sums[16];
  _mm_store_si128(reinterpret_cast<__m128i*>(sums), lo);
  _mm_store_si128(reinterpret_cast<__m128i*>(sums + 8), hi);
  k -= i == 0 ? 0 : sums[i - 1];
  return i;
#else
  unsigned i = 0;
  for (; k >= c[i]; ++i) k -= c[i];
  return i;
#endif
}

// select_in_byte[r * 256 + b]: the position of the r-th set bit of byte b (r below its count).
inline constexpr std::array<std::uint8_t, 8 * 256> select_in_byte = [] {
  std::array<std::uint8_t, 8 * 256> t{};
  for (unsigned b = 0; b < 256; ++b)
    for (unsigned i = 0, r = 0; i < 8; ++i)
      if ((b >> i) & 1) t[(r++ << 8) | b] = static_cast<std::uint8_t>(i);
  return t;
}();

// The position of the k-th set bit (k < its count). Broadword and branch-free (k is
// random: a loop would mispredict), as the build targets baseline x86-64, without popcnt
// or pdep: the bytes' counts summed cumulatively by one multiplication, the bytes whose sum
// is at most k counted by a subtraction per byte, then a table for the bit in the byte.
inline unsigned select_in_word(std::uint64_t bits, std::uint64_t k) {
  constexpr std::uint64_t ones = 0x0101010101010101;
  constexpr std::uint64_t highs = 0x8080808080808080;
  std::uint64_t s = bits - ((bits >> 1) & 0x5555555555555555);
  s = (s & 0x3333333333333333) + ((s >> 2) & 0x3333333333333333);
  s = ((s + (s >> 4)) & 0x0f0f0f0f0f0f0f0f) * ones;  // byte i: bytes 0..i
  // Byte i gets its high bit when sum_i <= k (both below 128: no borrow between bytes).
  const std::uint64_t at_most_k = ((k * ones | highs) - s) & highs;
  const auto byte = static_cast<unsigned>(((at_most_k >> 7) * ones) >> 56);
  const std::uint64_t before = ((s << 8) >> (8 * byte)) & 0xff;  // bits in earlier bytes
  const std::uint64_t in_byte = (bits >> (8 * byte)) & 0xff;
  return 8 * byte + select_in_byte[((k - before) << 8) | in_byte];
}
}  // namespace detail

class entry_order_set {
 public:
  // Sums of entry times over millions of members (GCC and Clang; __extension__ keeps
  // -Wpedantic quiet).
  __extension__ typedef unsigned __int128 u128;

  // Appends a member that entered at entry_ns (not before the last one, not before 0);
  // returns its slot.
  std::uint32_t push(std::uint32_t user, std::int64_t entry_ns) {
    if (entry_ns < 0 || (entry_ns < last_entry_ns_ && size_ > 0))
      throw std::logic_error("entry_order_set: members must enter in time order, from 0");
    const auto slot = static_cast<std::uint32_t>(size_);
    const std::size_t word = slot >> word_shift;
    const std::size_t group = word >> fan_shift;
    if ((slot & word_mask) == 0) {
      if ((word & fan_mask) == 0) {
        group_first_ns_.push_back(entry_ns);
        live_lo_.push_back(entry_ns);
        if (group == counts_[0].size()) counts_[0].push_back(0);
      }
      bits_.push_back(0);
      if ((word & fan_mask) == 0) word_count_.resize(word_count_.size() + fan, 0);
      if ((slot & block_mask) == 0 && slot >> block_shift == blocks_.size())
        blocks_.push_back(sim::allocate_block<std::uint32_t>(block_size, sim::block_pages::huge));
    }
    at(slot) = user;
    ++size_;
    bits_.back() |= std::uint64_t{1} << (slot & word_mask);
    ++word_count_[word];
    last_entry_ns_ = entry_ns;
    ++live_;
    if (counts_[0][group] == 0) live_lo_[group] = entry_ns;  // the group's oldest member
    const auto lo = static_cast<std::uint64_t>(live_lo_[group]);
    ++counts_[0][group];
    for (std::size_t l = 1; l < counts_.size(); ++l) {
      const std::size_t i = group >> (fan_shift * l);
      if (i == counts_[l].size()) {
        counts_[l].push_back(0);
        sums_[l].push_back(0);
      }
      ++counts_[l][i];
      sums_[l][i] += lo;
    }
    sum_ += lo;
    if (counts_.back().size() > fan) add_level();
    return slot;
  }

  std::size_t size() const { return live_; }
  std::int64_t last_entry_ns() const { return last_entry_ns_; }
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
  // must come in the order of the takes; slot_in_word, refresh_group_lo, erase, for_each
  // and compact need none pending.
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
    return static_cast<std::uint32_t>(group * fan +
                                      detail::select_in_16(word_count_.data() + group * fan, k));
  }
  std::uint32_t slot_in_word(std::uint32_t word, std::uint64_t k) const {
    return static_cast<std::uint32_t>(word * word_bits + detail::select_in_word(bits_[word], k));
  }
  void take(std::uint32_t word) {
    --word_count_[word];
    --live_;
    const std::size_t group = word >> fan_shift;
    const auto lo = static_cast<std::uint64_t>(live_lo_[group]);
    --counts_[0][group];
    for (std::size_t l = 1; l < counts_.size(); ++l) {
      const std::size_t i = group >> (fan_shift * l);
      --counts_[l][i];
      sums_[l][i] -= lo;
    }
    sum_ -= lo;
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

  // Weighted by wait. A group's members (taken ones counted gone) and the entry time of its
  // oldest member: exact when none of its members is pending, else perhaps that of a member
  // taken since (older: still a bound on every wait; refresh_group_lo makes it exact).
  std::uint32_t group_count(std::size_t group) const { return counts_[0][group]; }
  std::int64_t group_live_lo(std::size_t group) const { return live_lo_[group]; }
  // The envelope of the members' waits at `now` (not before any entry): the sum over groups
  // of members x (now - the group's oldest entry).
  u128 wait_envelope(std::uint64_t now) const { return u128{live_} * now - sum_; }
  // The group holding unit u of the wait envelope (u < wait_envelope(now)). While the envelope
  // is below 2^64 (the usual case), so is every part of it, and count x now - sum taken modulo
  // 2^64 is exact: the same descent in single words.
  std::size_t select_group_by_wait(u128 u, std::uint64_t now) const {
    if (static_cast<std::uint64_t>(wait_envelope(now) >> 64) == 0)
      return descend_by_wait<std::uint64_t>(static_cast<std::uint64_t>(u), now);
    return descend_by_wait<u128>(u, now);
  }
  // The group's oldest entry read again from its first member (none of its members pending),
  // after its oldest was taken or erased; entry_ns(user) gives a member's entry time.
  template <class Entry>
  void refresh_group_lo(std::size_t group, Entry entry_ns) {
    if (counts_[0][group] == 0) return;
    std::size_t w = group * fan;
    while (bits_[w] == 0) ++w;
    const std::int64_t lo = entry_ns(user_at(static_cast<std::uint32_t>(
        w * word_bits + static_cast<std::size_t>(std::countr_zero(bits_[w])))));
    const u128 n = counts_[0][group];
    const u128 old_lo = static_cast<std::uint64_t>(live_lo_[group]);
    const u128 new_lo = static_cast<std::uint64_t>(lo);
    live_lo_[group] = lo;
    for (std::size_t l = 1; l < counts_.size(); ++l) {
      u128& s = sums_[l][group >> (fan_shift * l)];
      s = s - n * old_lo + n * new_lo;
    }
    sum_ = sum_ - n * old_lo + n * new_lo;
  }

  // Removes a member (none pending); entry_ns(user) as above.
  template <class Entry>
  void erase(std::uint32_t slot, Entry entry_ns) {
    const std::size_t group = slot >> group_shift;
    const std::size_t word = slot >> word_shift;
    // No member before it in its group: it was the oldest.
    bool oldest = (bits_[word] & ((std::uint64_t{1} << (slot & word_mask)) - 1)) == 0;
    for (std::size_t w = group * fan; oldest && w < word; ++w) oldest = bits_[w] == 0;
    take(static_cast<std::uint32_t>(word));
    bits_[word] &= ~(std::uint64_t{1} << (slot & word_mask));
    if (oldest) refresh_group_lo(group, entry_ns);
  }

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
    word_count_.assign((words + fan_mask) / fan * fan, 0);  // whole groups: read 16 at a time
    std::fill_n(word_count_.begin(), words, static_cast<std::uint8_t>(word_bits));
    group_first_ns_.resize((words + fan_mask) / fan);
    for (std::size_t g = 0; g < group_first_ns_.size(); ++g)
      group_first_ns_[g] = entry_ns(user_at(static_cast<std::uint32_t>(g * fan * word_bits)));
    if ((size_ & word_mask) != 0) {
      bits_.back() = (std::uint64_t{1} << (size_ & word_mask)) - 1;
      word_count_[words - 1] = static_cast<std::uint8_t>(size_ & word_mask);
    }
    live_lo_ = group_first_ns_;  // every slot holds a member now
    counts_.assign(1, std::vector<std::uint32_t>((words + fan_mask) / fan + (words == 0), 0));
    for (std::size_t w = 0; w < words; ++w) counts_[0][w >> fan_shift] += word_count_[w];
    sums_.assign(1, {});
    while (counts_.back().size() > fan) add_level();
    sum_ = 0;
    for (std::size_t g = 0; g < live_lo_.size(); ++g)
      sum_ += u128{counts_[0][g]} * static_cast<std::uint64_t>(live_lo_[g]);
    blocks_.resize((size_ + block_mask) >> block_shift);  // the emptied blocks are freed
  }

  template <class F>
  void for_each(F&& f) const {
    for_each_slot([&](std::uint32_t slot) { f(user_at(slot)); });
  }

  std::size_t memory_bytes() const {
    std::size_t b = blocks_.size() * block_size * sizeof(std::uint32_t) +
                    bits_.capacity() * sizeof(std::uint64_t) + word_count_.capacity() +
                    (group_first_ns_.capacity() + live_lo_.capacity()) * sizeof(std::int64_t);
    for (const auto& c : counts_) b += c.capacity() * sizeof(std::uint32_t);
    for (const auto& c : sums_) b += c.capacity() * sizeof(u128);
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

  template <class Word>
  std::size_t descend_by_wait(Word u, std::uint64_t now) const {
    std::size_t i = 0;
    for (std::size_t l = counts_.size(); l-- > 1; i *= fan) {
      const std::uint32_t* c = counts_[l].data();
      const u128* s = sums_[l].data();
      for (;; ++i) {
        const Word w = Word{c[i]} * now - static_cast<Word>(s[i]);
        if (u < w) break;
        u -= w;
      }
    }
    const std::uint32_t* c = counts_[0].data();
    const std::int64_t* lo = live_lo_.data();
    for (;; ++i) {
      const Word w = Word{c[i]} * (now - static_cast<std::uint64_t>(lo[i]));
      if (u < w) return i;
      u -= w;
    }
  }

  // The top level holds more than `fan` counts: one more above it.
  void add_level() {
    const std::vector<std::uint32_t>& below = counts_.back();
    std::vector<std::uint32_t> up((below.size() + fan_mask) / fan, 0);
    std::vector<u128> up_sums(up.size(), 0);
    for (std::size_t i = 0; i < below.size(); ++i) {
      up[i >> fan_shift] += below[i];
      up_sums[i >> fan_shift] += counts_.size() == 1
                                     ? u128{below[i]} * static_cast<std::uint64_t>(live_lo_[i])
                                     : sums_.back()[i];
    }
    counts_.push_back(std::move(up));
    sums_.push_back(std::move(up_sums));
  }

  std::uint32_t& at(std::uint32_t slot) { return blocks_[slot >> block_shift][slot & block_mask]; }

  std::vector<std::unique_ptr<std::uint32_t[], sim::free_deleter>> blocks_;  // slot -> user
  std::size_t size_ = 0;                      // slots used (members and emptied ones)
  std::vector<std::uint64_t> bits_;           // per word: which of its slots hold a member
  std::vector<std::uint8_t> word_count_;      // per word: its members (whole groups)
  std::vector<std::int64_t> group_first_ns_;  // per 16 words: the entry time of the first slot
  std::vector<std::int64_t> live_lo_;         // per 16 words: the entry time of the oldest member
  // counts_[l][i]: members in words [i 16^(l+1), (i + 1) 16^(l+1)) (level 0: per group);
  // the top level has at most 16 counts.
  std::vector<std::vector<std::uint32_t>> counts_{std::vector<std::uint32_t>{0}};
  // sums_[l][i] (l >= 1): over the groups of counts_[l][i], members x oldest entry; sums_[0]
  // is empty (a group's is its count x live_lo_). sum_: over all groups.
  std::vector<std::vector<u128>> sums_{std::vector<u128>{}};
  u128 sum_ = 0;
  std::uint64_t live_ = 0;
  std::int64_t last_entry_ns_ = 0;
};

}  // namespace waitroom::models
