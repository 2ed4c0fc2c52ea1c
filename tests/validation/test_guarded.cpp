// The guarded selection policy: strict list order, except that a list whose head has waited
// its max_head_wait_s goes first. Exact runs by hand, the equivalence with strict when no
// bound is reached, the load-time checks, and the claim against strict on the articles'
// ratio question (scenarios/clinic_ratio_plan.json), on common random numbers with 99.9% t
// intervals.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "models/room/room.hpp"
#include "sim/confidence.hpp"
#include "sim/input_error.hpp"
#include "support/test_support.hpp"
#include "support/two_lists_by_hand.hpp"

using namespace waitroom;
using testing_support::scenario_from;

namespace {

// vip and normal in their own lists, released one user a tick, arrivals replayed from
// `trace` (timestamp_s,class lines).
models::room_result run_by_hand(const std::string& trace, double tick_ms,
                                const std::string& selection) {
  return testing_support::run_two_lists_by_hand(trace, tick_ms, selection);
}

const std::string vips_then_normal = "0.0,normal\n0.5,vip\n1.5,vip\n2.5,vip\n";

}  // namespace

TEST(Guarded, ANormalHeadAtItsBoundGoesBeforeTheVipsByHand) {
  // Ticks at 1, 2, 3, 4 s. At 1 and 2 s the normal head has waited 1 and 2 s (< 3 s): the VIPs
  // of 0.5 and 1.5 s go, as under strict. At 3 s it has waited 3 s: it goes (wait 3.0), and
  // the VIP of 2.5 s goes at 4 s (wait 1.5). Strict releases it last, at 4 s (wait 4.0).
  auto r =
      run_by_hand(vips_then_normal, 1000, R"({"kind": "guarded", "max_head_wait_s": [null, 3]})");
  ASSERT_EQ(r.by_class[0].released, 3u);
  ASSERT_EQ(r.by_class[1].released, 1u);
  EXPECT_NEAR(r.by_class[1].wait_s.max(), 3.0, 1e-9);
  EXPECT_NEAR(r.by_class[0].wait_s.min(), 0.5, 1e-9);
  EXPECT_NEAR(r.by_class[0].wait_s.max(), 1.5, 1e-9);
  auto strict = run_by_hand(vips_then_normal, 1000, R"({"kind": "strict"})");
  EXPECT_NEAR(strict.by_class[1].wait_s.max(), 4.0, 1e-9);
  EXPECT_NEAR(strict.by_class[0].wait_s.max(), 0.5, 1e-9);
}

TEST(Guarded, TheHeadFurthestPastItsBoundGoesFirstByHand) {
  // One tick at 10 s. Bounds vip 9 s, normal 5 s: the VIP (came at 0.5 s) is 0.5 s past its
  // bound, the normal user (came at 0 s) 5 s past: the normal user goes first (wait 10), the
  // VIP at 20 s (wait 19.5).
  auto r = run_by_hand("0.0,normal\n0.5,vip\n", 10'000,
                       R"({"kind": "guarded", "max_head_wait_s": [9, 5]})");
  EXPECT_NEAR(r.by_class[1].wait_s.max(), 10.0, 1e-9);
  EXPECT_NEAR(r.by_class[0].wait_s.max(), 19.5, 1e-9);
  // Bound vip 9 s, normal 9.8 s: the VIP is 0.5 s past, the normal user 0.2 s: the VIP first.
  auto v = run_by_hand("0.0,normal\n0.5,vip\n", 10'000,
                       R"({"kind": "guarded", "max_head_wait_s": [9, 9.8]})");
  EXPECT_NEAR(v.by_class[0].wait_s.max(), 9.5, 1e-9);
  EXPECT_NEAR(v.by_class[1].wait_s.max(), 20.0, 1e-9);
}

namespace {

constexpr std::uint32_t replications = 10;
constexpr double level = 0.999;

std::vector<models::room_result> replicate_plan(const std::string& selection) {
  auto j = models::read_json_file(testing_support::source_path("scenarios/clinic_ratio_plan.json"));
  models::apply_override(j, "/release/selection=" + selection);
  const auto s = models::parse_scenario(j, "clinic_ratio_plan.json", WAITROOM_SOURCE_DIR);
  std::vector<models::room_result> out;
  for (std::uint32_t rep = 0; rep < replications; ++rep)
    out.push_back(models::run_scenario(s, s.seed, rep));
  return out;
}

}  // namespace

TEST(Guarded, ABoundNeverReachedReleasesExactlyAsStrict) {
  // A bound longer than the run: every pick is strict's, so every wait is the same.
  const auto strict = replicate_plan(R"({"kind":"strict"})");
  const auto guarded = replicate_plan(R"({"kind":"guarded","max_head_wait_s":[null,1e9]})");
  for (std::uint32_t i = 0; i < replications; ++i)
    for (int c = 0; c < 2; ++c) {
      EXPECT_EQ(guarded[i].by_class[c].released, strict[i].by_class[c].released) << i;
      EXPECT_EQ(guarded[i].by_class[c].wait_s.mean(), strict[i].by_class[c].wait_s.mean()) << i;
      EXPECT_EQ(guarded[i].by_class[c].wait_s.max(), strict[i].by_class[c].wait_s.max()) << i;
    }
}

TEST(Guarded, CutsTheNormalTailThatStrictLeavesLong) {
  // The articles' clinic at 30 releases a second (25 arrivals a second and a backlog of
  // 1,500): under strict the normal class's p95 wait is about 31 s; a 20 s bound on the
  // normal list's head cuts it in every pairing (the same patients), by a 99.9% interval, at
  // the price of a longer VIP mean.
  const auto strict = replicate_plan(R"({"kind":"strict"})");
  const auto guarded = replicate_plan(R"({"kind":"guarded","max_head_wait_s":[null,20]})");
  std::vector<double> p95, vip_mean;
  for (std::uint32_t i = 0; i < replications; ++i) {
    p95.push_back((guarded[i].by_class[1].wait_ns.quantile(0.95) -
                   strict[i].by_class[1].wait_ns.quantile(0.95)) *
                  1e-9);
    vip_mean.push_back(guarded[i].by_class[0].wait_s.mean() - strict[i].by_class[0].wait_s.mean());
  }
  EXPECT_LT(sim::mean_interval(p95, level).hi(), 0.0);
  EXPECT_GT(sim::mean_interval(vip_mean, level).lo(), 0.0);
}

TEST(Guarded, BadBoundsAreRefusedNamingTheKey) {
  const auto attempt = [](const std::string& selection) {
    const std::string json = R"({"name": "bad",
      "classes": [{"name": "vip", "share": 0.5}, {"name": "normal", "share": 0.5}],
      "arrivals": {"process": "poisson", "rate_per_s": 1},
      "queue": {"lists": [{"name": "vip", "classes": ["vip"]}, {"name": "normal", "classes": ["normal"]}]},
      "release": {"mode": "tick", "interval_ms": 1000, "batch": 1, "selection": )" +
                             selection + R"(}, "run": {"horizon_s": 10}})";
    try {
      scenario_from(json);
    } catch (const sim::input_error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  const auto one = attempt(R"({"kind": "guarded", "max_head_wait_s": [5]})");
  EXPECT_NE(one.find("/release/selection/max_head_wait_s"), std::string::npos) << one;
  EXPECT_NE(one.find("2 values, one per list"), std::string::npos) << one;
  const auto zero = attempt(R"({"kind": "guarded", "max_head_wait_s": [null, 0]})");
  EXPECT_NE(zero.find("/release/selection/max_head_wait_s/1"), std::string::npos) << zero;
  EXPECT_NE(zero.find("above 0"), std::string::npos) << zero;
  const auto none = attempt(R"({"kind": "guarded", "max_head_wait_s": [null, null]})");
  EXPECT_NE(none.find("at least one list"), std::string::npos) << none;
  const auto missing = attempt(R"({"kind": "guarded"})");
  EXPECT_NE(missing.find("max_head_wait_s"), std::string::npos) << missing;
}
