// A lottery class's members in entry order (entry_order_set): the k-th member, the bounds on
// a slot's entry time, each group's oldest entry, the envelope of the waits and the group
// holding a unit of it, and compaction must agree with a plain vector of the members, through
// several levels of counts (over 16^3 words) and removals in random order.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "models/queues/entry_order_set.hpp"
#include "sim/random.hpp"

namespace {

using waitroom::models::entry_order_set;

struct member {
  std::uint32_t user;
  std::int64_t entry_ns;
};
using u128 = entry_order_set::u128;
constexpr std::uint32_t group_slots = 1024;

// Each group's oldest entry and the envelope of the waits at `now` (the sum over members of
// now - their group's oldest entry), and the group found for units of it: against `ref`.
void expect_envelope(const entry_order_set& set, const std::vector<member>& ref,
                     const std::vector<std::uint32_t>& pos, std::int64_t now,
                     waitroom::sim::rng& r) {
  std::vector<std::int64_t> lo;
  std::vector<std::uint64_t> count;
  for (const member& m : ref) {
    const std::size_t g = pos[m.user] / group_slots;
    if (g >= lo.size()) {
      lo.resize(g + 1, 0);
      count.resize(g + 1, 0);
    }
    if (count[g]++ == 0) lo[g] = m.entry_ns;  // ref is in entry order
  }
  u128 total = 0;
  std::vector<u128> upto;  // envelope of the groups before g
  for (std::size_t g = 0; g < lo.size(); ++g) {
    upto.push_back(total);
    if (count[g] == 0) continue;
    ASSERT_EQ(set.group_live_lo(g), lo[g]) << "group " << g;
    ASSERT_EQ(set.group_count(g), count[g]) << "group " << g;
    total += u128{count[g]} * static_cast<std::uint64_t>(now - lo[g]);
  }
  const auto t = static_cast<std::uint64_t>(now);
  ASSERT_TRUE(set.wait_envelope(t) == total);
  if (total == 0) return;
  for (int p = 0; p < 300; ++p) {
    // Both ends of a sample of groups, and units at random.
    const std::size_t g = static_cast<std::size_t>(r.below(lo.size()));
    if (count[g] == 0) continue;
    const u128 w = u128{count[g]} * static_cast<std::uint64_t>(now - lo[g]);
    if (w == 0) continue;
    ASSERT_EQ(set.select_group_by_wait(upto[g], t), g);
    ASSERT_EQ(set.select_group_by_wait(upto[g] + w - 1, t), g);
    const u128 u = (u128{r.next()} << 64 | r.next()) % total;
    const std::size_t found = set.select_group_by_wait(u, t);
    ASSERT_LT(found, lo.size());
    ASSERT_TRUE(upto[found] <= u &&
                u < upto[found] + u128{count[found]} * static_cast<std::uint64_t>(now - lo[found]));
  }
}

// Every check the set must pass against `ref` (its members in entry order); pos[user] is the
// user's slot. A sample of ranks when there are many.
void expect_same(const entry_order_set& set, const std::vector<member>& ref,
                 const std::vector<std::uint32_t>& pos, waitroom::sim::rng& r) {
  ASSERT_EQ(set.size(), ref.size());
  const std::size_t probes = std::min<std::size_t>(ref.size(), 2000);
  for (std::size_t p = 0; p < probes; ++p) {
    const std::size_t k = ref.size() <= 2000 ? p : static_cast<std::size_t>(r.below(ref.size()));
    const std::uint32_t slot = set.select(k);
    ASSERT_EQ(set.user_at(slot), ref[k].user) << "rank " << k;
    ASSERT_EQ(slot, pos[ref[k].user]);
    ASSERT_LE(set.entry_lo(slot), ref[k].entry_ns);
    ASSERT_GE(set.entry_hi(slot), ref[k].entry_ns);
  }
  std::vector<std::uint32_t> seen;
  set.for_each([&](std::uint32_t user) { seen.push_back(user); });
  ASSERT_EQ(seen.size(), ref.size());
  for (std::size_t i = 0; i < ref.size(); ++i) ASSERT_EQ(seen[i], ref[i].user);
}

TEST(EntryOrderSet, SelectBoundsEnvelopeAndCompactionAgreeWithAPlainVector) {
  entry_order_set set;
  waitroom::sim::rng r(2026);
  std::vector<member> ref;
  std::vector<std::uint32_t> pos;
  std::vector<std::int64_t> entry_by_user;
  std::uint32_t next_user = 0;
  std::int64_t now = 0;
  const auto push = [&](std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
      now += static_cast<std::int64_t>(r.below(3)) * 1000;  // ties now and then
      const std::uint32_t user = next_user++;
      pos.push_back(set.push(user, now));
      ref.push_back({user, now});
      entry_by_user.push_back(now);
    }
  };
  const auto entry_of = [&](std::uint32_t user) { return entry_by_user.at(user); };
  const auto erase_some = [&](std::size_t n) {  // n members at random, in random order
    std::vector<char> gone(ref.size(), 0);
    for (std::size_t i = 0; i < n && i < ref.size(); ++i) {
      std::size_t k = 0;
      do k = static_cast<std::size_t>(r.below(ref.size()));
      while (gone[k]);
      set.erase(pos[ref[k].user], entry_of);
      gone[k] = 1;
    }
    std::size_t to = 0;
    for (std::size_t k = 0; k < ref.size(); ++k)
      if (!gone[k]) ref[to++] = ref[k];
    ref.resize(to);
  };
  // Also 30 days on: an envelope over 2^64 at 600,000 members.
  const auto envelope_ok = [&] {
    expect_envelope(set, ref, pos, now + 5'000'000'000, r);
    expect_envelope(set, ref, pos, now + 30 * 86'400'000'000'000, r);
  };

  push(600'000);  // 9,375 words, two blocks of slots, three levels of counts above the words
  expect_same(set, ref, pos, r);
  envelope_ok();
  erase_some(300'000);
  expect_same(set, ref, pos, r);
  envelope_ok();
  EXPECT_FALSE(set.sparse());
  erase_some(160'000);  // 140,000 of 600,000 slots hold a member
  EXPECT_TRUE(set.sparse());
  std::size_t moved = 0;
  set.compact(
      [&](std::uint32_t user, std::uint32_t slot) {
        pos[user] = slot;
        ++moved;
      },
      entry_of);
  EXPECT_EQ(moved, ref.size());
  EXPECT_FALSE(set.sparse());
  for (std::size_t k = 0; k < ref.size(); ++k) ASSERT_EQ(pos[ref[k].user], k);
  expect_same(set, ref, pos, r);
  envelope_ok();
  push(50'000);  // after compaction, into the open word and new ones
  erase_some(1'000);
  expect_same(set, ref, pos, r);
  envelope_ok();
  erase_some(ref.size() - 1);
  expect_same(set, ref, pos, r);
  envelope_ok();
  erase_some(1);
  EXPECT_TRUE(set.empty());
  set.compact([&](std::uint32_t, std::uint32_t) { ADD_FAILURE() << "nobody to move"; },
              [&](std::uint32_t) { return std::int64_t{0}; });
  push(100);
  expect_same(set, ref, pos, r);
  EXPECT_GE(set.memory_bytes(), std::size_t{2} << 20);  // a block of slots: one huge page
}

TEST(EntryOrderSet, DrawsTakenAheadAndClearedInOrderAreOneAtATimeErasures) {
  // The draw's steps: group and word from the counts, take() counting the member gone, then
  // clear() some draws later, in take order, giving its slot. Up to 8 taken ahead, as the
  // lottery does; several in one word. Each slot cleared must be the member that rank had
  // when it was taken; once cleared, each group whose oldest was taken reads its oldest again,
  // and the envelope must count the taken ones gone.
  entry_order_set set;
  waitroom::sim::rng r(99);
  std::vector<member> ref;
  std::vector<std::uint32_t> pos;  // slot of each user: its serial
  for (std::uint32_t user = 0; user < 5000; ++user) {
    pos.push_back(set.push(user, std::int64_t{user} * 10));
    ref.push_back({user, std::int64_t{user} * 10});
  }
  std::vector<std::size_t> stale;  // groups whose oldest was taken
  struct taken {
    std::uint32_t word;
    std::uint64_t rank;
    std::uint32_t user;  // the reference's member at that rank when taken
  };
  std::vector<taken> pending;
  std::size_t drawn = 0;
  while (!ref.empty()) {
    // Low ranks often: several draws in the oldest words.
    const auto k = static_cast<std::size_t>(
        r.below(r.below(2) == 0 ? std::min<std::size_t>(ref.size(), 100) : ref.size()));
    std::uint64_t rank = k;
    const std::size_t group = set.select_group(rank);
    if (rank == 0) stale.push_back(group);
    const std::uint32_t word = set.select_word(group, rank);
    ASSERT_LE(set.entry_lo(static_cast<std::uint32_t>(word * 64)), ref[k].entry_ns);
    ASSERT_GE(set.entry_hi(static_cast<std::uint32_t>(word * 64)), ref[k].entry_ns);
    set.take(word);
    pending.push_back({word, rank, ref[k].user});
    ref.erase(ref.begin() + static_cast<std::ptrdiff_t>(k));
    ASSERT_EQ(set.size(), ref.size());
    if (pending.size() == 8 || ref.empty()) {
      for (const taken& t : pending) {
        const std::uint32_t slot = set.clear(t.word, t.rank);
        ASSERT_EQ(set.user_at(slot), t.user) << "draw " << drawn;
        ++drawn;
      }
      pending.clear();
      for (const std::size_t g : stale)
        set.refresh_group_lo(g, [](std::uint32_t user) { return std::int64_t{user} * 10; });
      stale.clear();
      expect_envelope(set, ref, pos, 60'000, r);
    }
  }
  EXPECT_EQ(drawn, 5000u);
  EXPECT_TRUE(set.empty());
}

TEST(EntryOrderSet, AMemberEnteringBeforeTheLastIsAnError) {
  entry_order_set set;
  set.push(1, 5000);
  set.push(2, 5000);
  EXPECT_THROW(set.push(3, 4999), std::logic_error);
  EXPECT_EQ(set.size(), 2u);
}

// The branch-free searches against plain loops: the k-th set bit of a word (every k, words
// of every density), and the word of 16 byte counts holding rank k.
TEST(EntryOrderSet, BranchFreeSelectsAgreeWithLoops) {
  waitroom::sim::rng r(17);
  for (int t = 0; t < 20'000; ++t) {
    std::uint64_t bits = r.next();
    const int density = t % 4;  // sparse, dense and in between
    if (density == 0) bits &= r.next() & r.next();
    if (density == 1) bits |= r.next() | r.next();
    if (t == 0) bits = ~std::uint64_t{0};
    if (t == 1) bits = std::uint64_t{1} << 63;
    std::vector<unsigned> positions;
    for (unsigned i = 0; i < 64; ++i)
      if ((bits >> i) & 1) positions.push_back(i);
    for (std::uint64_t k = 0; k < positions.size(); ++k)
      ASSERT_EQ(waitroom::models::detail::select_in_word(bits, k), positions[k])
          << "bits " << bits << " k " << k;
  }
  for (int t = 0; t < 2'000; ++t) {
    std::uint8_t counts[16];
    unsigned sum = 0;
    for (auto& c : counts) {
      c = static_cast<std::uint8_t>(r.below(t % 2 == 0 ? 65 : 3));
      sum += c;
    }
    for (std::uint64_t k = 0; k < sum; ++k) {
      std::uint64_t expected_k = k;
      unsigned expected = 0;
      while (expected_k >= counts[expected]) expected_k -= counts[expected++];
      std::uint64_t got_k = k;
      ASSERT_EQ(waitroom::models::detail::select_in_16(counts, got_k), expected);
      ASSERT_EQ(got_k, expected_k);
    }
  }
}

}  // namespace
