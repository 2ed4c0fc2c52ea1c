#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>
#include <tuple>
#include <vector>

#include "sim/event_queue.hpp"
#include "sim/random.hpp"
#include "sim/simulator.hpp"

using namespace waitroom::sim;

TEST(EventQueue, OrdersByTimeThenPhaseThenInsertion) {
  event_queue q;
  q.push(sim_time::from_ns(10), 1, 100, 0);
  q.push(sim_time::from_ns(10), 0, 101, 0);
  q.push(sim_time::from_ns(5), 2, 102, 0);
  q.push(sim_time::from_ns(10), 0, 103, 0);
  q.push(sim_time::from_ns(10), 1, 104, 0);
  std::vector<std::uint32_t> kinds;
  while (!q.empty()) kinds.push_back(q.pop().kind);
  EXPECT_EQ(kinds, (std::vector<std::uint32_t>{102, 101, 103, 100, 104}));
}

namespace {
// 20,000 random pushes with pops between, checked against a reference ordered set: every pop
// is the smallest pending event by time, phase, then insertion. With far events, half of the
// pushes are far ones (200 ns later, so many ties across the two heaps).
void pops_in_reference_order(std::uint64_t seed, bool with_far) {
  event_queue q;
  rng r(seed);
  std::set<std::tuple<std::int64_t, std::uint8_t, std::uint32_t>> pending;  // kind = insertion
  std::size_t far = 0, far_popped = 0;
  auto pop_and_check = [&] {
    ASSERT_EQ(q.size(), pending.size());
    const auto top = q.top();
    auto e = q.pop();
    ASSERT_EQ(e.kind, top.kind);
    ASSERT_EQ(std::make_tuple(e.time_ns, e.phase(), e.kind), *pending.begin());
    far_popped += e.arg;
    pending.erase(pending.begin());
  };
  for (std::uint32_t i = 0; i < 20000; ++i) {
    const auto t = static_cast<std::int64_t>(r.below(with_far ? 300 : 500));
    const auto ph = static_cast<std::uint8_t>(r.below(3));
    if (with_far && r.below(2) == 0) {
      q.push_far(sim_time::from_ns(t + 200), ph, i, 1);
      pending.emplace(t + 200, ph, i);
      ++far;
    } else {
      q.push(sim_time::from_ns(t), ph, i, 0);
      pending.emplace(t, ph, i);
    }
    if (r.below(3) == 0) {
      ASSERT_NO_FATAL_FAILURE(pop_and_check());
    }
  }
  while (!q.empty()) ASSERT_NO_FATAL_FAILURE(pop_and_check());
  EXPECT_TRUE(pending.empty());
  EXPECT_EQ(far_popped, far);
  if (with_far) {
    EXPECT_GT(far, 9000u);
  }
  EXPECT_EQ(q.scheduled(), 20000u);
}
}  // namespace

TEST(EventQueue, EveryPopIsTheSmallestPendingEvent) {
  pops_in_reference_order(3, false);
}

// Far events (kept apart) come out in exactly the order one heap gives.
TEST(EventQueue, FarEventsKeepOneHeapsOrder) {
  pops_in_reference_order(11, true);
}

// As a run uses them: far events scheduled from the current time on, some in the bucket
// already open, most in later buckets of the calendar's ring (wrapping round it several
// times), some beyond the ring, some at the end of the clock; near events between them.
TEST(EventQueue, FarEventsAcrossTheCalendarKeepOneHeapsOrder) {
  event_queue q;
  rng r(17);
  std::set<std::tuple<std::int64_t, std::uint64_t, std::uint32_t>> pending;  // time, order, kind
  std::int64_t now = 0;
  std::int64_t latest = 0;  // the latest time popped before the clock's end
  std::uint32_t pushed = 0, beyond = 0;
  auto push = [&] {
    const std::uint32_t i = pushed++;
    const auto ph = static_cast<std::uint8_t>(r.below(2));
    const auto order = (std::uint64_t{ph} << 56) | i;
    std::int64_t t = now;
    switch (r.below(8)) {
      case 0:  // the same instant
        break;
      case 1:  // within the open bucket, or the next
        t += static_cast<std::int64_t>(r.below(300'000'000));
        break;
      case 2:  // beyond the ring (4,096 buckets of 2^28 ns: about 1,100 s)
        t += static_cast<std::int64_t>(1'000 + r.below(4'000)) * 1'000'000'000;
        ++beyond;
        break;
      case 3:
        if (r.below(50) == 0) t = sim_time::max().ns();
        break;
      default:  // within the ring
        t += static_cast<std::int64_t>(r.below(600'000)) * 1'000'000;
    }
    if (r.below(4) == 0)
      q.push(sim_time::from_ns(t), ph, i, 0);
    else
      q.push_far(sim_time::from_ns(t), ph, i, 0);
    pending.emplace(t, order, i);
  };
  auto pop_and_check = [&] {
    ASSERT_EQ(q.size(), pending.size());
    const auto top = q.top();
    const auto e = q.pop();
    ASSERT_EQ(e.kind, top.kind);
    ASSERT_EQ(std::make_tuple(e.time_ns, e.order, e.kind), *pending.begin());
    ASSERT_GE(e.time_ns, now);
    now = e.time_ns;
    if (now < sim_time::max().ns()) latest = now;
    pending.erase(pending.begin());
  };
  for (int i = 0; i < 60000; ++i) {
    push();
    if (r.below(5) < 3) {
      ASSERT_NO_FATAL_FAILURE(pop_and_check());
    }
    if (i % 20000 == 19999) {  // let it drain: buckets reopen later, the ring restarts
      while (!q.empty() && q.top().time_ns < sim_time::max().ns()) {
        ASSERT_NO_FATAL_FAILURE(pop_and_check());
      }
    }
  }
  while (!q.empty()) ASSERT_NO_FATAL_FAILURE(pop_and_check());
  EXPECT_TRUE(pending.empty());
  EXPECT_GT(beyond, 5000u);
  EXPECT_GT(latest, std::int64_t{3'000} * 1'000'000'000);  // the ring wrapped (1,100 s)
}

// More far events than the heap keeps alone, all at one instant (one bucket): still in
// insertion order, and the calendar does not redo its spreading on every push.
TEST(EventQueue, ManyFarEventsAtOneInstant) {
  event_queue q;
  for (std::uint32_t i = 0; i < 20000; ++i) q.push_far(sim_time::from_ns(1'000'000), 0, i, 0);
  q.push(sim_time::from_ns(999'999), 0, 99999, 0);
  EXPECT_EQ(q.pop().kind, 99999u);
  for (std::uint32_t i = 0; i < 20000; ++i) ASSERT_EQ(q.pop().kind, i);
  EXPECT_TRUE(q.empty());
  EXPECT_LE(q.far_spreads(), 4u);  // at 4,097, then at twice each time: 3
}

// A bucket of many, alone in the calendar, is opened back into one heap; an earlier far event
// then must not spread it into the calendar again each time (with 100,000
// in the bucket each later event cost about 2,800 times what it costs in one heap).
TEST(EventQueue, ABigBucketIsNotRespreadForEveryEarlierEvent) {
  event_queue q;
  constexpr std::int64_t s_ns = 1'000'000'000;
  q.push_far(sim_time::from_ns(1), 0, 0, 0);
  for (std::uint32_t i = 0; i < 20000; ++i) q.push_far(sim_time::from_ns(60 * s_ns), 0, 1, 0);
  EXPECT_EQ(q.pop().time_ns, 1);  // the big bucket opens: back to one heap
  std::int64_t now = 1;
  for (int k = 0; k < 2000; ++k) {
    q.push_far(sim_time::from_ns(now + 1'000'000), 0, 2, 0);
    const auto e = q.pop();
    ASSERT_EQ(e.kind, 2u);
    now = e.time_ns;
  }
  EXPECT_LE(q.far_spreads(), 2u);
  EXPECT_EQ(q.size(), 20000u);
  std::size_t left = 0;
  while (!q.empty()) left += q.pop().kind == 1 ? 1 : 0;
  EXPECT_EQ(left, 20000u);
}

// Both heaps' room counts in memory_bytes().
TEST(EventQueue, MemoryCountsBothHeaps) {
  event_queue q;
  q.push(sim_time::from_ns(1), 0, 0, 0);
  q.push(sim_time::from_ns(2), 0, 0, 0);
  const auto near_only = q.memory_bytes();
  EXPECT_EQ(near_only, 2 * sizeof(event));
  q.push_far(sim_time::from_ns(3), 0, 0, 0);
  EXPECT_EQ(q.memory_bytes(), near_only + sizeof(event));
  EXPECT_TRUE(q.any_of([](const event& e) { return e.time_ns == 3; }));
  EXPECT_FALSE(q.any_of([](const event& e) { return e.time_ns == 4; }));
}

namespace {
struct counting_model {
  simulator* sim;
  int handled = 0;
  int limit;
  void handle(const event& e) {
    ++handled;
    if (handled < limit) sim->schedule(e.time() + sim_time::from_ns(10), 0, 0);
  }
  bool done() const { return false; }
};
}  // namespace

// The queue's room grows exactly as push_back grows a vector (results report memory_bytes).
TEST(EventQueue, GrowsAsAVectorGrows) {
  for (std::size_t reserved : {std::size_t{0}, std::size_t{5}}) {
    event_queue q;
    std::vector<event> v;
    q.reserve(reserved);
    v.reserve(reserved);
    rng r(5);
    for (int i = 0; i < 3000; ++i) {
      if (r.below(3) == 0 && !q.empty()) {
        q.pop();
        v.pop_back();
      } else {
        q.push(sim_time::from_ns(static_cast<std::int64_t>(r.below(100))), 0, 0, 0);
        v.push_back({});
      }
      ASSERT_EQ(q.size(), v.size());
      ASSERT_EQ(q.memory_bytes(), v.capacity() * sizeof(event)) << "step " << i;
    }
  }
}

// sim_time rounds without libm; it must round exactly as std::llround does, or every
// scheduled time (and every result) would move.
TEST(SimTime, RoundsExactlyAsLlround) {
  rng r(11);
  auto check = [](double s) {
    ASSERT_EQ(sim_time::from_seconds(s).ns(), std::llround(s * 1e9)) << s;
    ASSERT_EQ(sim_time::from_ms(s).ns(), std::llround(s * 1e6)) << s;
  };
  for (double s : {0.0, -0.0, 0.5e-9, 1.5e-9, 2.5e-9, -0.5e-9, -2.5e-9, 0.49999999999999994e-9,
                   1e-10, 123.4567891235, -7.0000000005, 3.0e9, -3.0e9, max_input_seconds})
    check(s);
  for (int i = 0; i < 200000; ++i) {
    // Within the range callers validate (max_input_seconds, about 2^31.6 s).
    const double magnitude = std::ldexp(1.0, static_cast<int>(r.below(92)) - 60);
    check((r.uniform01() - 0.3) * magnitude);                // fractions of every size, both signs
    check(static_cast<double>(r.below(1u << 30)) * 0.5e-9);  // exact halves of a nanosecond
  }
}

// The same on counts of nanoseconds directly: halves and near-halves of every size, both
// signs, across the fast path's edge at 2^52 and up to the clock's ends.
TEST(SimTime, RoundNsMatchesLlroundOnHalvesAndAtTheFastPathsEdge) {
  const double two52 = 4503599627370496.0;
  for (double x : {0.5,
                   1.5,
                   2.5,
                   -0.5,
                   -1.5,
                   -2.5,
                   0.49999999999999994,
                   -0.49999999999999994,
                   two52 - 0.5,
                   two52 - 1.5,
                   -(two52 - 0.5),
                   -(two52 - 1.5),
                   two52,
                   -two52,
                   two52 + 2,
                   -(two52 + 2),
                   two52 / 2 + 0.5,
                   -(two52 / 2 + 0.5),
                   9.1e18,
                   -9.1e18})
    ASSERT_EQ(sim_time::round_ns(x), std::llround(x)) << x;
  EXPECT_EQ(sim_time::round_ns(9.3e18), std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(sim_time::round_ns(-9.3e18), std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(sim_time::round_ns(std::nan("")), std::numeric_limits<std::int64_t>::max());
  rng r(12);
  for (int i = 0; i < 200000; ++i) {
    const int e = static_cast<int>(r.below(63));  // magnitudes 1 .. 2^62
    const double whole = std::ldexp(std::floor(r.uniform01() * 1048576.0), e - 20);
    for (double x : {whole + 0.5, whole - 0.5, -(whole + 0.5), std::nextafter(whole + 0.5, 0.0),
                     std::nextafter(whole + 0.5, 1e300), whole * r.uniform01()})
      ASSERT_EQ(sim_time::round_ns(x), std::llround(x)) << x;
  }
}

TEST(Simulator, StopsAtHorizonAndMaxEvents) {
  simulator s;
  counting_model m{&s, 0, 1000};
  s.schedule(sim_time::from_ns(0), 0, 0);
  EXPECT_EQ(s.run(m, {sim_time::from_ns(95), ~0ULL}), stop_reason::horizon);
  EXPECT_EQ(m.handled, 10);  // t = 0, 10, ..., 90
  EXPECT_EQ(s.now(), sim_time::from_ns(95));
  EXPECT_EQ(s.run(m, {sim_time::max(), 15}), stop_reason::max_events);
  EXPECT_EQ(s.events_executed(), 15u);
  EXPECT_EQ(s.run(m, {}), stop_reason::drained);
  EXPECT_EQ(m.handled, 1000);
}

#include "sim/serial_table.hpp"

TEST(SerialTable, BlocksAreFreedOnceWhenTheirEntitiesAreGone) {
  serial_table<int> t;
  block_liveness live;
  const auto n = static_cast<std::uint32_t>(3 * serial_block_size);
  std::size_t freed_by_birth = 0, freed_by_death = 0, empty = 0;
  // Block 0 empties before block 1 begins (freed by the birth that completes it); block 1
  // empties after block 2 began (freed by the death).
  for (std::uint32_t i = 0; i < n; ++i) {
    t.push(i, static_cast<int>(i));
    if (live.born(i, empty)) {
      t.free_block(empty);
      ++freed_by_birth;
    }
    ASSERT_EQ(t[i], static_cast<int>(i));
    if (i < serial_block_size && live.died(i)) ++freed_by_death;  // block 0 dies young
  }
  for (std::uint32_t i = static_cast<std::uint32_t>(serial_block_size); i < 2 * serial_block_size;
       ++i)
    if (live.died(i)) {
      t.free_block(i >> serial_block_bits);
      ++freed_by_death;
    }
  EXPECT_EQ(freed_by_birth, 1u);
  EXPECT_EQ(freed_by_death, 1u);
  EXPECT_EQ(live.live_in(2), serial_block_size);
  // One block left, plus the pointer vector.
  EXPECT_LT(t.memory_bytes(), 2 * serial_block_size * sizeof(int));
  EXPECT_GE(t.memory_bytes(), serial_block_size * sizeof(int));
}
