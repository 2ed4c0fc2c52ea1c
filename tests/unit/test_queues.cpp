// The waiting lists behind one interface, seen through a recording mirror: the exact calls a
// live store receives, pop order (score, then token), sizes, and a lottery's sets.
#include <gtest/gtest.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/queues/queue_mirror.hpp"
#include "models/queues/queues.hpp"
#include "models/users/users.hpp"
#include "sim/input_error.hpp"
#include "sim/random.hpp"
#include "support/test_support.hpp"

using namespace waitroom;
using models::queues;
using models::users;
using testing_support::scenario_from;

namespace {

constexpr std::int64_t s_ns = 1'000'000'000;

// A token as Redis member bytes: 16 lowercase hex digits.
std::string hex(std::uint64_t token) {
  char b[17];
  std::snprintf(b, sizeof b, "%016" PRIx64, token);
  return b;
}
std::string num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.17g", v);
  return b;
}

// Logs every call, one line each, in the order they came.
class recording_mirror : public models::queue_mirror {
 public:
  std::vector<std::string> calls;
  void enter(std::uint32_t list, std::uint64_t token, double score, std::int64_t now) override {
    calls.push_back("enter " + std::to_string(list) + " " + hex(token) + " " + num(score) + " " +
                    std::to_string(now));
  }
  void remove(std::uint32_t list, std::uint64_t token, std::int64_t now) override {
    calls.push_back("remove " + std::to_string(list) + " " + hex(token) + " " +
                    std::to_string(now));
  }
  void move(std::uint32_t from, std::uint32_t to, std::uint64_t token, double score,
            std::int64_t now) override {
    calls.push_back("move " + std::to_string(from) + " " + std::to_string(to) + " " + hex(token) +
                    " " + num(score) + " " + std::to_string(now));
  }
  void released(std::uint32_t list, std::span<const std::uint64_t> tokens,
                std::int64_t now) override {
    std::string line = "released " + std::to_string(list);
    for (std::uint64_t t : tokens) line.append(" ").append(hex(t));
    line.append(" ").append(std::to_string(now));
    calls.push_back(line);
  }
  void drawn(std::uint32_t set, std::uint64_t token, std::int64_t now) override {
    calls.push_back("drawn " + std::to_string(set) + " " + hex(token) + " " + std::to_string(now));
  }
  void ranked(std::uint32_t list, std::uint64_t token, std::uint64_t rank,
              std::int64_t now) override {
    calls.push_back("ranked " + std::to_string(list) + " " + hex(token) + " " +
                    std::to_string(rank) + " " + std::to_string(now));
  }
  void counted(std::uint32_t list, std::uint64_t size, std::int64_t now) override {
    calls.push_back("counted " + std::to_string(list) + " " + std::to_string(size) + " " +
                    std::to_string(now));
  }
  void round_end(std::int64_t now) override { calls.push_back("round_end " + std::to_string(now)); }
};

// vip (10 s ahead) in list "fast", normal in list "slow"; scores in ms.
const std::string two_lists = R"({"name": "q",
  "classes": [{"name": "vip", "share": 0.5, "offset_ms": 10000}, {"name": "normal", "share": 0.5}],
  "arrivals": {"process": "poisson", "rate_per_s": 1},
  "queue": {"policy": "offset", "lists": [{"name": "fast", "classes": ["vip"]},
                                          {"name": "slow", "classes": ["normal"]}]},
  "release": {"mode": "tick", "interval_ms": 200, "batch": 1, "selection": {"kind": "strict"}},
  "run": {"horizon_s": 10}})";

const std::string one_list_credit = R"({"name": "q",
  "classes": [{"name": "vip", "share": 0.5, "offset_ms": 10000}, {"name": "normal", "share": 0.5}],
  "arrivals": {"process": "poisson", "rate_per_s": 1},
  "queue": {"policy": "offset",
            "compensation": {"threshold_s": 60, "offset_ms": 60000, "in_place": true}},
  "release": {"mode": "tick", "interval_ms": 200, "batch": 1},
  "run": {"horizon_s": 10}})";

// Both classes have a patience, so users may leave other than by a draw.
std::string lottery(const std::string& extra = "") {
  return R"({"name": "q",
  "classes": [{"name": "vip", "share": 0.5, "patience_s": {"dist": "exponential", "mean": 600}},
              {"name": "normal", "share": 0.5, "patience_s": {"dist": "exponential", "mean": 600}}],
  "arrivals": {"process": "poisson", "rate_per_s": 1},
  "release": {"mode": "tick", "interval_ms": 200, "batch": 1,
              "selection": {"kind": "lottery", "class_weights": {"vip": 5, "normal": 1})" +
         extra + R"(}},
  "run": {"horizon_s": 10}})";
}

// A user entered now into its class's list (route[class][0]).
std::uint32_t enter(const models::scenario& s, users& u, queues& q, std::int64_t now,
                    std::uint32_t c) {
  const std::uint32_t user = u.add(now, c, false);
  q.enter(user, c, s.route[c][0], now);
  return user;
}

// n users of class c entered at 0, 1, ... seconds; their serials in entry order.
std::vector<std::uint32_t> enter_n(const models::scenario& s, users& u, queues& q, int n,
                                   std::uint32_t c) {
  std::vector<std::uint32_t> out;
  for (int i = 0; i < n; ++i) out.push_back(enter(s, u, q, i * s_ns, c));
  return out;
}

std::vector<std::uint32_t> waiting_of(const queues& q) {
  std::vector<std::uint32_t> out;
  q.for_each_waiting([&](std::uint32_t user) { out.push_back(user); });
  return out;
}

// A draw takes a waiting user of class c who has waited a with probability in proportion to
// w_c (tau + a). Over `draws` draws in a row (plans of 64 a tick of 100 ms apart, a user giving
// up between ticks), per bucket (class x tenth of the entry times) the number drawn is
// compared with the sum of the bucket's probability at each draw: a martingale whose variance
// is the sum of p (1 - p), so each bucket's z-score must stay within 4.5. Entries an
// exponential gap_ms apart, a third of them VIPs (weight 5 against 1); the draws start
// after_s after the last entry.
void expect_by_wait_proportions(double tau_s, std::size_t n_users, double gap_ms, std::size_t draws,
                                double after_s = 1) {
  const auto s = scenario_from(lottery(R"(, "wait_scale_s": )" + num(tau_s)));
  const double tau_ns = tau_s * 1e9;
  const std::vector<double> weights{5, 1};
  users u(s.policy, 2, 151, 152);
  queues q(s, u);
  sim::rng arrivals(5);
  constexpr std::size_t bins = 10, buckets = 2 * bins;
  std::vector<std::uint32_t> in;
  std::vector<std::int64_t> entry;
  std::vector<std::uint32_t> cls;
  std::int64_t t = 0;
  for (std::size_t i = 0; i < n_users; ++i) {
    t += static_cast<std::int64_t>(-std::log(arrivals.uniform_open0()) * gap_ms * 1e6);
    const std::uint32_t c = arrivals.below(3) == 0 ? 0 : 1;
    in.push_back(enter(s, u, q, t, c));
    entry.push_back(t);
    cls.push_back(c);
  }
  const std::int64_t span = t + 1;
  std::vector<std::size_t> index_of(in.back() + 1, 0);
  for (std::size_t i = 0; i < n_users; ++i) index_of[in[i]] = i;
  const auto bucket_of = [&](std::size_t i) {
    return cls[i] * bins + static_cast<std::size_t>(entry[i] * std::int64_t{bins} / span);
  };
  std::vector<double> members(buckets, 0), entry_sum(buckets, 0);  // waiting, per bucket
  for (std::size_t i = 0; i < n_users; ++i) {
    members[bucket_of(i)] += 1;
    entry_sum[bucket_of(i)] += static_cast<double>(entry[i]);
  }
  const auto gone = [&](std::size_t i) {
    members[bucket_of(i)] -= 1;
    entry_sum[bucket_of(i)] -= static_cast<double>(entry[i]);
  };
  std::vector<double> expected(buckets, 0), variance(buckets, 0), observed(buckets, 0);
  auto now = span + static_cast<std::int64_t>(after_s * 1e9);
  sim::rng r(2027);
  std::vector<double> p(buckets);
  for (std::size_t drawn = 0; drawn < draws;) {
    const std::size_t k = q.plan_draws(r, 64, now);
    for (std::size_t j = 0; j < k; ++j, ++drawn) {
      double total = 0;
      for (std::size_t b = 0; b < buckets; ++b) {
        p[b] =
            weights[b / bins] * (members[b] * (tau_ns + static_cast<double>(now)) - entry_sum[b]);
        total += p[b];
      }
      for (std::size_t b = 0; b < buckets; ++b) {
        expected[b] += p[b] / total;
        variance[b] += p[b] / total * (1 - p[b] / total);
      }
      const std::size_t i = index_of[q.take_planned(now)];
      observed[bucket_of(i)] += 1;
      gone(i);
    }
    now += 100'000'000;
    const auto i = static_cast<std::size_t>(arrivals.below(n_users));
    if (u.waiting(in[i])) {
      q.remove(in[i], now);
      gone(i);
    }
  }
  std::size_t checked = 0;
  for (std::size_t b = 0; b < buckets; ++b) {
    if (variance[b] < 25) continue;
    ++checked;
    EXPECT_LT(std::fabs(observed[b] - expected[b]) / std::sqrt(variance[b]), 4.5)
        << "tau " << tau_s << " s, class " << b / bins << ", tenth " << b % bins << ": drawn "
        << observed[b] << ", expected " << expected[b];
  }
  EXPECT_GE(checked, 16u);
}

}  // namespace

TEST(Queues, EnterRankPopAndRoundEndReachTheMirrorExactly) {
  const auto s = scenario_from(two_lists);
  users u(s.policy, 2, 11, 12);
  queues q(s, u);
  recording_mirror m;
  q.set_mirror(&m);
  EXPECT_FALSE(q.lottery());
  EXPECT_EQ(q.list_count(), 2u);
  const auto u0 = enter(s, u, q, 1 * s_ns, 1);            // slow, 1000 ms
  const auto u1 = enter(s, u, q, 2 * s_ns, 0);            // fast, 2000 - 10000
  const auto u2 = enter(s, u, q, 1 * s_ns + 400'000, 1);  // slow, 1000.4 ms truncated: a tie
  EXPECT_EQ(q.size(0), 1u);
  EXPECT_EQ(q.size(1), 2u);
  EXPECT_EQ(q.sizes(), (std::vector<std::uint64_t>{1, 2}));
  EXPECT_EQ(q.total(), 3u);
  EXPECT_EQ(u.list_of(u0), 1u);
  EXPECT_EQ(u.list_of(u1), 0u);
  // The tie at 1000 goes to the smaller token.
  const bool u0_first = u.token_of(u0) < u.token_of(u2);
  const std::uint32_t first = u0_first ? u0 : u2, second = u0_first ? u2 : u0;
  EXPECT_EQ(q.head(1), first);
  EXPECT_EQ(q.rank(u2, 3 * s_ns), u0_first ? 1u : 0u);
  std::vector<std::uint32_t> popped;
  EXPECT_EQ(q.pop(1, 5, 4 * s_ns, [&](std::uint32_t user) { popped.push_back(user); }), 2u);
  EXPECT_EQ(popped, (std::vector<std::uint32_t>{first, second}));
  EXPECT_EQ(q.pop(1, 5, 4 * s_ns, [&](std::uint32_t) { ADD_FAILURE(); }), 0u);  // empty: no call
  q.round_end(5 * s_ns);
  q.report_sizes(6 * s_ns);
  EXPECT_EQ(q.sizes(), (std::vector<std::uint64_t>{1, 0}));
  EXPECT_EQ(q.total(), 1u);
  EXPECT_FALSE(u.waiting(u0));
  EXPECT_FALSE(u.waiting(u2));
  EXPECT_TRUE(u.waiting(u1));

  const std::vector<std::string> want{
      "enter 1 " + hex(u.token_of(u0)) + " 1000 1000000000",
      "enter 0 " + hex(u.token_of(u1)) + " -8000 2000000000",
      "enter 1 " + hex(u.token_of(u2)) + " 1000 1000400000",
      "ranked 1 " + hex(u.token_of(u2)) + (u0_first ? " 1" : " 0") + " 3000000000",
      "released 1 " + hex(u.token_of(first)) + " " + hex(u.token_of(second)) + " 4000000000",
      "round_end 5000000000",
      "counted 0 1 6000000000",
      "counted 1 0 6000000000"};
  EXPECT_EQ(m.calls, want);
}

TEST(Queues, PopOrderIsScoreThenTokenAndTokenHexOrderIsNumericOrder) {
  const auto s = scenario_from(two_lists);
  users u(s.policy, 2, 21, 22);
  queues q(s, u);
  recording_mirror m;
  q.set_mirror(&m);
  // 60 normal users over 6 distinct milliseconds: ten-way ties on every score.
  std::vector<std::uint32_t> want;
  for (int i = 0; i < 60; ++i) want.push_back(enter(s, u, q, (5 - i % 6) * 1'000'000, 1));
  std::sort(want.begin(), want.end(), [&](std::uint32_t a, std::uint32_t b) {
    if (u.score_of(a) != u.score_of(b)) return u.score_of(a) < u.score_of(b);
    return u.token_of(a) < u.token_of(b);
  });
  m.calls.clear();
  std::vector<std::uint32_t> got;
  std::uint64_t n = 0;
  while (q.size(1) > 0) n += q.pop(1, 7, 0, [&](std::uint32_t user) { got.push_back(user); });
  EXPECT_EQ(n, 60u);
  EXPECT_EQ(got, want);
  ASSERT_EQ(m.calls.size(), 9u);  // 8 releases of 7 and one of 4
  // The mirror's members in release order: within a score, byte order = numeric order.
  std::vector<std::string> members;
  for (std::uint32_t user : want) members.push_back(hex(u.token_of(user)));
  for (std::size_t k = 0; k + 1 < want.size(); ++k)
    if (u.score_of(want[k]) == u.score_of(want[k + 1])) {
      EXPECT_LT(members[k], members[k + 1]);
    }
  std::string joined;
  for (std::size_t k = 0; k < members.size(); ++k) {
    if (k % 7 == 0) joined += (k ? " 0\n" : "") + std::string("released 1");
    joined += " " + members[k];
  }
  joined += " 0";
  std::string seen;
  for (const auto& c : m.calls) seen += (seen.empty() ? "" : "\n") + c;
  EXPECT_EQ(seen, joined);
  EXPECT_EQ(q.total(), 0u);
}

TEST(Queues, RemoveAndMoveKeepSizesAndReachTheMirror) {
  const auto s = scenario_from(two_lists);
  users u(s.policy, 2, 31, 32);
  queues q(s, u);
  recording_mirror m;
  q.set_mirror(&m);
  const auto u0 = enter(s, u, q, 1 * s_ns, 1);
  const auto u1 = enter(s, u, q, 2 * s_ns, 0);
  const auto u2 = enter(s, u, q, 3 * s_ns, 1);
  m.calls.clear();
  q.remove(u2, 4 * s_ns);  // gave up
  EXPECT_FALSE(u.waiting(u2));
  EXPECT_EQ(q.sizes(), (std::vector<std::uint64_t>{1, 1}));
  EXPECT_EQ(q.total(), 2u);
  q.move(u0, 1, 0, 5 * s_ns);  // aging: up to the fast list, same score
  EXPECT_EQ(u.list_of(u0), 0u);
  EXPECT_EQ(q.sizes(), (std::vector<std::uint64_t>{2, 0}));
  EXPECT_EQ(q.total(), 2u);
  EXPECT_EQ(q.head(0), u1);  // -8000 before 1000
  EXPECT_EQ(q.rank(u0, 6 * s_ns), 1u);
  std::vector<std::uint32_t> popped;
  q.pop(0, 2, 7 * s_ns, [&](std::uint32_t user) { popped.push_back(user); });
  EXPECT_EQ(popped, (std::vector<std::uint32_t>{u1, u0}));
  const std::vector<std::string> want{
      "remove 1 " + hex(u.token_of(u2)) + " 4000000000",
      "move 1 0 " + hex(u.token_of(u0)) + " 1000 5000000000",
      "ranked 0 " + hex(u.token_of(u0)) + " 1 6000000000",
      "released 0 " + hex(u.token_of(u1)) + " " + hex(u.token_of(u0)) + " 7000000000"};
  EXPECT_EQ(m.calls, want);
}

TEST(Queues, ACreditInPlaceRescoresToTheFront) {
  const auto s = scenario_from(one_list_credit);
  users u(s.policy, 2, 41, 42);
  queues q(s, u);
  recording_mirror m;
  q.set_mirror(&m);
  enter(s, u, q, 1 * s_ns, 1);
  enter(s, u, q, 2 * s_ns, 1);
  const auto u2 = enter(s, u, q, 3 * s_ns, 1);
  EXPECT_EQ(q.rank(u2, 0), 2u);
  m.calls.clear();
  q.rescore_boosted(u2, 70 * s_ns);
  EXPECT_TRUE(u.boosted(u2));
  EXPECT_DOUBLE_EQ(u.score_of(u2), 3000.0 - 60000.0);
  EXPECT_EQ(q.head(0), u2);
  EXPECT_EQ(q.rank(u2, 71 * s_ns), 0u);
  EXPECT_EQ(q.size(0), 3u);
  EXPECT_EQ(q.total(), 3u);
  const std::vector<std::string> want{"move 0 0 " + hex(u.token_of(u2)) + " -57000 70000000000",
                                      "ranked 0 " + hex(u.token_of(u2)) + " 0 71000000000"};
  EXPECT_EQ(m.calls, want);
}

TEST(Queues, WithoutAMirrorTheSameOperationsWork) {
  const auto s = scenario_from(two_lists);
  users u(s.policy, 2, 51, 52);
  queues q(s, u);
  const auto u0 = enter(s, u, q, 1 * s_ns, 1);
  const auto u1 = enter(s, u, q, 2 * s_ns, 1);
  EXPECT_EQ(q.rank(u1, 0), 1u);
  q.move(u0, 1, 0, 0);
  q.remove(u1, 0);
  q.round_end(0);
  std::vector<std::uint32_t> popped;
  EXPECT_EQ(q.pop(0, 3, 0, [&](std::uint32_t user) { popped.push_back(user); }), 1u);
  EXPECT_EQ(popped, (std::vector<std::uint32_t>{u0}));
  EXPECT_EQ(q.total(), 0u);
}

TEST(Queues, ForEachWaitingVisitsEveryListInOrder) {
  const auto s = scenario_from(two_lists);
  users u(s.policy, 2, 61, 62);
  queues q(s, u);
  const auto a = enter(s, u, q, 5 * s_ns, 1);
  const auto b = enter(s, u, q, 3 * s_ns, 1);
  const auto c = enter(s, u, q, 9 * s_ns, 0);
  const auto d = enter(s, u, q, 8 * s_ns, 0);
  EXPECT_EQ(waiting_of(q), (std::vector<std::uint32_t>{d, c, b, a}));  // list 0, then list 1
  q.remove(c, 10 * s_ns);
  EXPECT_EQ(waiting_of(q), (std::vector<std::uint32_t>{d, b, a}));
  EXPECT_GT(q.memory_bytes(), 0u);
}

TEST(Queues, LotteryEntersAndRemovesInSetsPerClass) {
  const auto s = scenario_from(lottery());
  users u(s.policy, 2, 71, 72);
  queues q(s, u);
  recording_mirror m;
  q.set_mirror(&m);
  EXPECT_TRUE(q.lottery());
  const auto v0 = enter(s, u, q, 1 * s_ns, 0);
  const auto n0 = enter(s, u, q, 2 * s_ns, 1);
  const auto n1 = enter(s, u, q, 3 * s_ns, 1);
  const auto n2 = enter(s, u, q, 4 * s_ns, 1);
  EXPECT_EQ(q.size(0), 4u);  // everyone counts in list 0
  EXPECT_EQ(q.total(), 4u);
  EXPECT_EQ(q.set_size(0), 1u);
  EXPECT_EQ(q.set_size(1), 3u);
  EXPECT_TRUE(u.waiting(n0));
  EXPECT_EQ(u.list_of(n0), 0u);
  // Sets in class order, members in entry order.
  EXPECT_EQ(waiting_of(q), (std::vector<std::uint32_t>{v0, n0, n1, n2}));
  q.remove(n0, 5 * s_ns);  // SREM: the last member takes its place
  EXPECT_FALSE(u.waiting(n0));
  EXPECT_EQ(waiting_of(q), (std::vector<std::uint32_t>{v0, n2, n1}));
  EXPECT_EQ(q.set_size(1), 2u);
  EXPECT_EQ(q.total(), 3u);
  q.report_sizes(6 * s_ns);  // per class set, not list 0's total
  const std::vector<std::string> want{"enter 0 " + hex(u.token_of(v0)) + " 0 1000000000",
                                      "enter 1 " + hex(u.token_of(n0)) + " 0 2000000000",
                                      "enter 1 " + hex(u.token_of(n1)) + " 0 3000000000",
                                      "enter 1 " + hex(u.token_of(n2)) + " 0 4000000000",
                                      "remove 1 " + hex(u.token_of(n0)) + " 5000000000",
                                      "counted 0 1 6000000000",
                                      "counted 1 2 6000000000"};
  EXPECT_EQ(m.calls, want);
}

TEST(Queues, LotteryDrawsTheOnlyCandidateAndTheMirrorSeesIt) {
  const auto s = scenario_from(lottery());
  users u(s.policy, 2, 81, 82);
  queues q(s, u);
  recording_mirror m;
  q.set_mirror(&m);
  const auto n0 = enter(s, u, q, 1 * s_ns, 1);
  sim::rng r(5);
  m.calls.clear();
  EXPECT_EQ(q.draw(r, 2 * s_ns), n0);  // the vip set is empty: the normal class is certain
  EXPECT_FALSE(u.waiting(n0));
  EXPECT_EQ(q.total(), 0u);
  EXPECT_EQ(q.size(0), 0u);
  const auto v0 = enter(s, u, q, 3 * s_ns, 0);
  EXPECT_EQ(q.draw(r, 4 * s_ns), v0);
  const std::vector<std::string> want{"drawn 1 " + hex(u.token_of(n0)) + " 2000000000",
                                      "enter 0 " + hex(u.token_of(v0)) + " 0 3000000000",
                                      "drawn 0 " + hex(u.token_of(v0)) + " 4000000000"};
  EXPECT_EQ(m.calls, want);
}

TEST(Queues, LotteryDrawsTheMemberItsGeneratorPicks) {
  // One class waiting: the class draw is certain, then member `below(size)` of the set (its
  // entry order). The generator is copied to know the pick in advance.
  const auto s = scenario_from(lottery());
  users u(s.policy, 2, 91, 92);
  queues q(s, u);
  const std::vector<std::uint32_t> set = enter_n(s, u, q, 10, 1);
  sim::rng r(123);
  sim::rng ahead = r;
  ahead.uniform01();  // the class draw
  const auto i = ahead.below(10);
  EXPECT_EQ(q.draw(r, 20 * s_ns), set[i]);
  EXPECT_EQ(q.set_size(1), 9u);
}

TEST(Queues, LotteryDrawsMadeAheadAreTheDrawsOfOneAtATime) {
  // The release draws up to max_planned ahead (plan_draws, take_planned). Whatever the plan's
  // length, the users, their order and the mirror's calls must be those of the lottery drawn
  // one at a time: here a model of it (a class by weight x size, member below(size), swapped
  // with the last) fed by a copy of the same generator. Two classes (5 : 1), and three
  // (1 : 5 : 2) with the middle one empty; the last plan asks for more than are waiting.
  const auto three = scenario_from(R"({"name": "q",
  "classes": [{"name": "a", "share": 0.3}, {"name": "b", "share": 0.3}, {"name": "c", "share": 0.4}],
  "arrivals": {"process": "poisson", "rate_per_s": 1},
  "release": {"mode": "tick", "interval_ms": 200, "batch": 1,
              "selection": {"kind": "lottery", "class_weights": {"a": 1, "b": 5, "c": 2}}},
  "run": {"horizon_s": 10}})");
  const auto two = scenario_from(lottery());
  struct setup {
    const models::scenario* s;
    std::vector<double> weights;
    std::vector<std::uint32_t> classes;  // the classes of the 300 users, in entry order
  };
  std::vector<std::uint32_t> two_classes, three_classes;
  for (std::uint32_t i = 0; i < 300; ++i) {
    two_classes.push_back(i % 4 == 0 ? 0 : 1);    // 75 VIPs, emptied early by weight 5
    three_classes.push_back(i % 3 == 0 ? 2 : 0);  // b stays empty
  }
  for (const setup& t : {setup{&two, {5, 1}, two_classes}, setup{&three, {1, 5, 2}, three_classes}})
    for (const std::uint64_t plan :
         {std::uint64_t{1}, std::uint64_t{7}, std::uint64_t{64}, std::uint64_t{100}}) {
      const auto& s = *t.s;
      const std::size_t nc = t.weights.size();
      users u(s.policy, static_cast<std::uint32_t>(nc), 111, 112);
      queues q(s, u);
      recording_mirror m;
      q.set_mirror(&m);
      std::vector<std::vector<std::uint32_t>> model(nc);
      for (std::size_t i = 0; i < t.classes.size(); ++i)
        model[t.classes[i]].push_back(
            enter(s, u, q, static_cast<std::int64_t>(i) * s_ns, t.classes[i]));
      m.calls.clear();
      sim::rng r(2024);
      sim::rng ref = r;
      std::vector<std::uint32_t> got;
      for (std::uint64_t left = 250; left > 0;) {  // 250 of 300, in plans of `plan`
        const std::size_t k = q.plan_draws(r, std::min(plan, left), 0);
        ASSERT_EQ(k, std::min({plan, std::uint64_t{queues::max_planned}, left}));
        for (std::size_t j = 0; j < k; ++j) got.push_back(q.take_planned(500 * s_ns));
        left -= k;
      }
      EXPECT_EQ(q.total(), 50u);
      EXPECT_EQ(q.size(0), 50u);
      // Asked for more than are waiting: a plan holds the 50 left, then nothing.
      for (std::size_t k; (k = q.plan_draws(r, 1000, 0)) > 0;) {
        ASSERT_LE(k, queues::max_planned);
        for (std::size_t j = 0; j < k; ++j) got.push_back(q.take_planned(500 * s_ns));
      }
      std::vector<std::uint32_t> expected;
      std::vector<std::string> want;
      bool emptied_while_others_wait = false;
      for (int d = 0; d < 300; ++d) {
        double total = 0;
        for (std::size_t c = 0; c < nc; ++c)
          total += t.weights[c] * static_cast<double>(model[c].size());
        double x = ref.uniform01() * total;
        std::size_t c = 0, last = 0;
        for (; c < nc; ++c) {
          if (model[c].empty()) continue;
          last = c;
          const double wc = t.weights[c] * static_cast<double>(model[c].size());
          if (x < wc) break;
          x -= wc;
        }
        if (c == nc) c = last;
        const auto i = static_cast<std::size_t>(ref.below(model[c].size()));
        expected.push_back(model[c][i]);
        want.push_back("drawn " + std::to_string(c) + " " + hex(u.token_of(model[c][i])) + " " +
                       std::to_string(500 * s_ns));
        model[c][i] = model[c].back();
        model[c].pop_back();
        std::size_t waiting = 0, emptied = 0;
        for (std::size_t k = 0; k < nc; ++k) {
          waiting += model[k].size();
          emptied += model[k].empty() && std::count(t.classes.begin(), t.classes.end(), k) > 0;
        }
        if (emptied > 0 && waiting > 0) emptied_while_others_wait = true;
      }
      EXPECT_TRUE(emptied_while_others_wait) << "a class must run out while another waits";
      EXPECT_EQ(got, expected) << "plan " << plan << ", " << nc << " classes";
      EXPECT_EQ(m.calls, want) << "plan " << plan << ", " << nc << " classes";
      EXPECT_EQ(q.total(), 0u);
      EXPECT_EQ(q.size(0), 0u);
      EXPECT_EQ(r, ref) << "the generator is where one-at-a-time draws leave it";
      for (std::uint32_t user : got) EXPECT_FALSE(u.waiting(user));
    }
}

TEST(Queues, ASetChangedWhileDrawsArePendingIsAnError) {
  // The draws made ahead hold only while the sets change by them alone: an entry or a
  // removal in between would make them differ from one-at-a-time draws.
  const auto s = scenario_from(lottery());
  users u(s.policy, 2, 121, 122);
  queues q(s, u);
  const std::vector<std::uint32_t> in = enter_n(s, u, q, 10, 1);
  sim::rng r(7);
  ASSERT_EQ(q.plan_draws(r, 5, 0), 5u);
  const std::uint32_t first = q.take_planned(20 * s_ns);
  EXPECT_THROW(enter(s, u, q, 21 * s_ns, 0), std::logic_error);
  const std::uint32_t other = in[0] == first ? in[1] : in[0];
  EXPECT_THROW(q.remove(other, 21 * s_ns), std::logic_error);
  EXPECT_THROW(q.plan_draws(r, 1, 0), std::logic_error);
  for (int j = 0; j < 4; ++j) q.take_planned(22 * s_ns);
  EXPECT_THROW(q.take_planned(22 * s_ns), std::logic_error);  // none left
  EXPECT_EQ(q.total(), 5u);
  // The plan used up: the sets may change again.
  const auto still = std::find_if(in.begin(), in.end(), [&](auto w) { return u.waiting(w); });
  ASSERT_NE(still, in.end());
  q.remove(*still, 23 * s_ns);
  EXPECT_FALSE(u.waiting(*still));
  EXPECT_EQ(q.total(), 4u);
}

TEST(Queues, LotteryByWaitSkipsUsersWhoLeftWhenFindingTheOldest) {
  // Weighted by wait, a group's oldest entry bounds the acceptance step; one who gave up must
  // be passed over, and a lone member is drawn surely.
  const auto s = scenario_from(lottery(R"(, "wait_scale_s": 1)"));
  // Several generators: with a 10 s wait and wait_scale_s 1 the rejection step is taken
  // 10 times in 11, so some of these take it and some do not; all must draw the same user.
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    users u(s.policy, 2, 101, 102);
    queues q(s, u);
    const auto gone = enter(s, u, q, 0, 1);
    const auto stays = enter(s, u, q, 10 * s_ns, 1);
    q.remove(gone, 11 * s_ns);
    sim::rng r(seed);
    EXPECT_EQ(q.draw(r, 20 * s_ns), stays);
    EXPECT_EQ(q.total(), 0u);
    EXPECT_EQ(q.set_size(1), 0u);
  }
}

TEST(Queues, LotteryByWaitDrawsMadeAheadAreTheDrawsOfOneAtATime) {
  // Weighted by wait, a draw reads nothing that depends on whether earlier draws are pending
  // or taken, and a set is compacted only before a draw with none pending: plans of 1, 7 and
  // 64 draws must give the same users and leave the generator in the same state. Entries a
  // millisecond apart (narrow groups: their bounds decide) and a second apart with tau 2 s
  // (wide groups: members' entries are read), a user giving up and one entering between
  // rounds, and the sets drained far enough to be compacted.
  const auto s = scenario_from(lottery(R"(, "wait_scale_s": 2)"));
  for (const std::int64_t gap_ns : {std::int64_t{1'000'000}, std::int64_t{s_ns}}) {
    std::vector<std::vector<std::uint32_t>> drawn_by_plan;
    std::vector<sim::rng> end_state;
    for (const std::uint64_t plan : {std::uint64_t{1}, std::uint64_t{7}, std::uint64_t{64}}) {
      users u(s.policy, 2, 131, 132);
      queues q(s, u);
      std::vector<std::uint32_t> in;  // every user entered, in entry order
      constexpr std::int64_t n_users = 6400;
      for (std::int64_t i = 0; i < n_users; ++i)
        in.push_back(enter(s, u, q, i * gap_ns, i % 3 == 0 ? 0 : 1));
      std::int64_t now = n_users * gap_ns + 10 * s_ns;
      sim::rng r(77);
      std::vector<std::uint32_t> drawn;
      std::size_t longest = 0, short_plans = 0;
      for (int round = 0; q.total() > 0; ++round) {
        for (std::uint64_t left = std::min<std::uint64_t>(150, q.total()); left > 0;) {
          const std::size_t want = std::min(plan, left);
          const std::size_t k = q.plan_draws(r, want, now);
          ASSERT_GE(k, 1u);
          longest = std::max(longest, k);
          short_plans += k < want;
          for (std::size_t j = 0; j < k; ++j) {
            const std::uint32_t got = q.take_planned(now);
            EXPECT_FALSE(u.waiting(got));
            drawn.push_back(got);
          }
          left -= k;
        }
        if (round >= 30) continue;
        // The 10th oldest still waiting gives up, one enters, time goes on.
        std::size_t seen = 0;
        for (std::uint32_t user : in)
          if (u.waiting(user) && ++seen == 10) {
            q.remove(user, now);
            break;
          }
        now += gap_ns;
        in.push_back(enter(s, u, q, now, static_cast<std::uint32_t>(round % 2)));
        now += 200'000'000;
      }
      EXPECT_EQ(drawn.size(), in.size() - 30);
      if (plan == 64) {
        EXPECT_EQ(longest, 64u);
        EXPECT_GT(short_plans, 0u) << "a compaction must end some plan early";
      }
      drawn_by_plan.push_back(drawn);
      end_state.push_back(r);
    }
    for (std::size_t p = 1; p < drawn_by_plan.size(); ++p) {
      EXPECT_EQ(drawn_by_plan[p], drawn_by_plan[0]) << "plan index " << p << ", gap " << gap_ns;
      EXPECT_EQ(end_state[p], end_state[0]) << "the generator where one-at-a-time draws leave it";
    }
  }
}

TEST(Queues, LotteryByWaitDrawsInProportionToWeightTimesTauPlusWait) {
  // tau 2 s, 6,000 entries 50 ms apart: a VIP group of 1,024 slots spans about 150 s of the
  // 300 s, so a member accepted without its own wait, or a wrong envelope, moves whole
  // buckets. tau 60 s, 40,000 entries 7.5 ms apart: tau is a fifth of the longest wait, so a
  // wrong share for the uniform pick does too, and the normal class's 26 groups need a level
  // of sums above them. The same drawn 12 days after the last entry: the envelopes pass
  // 2^64 (drawn from two words of the generator), the weights nearly equal.
  expect_by_wait_proportions(2, 6000, 50, 5000);
  expect_by_wait_proportions(60, 40000, 7.5, 10000);
  expect_by_wait_proportions(60, 40000, 7.5, 10000, 12 * 86400);
}

TEST(Queues, LotteryByWaitWhereNobodyHasWaitedDrawsUniformly) {
  // With a tiny wait_scale_s a weight is almost all wait. Two users entered now and one, in
  // the same group, long before and gave up: the group's oldest entry must be read again, so
  // the envelope of the waits is 0 and the draw a uniform pick; with the gone user's entry
  // kept, nearly every candidate would be rejected, for ages. Both are drawn first about
  // equally often.
  const auto s = scenario_from(lottery(R"(, "wait_scale_s": 1e-18)"));
  const int reps = 400;
  int first_a = 0;
  for (int k = 0; k < reps; ++k) {
    const std::int64_t now = 1000 * s_ns + k;
    users u(s.policy, 2, 141, 142);
    queues q(s, u);
    const auto gone = enter(s, u, q, 333 * s_ns, 1);
    const auto a = enter(s, u, q, now, 1);
    const auto b = enter(s, u, q, now, 1);
    q.remove(gone, now);
    sim::rng r(static_cast<std::uint64_t>(k) + 1);
    const std::uint32_t first = q.draw(r, now);
    ASSERT_TRUE(first == a || first == b);
    first_a += first == a;
    EXPECT_EQ(q.draw(r, now), first == a ? b : a);
    EXPECT_EQ(q.total(), 0u);
  }
  EXPECT_NEAR(first_a, reps / 2.0, 5 * std::sqrt(reps * 0.25));  // Binomial, 5 sd
}

TEST(Queues, ALotteryByWaitDrawBeforeTheLastEntryIsAnError) {
  // Waits are unsigned in the draw: a draw dated before a member entered would wrap them.
  const auto s = scenario_from(lottery(R"(, "wait_scale_s": 2)"));
  users u(s.policy, 2, 171, 172);
  queues q(s, u);
  enter(s, u, q, 10 * s_ns, 0);
  sim::rng r(1);
  EXPECT_THROW(q.plan_draws(r, 1, 9 * s_ns), std::logic_error);
  EXPECT_EQ(q.plan_draws(r, 1, 10 * s_ns), 1u);
}

TEST(Queues, ALotteryWithoutPatienceKeepsNoSetPositions) {
  // Only a user who gives up leaves other than by a draw. Without a patience no set position
  // is kept (it would cost a write at random per draw), the draws still take everyone once,
  // and a removal is refused as a logic error rather than corrupting a set.
  for (const char* by_wait : {"", R"(, "wait_scale_s": 2)"}) {
    const auto with = scenario_from(lottery(by_wait));
    auto text = lottery(by_wait);
    for (std::size_t at;
         (at = text.find(R"(, "patience_s": {"dist": "exponential", "mean": 600})")) !=
         std::string::npos;)
      text.erase(at, std::string(R"(, "patience_s": {"dist": "exponential", "mean": 600})").size());
    const auto without = scenario_from(text);
    users u1(with.policy, 2, 161, 162), u2(without.policy, 2, 161, 162);
    queues q1(with, u1), q2(without, u2);
    std::vector<std::uint32_t> in;
    for (std::int64_t i = 0; i < 3000; ++i) {
      enter(with, u1, q1, i * 1'000'000, static_cast<std::uint32_t>(i % 2));
      in.push_back(enter(without, u2, q2, i * 1'000'000, static_cast<std::uint32_t>(i % 2)));
    }
    EXPECT_GE(q1.memory_bytes(), q2.memory_bytes() + 3000 * sizeof(std::uint32_t)) << by_wait;
    EXPECT_THROW(q2.remove(in[5], 4 * s_ns), std::logic_error);
    sim::rng r(3);
    std::vector<std::uint32_t> drawn;
    while (q2.total() > 0) drawn.push_back(q2.draw(r, 4 * s_ns));
    std::sort(drawn.begin(), drawn.end());
    std::sort(in.begin(), in.end());
    EXPECT_EQ(drawn, in) << by_wait;
  }
}

TEST(Queues, ALotteryWithCreditsIsRefusedAtLoad) {
  // A draw ignores scores, so a credit could change nothing; applied in place it would put a
  // user of a class's set into list 0's sorted set as well (found by this test's first form).
  for (const char* in_place : {"true", "false"}) {
    try {
      scenario_from(std::string(R"({"name": "q",
  "classes": [{"name": "vip", "share": 0.5}, {"name": "normal", "share": 0.5}],
  "arrivals": {"process": "poisson", "rate_per_s": 1},
  "queue": {"compensation": {"threshold_s": 60, "offset_ms": 60000, "in_place": )") +
                    in_place + R"(}},
  "release": {"mode": "tick", "interval_ms": 200, "batch": 1,
              "selection": {"kind": "lottery", "class_weights": {"vip": 5, "normal": 1}}},
  "run": {"horizon_s": 10}})");
      ADD_FAILURE() << "a lottery with credits (in_place " << in_place << ") was accepted";
    } catch (const sim::input_error& e) {
      EXPECT_NE(std::string(e.what()).find("/queue/compensation"), std::string::npos) << e.what();
    }
  }
}
