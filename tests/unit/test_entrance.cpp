// The room's entrance by hand: arrivals at the trace's times with its classes, the backlog
// first at time 0, closing when both are in, the class mix and the SKU routing against their
// shares (binomial tolerances), and the same visitors for the same seed.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "models/events.hpp"
#include "models/room/entrance.hpp"
#include "sim/simulator.hpp"
#include "support/test_support.hpp"
#include "support/trace_file.hpp"

using namespace waitroom;
using testing_support::scenario_from;

namespace {

struct visitor {
  double t_s;
  std::uint32_t user_class;
  bool backlog;
  bool operator==(const visitor&) const = default;
};

std::ostream& operator<<(std::ostream& os, const visitor& v) {
  return os << "{" << v.t_s << " s, class " << v.user_class << (v.backlog ? ", backlog}" : "}");
}

// Two classes; `arrivals` is the scenario's arrivals block.
models::scenario two_classes(const std::string& arrivals, double vip_share = 0.5) {
  return scenario_from(R"({"name": "entrance", "classes": [{"name": "vip", "share": )" +
                           std::to_string(vip_share) + R"(}, {"name": "normal", "share": )" +
                           std::to_string(1 - vip_share) + R"(}], "arrivals": )" + arrivals +
                           R"(, "run": {"horizon_s": 1000},
    "release": {"mode": "tick", "interval_ms": 200, "batch": 1}})",
                       "/");
}

// The room's side: every visitor let in is recorded.
struct rig {
  explicit rig(const models::scenario& s, std::uint64_t seed = 1, std::uint64_t replication = 0)
      : sc(s), door(sc, sim, seed, replication) {}
  void handle(const sim::event& e) {
    const bool closed_before = door.closed();
    EXPECT_FALSE(closed_before);  // nothing arrives after the entrance closed
    if (e.kind == models::k_arrival)
      door.on_arrival(e.arg, [&](std::uint32_t c) {
        seen.push_back({sim.now().seconds(), c, false});
      });
    else if (e.kind == models::k_backlog)
      door.on_backlog([&](std::uint32_t c) { seen.push_back({sim.now().seconds(), c, true}); });
  }
  bool done() const { return false; }
  std::vector<visitor> run() {
    door.start();
    sim.run(*this, {});
    return seen;
  }

  models::scenario sc;  // the entrance keeps a reference to its routes
  sim::simulator sim;
  models::entrance door;
  std::vector<visitor> seen;
};

// |observed - expected share| within 5 binomial standard deviations.
void expect_share(std::uint64_t hits, std::uint64_t n, double p) {
  const double sd = std::sqrt(p * (1 - p) / static_cast<double>(n));
  EXPECT_NEAR(static_cast<double>(hits) / static_cast<double>(n), p, 5 * sd);
}

}  // namespace

TEST(Entrance, ATraceBringsItsVisitorsAtItsTimesThenCloses) {
  testing_support::trace_file t("entrance", "1,vip\n2.5,normal\n4,vip\n");
  rig r(two_classes(R"({"process": "trace", "trace_file": ")" + t.path.string() + R"("})"));
  EXPECT_FALSE(r.door.closed());
  EXPECT_EQ(r.run(), (std::vector<visitor>{{1, 0, false}, {2.5, 1, false}, {4, 0, false}}));
  EXPECT_TRUE(r.door.closed());
}

// The backlog comes at 0 before an arrival at 0, and the entrance stays open until both the
// backlog and the arrivals are in.
TEST(Entrance, TheBacklogComesFirstAtOpening) {
  testing_support::trace_file t("entrance", "0,normal\n");
  rig r(two_classes(R"({"process": "trace", "backlog_users": 3, "trace_file": ")" +
                    t.path.string() + R"("})"));
  const auto seen = r.run();
  ASSERT_EQ(seen.size(), 4u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(seen[static_cast<std::size_t>(i)].backlog);
    EXPECT_EQ(seen[static_cast<std::size_t>(i)].t_s, 0.0);
  }
  EXPECT_EQ(seen[3], (visitor{0, 1, false}));
  EXPECT_TRUE(r.door.closed());
}

// 100 s at 200/s: a Poisson count, every arrival inside the segment, classes by share.
TEST(Entrance, PoissonArrivalsDrawTheirClassesFromTheMix) {
  rig r(two_classes(
      R"({"process": "piecewise", "segments": [{"duration_s": 100, "rate_per_s": 200}]})", 0.2));
  const auto seen = r.run();
  const double n = static_cast<double>(seen.size());
  EXPECT_NEAR(n, 20000.0, 5 * std::sqrt(20000.0));
  std::uint64_t vip = 0;
  double last = 0;
  for (const auto& v : seen) {
    EXPECT_GE(v.t_s, last);
    EXPECT_LE(v.t_s, 100.0);
    last = v.t_s;
    vip += v.user_class == 0;
  }
  expect_share(vip, seen.size(), 0.2);
}

TEST(Entrance, TheSameSeedBringsTheSameVisitors) {
  const auto s = two_classes(R"({"process": "poisson", "rate_per_s": 5})");
  auto first = [&](std::uint64_t seed, std::uint64_t replication) {
    rig r(s, seed, replication);
    r.door.start();
    r.sim.run(r, {.horizon = sim::sim_time::from_seconds(20)});
    return r.seen;
  };
  EXPECT_EQ(first(4, 1), first(4, 1));
  EXPECT_NE(first(4, 1), first(4, 2));
  EXPECT_NE(first(4, 1), first(5, 1));
}

// Per-SKU lists behind a VIP list (the flash-sale article): a VIP always joins the VIP list; a
// normal user joins its SKU's list, drawn by the SKUs' shares.
TEST(Entrance, VisitorsAreRoutedByClassAndSku) {
  const auto s = scenario_from(R"({"name": "skus",
    "classes": [{"name": "vip", "share": 0.1}, {"name": "normal", "share": 0.9}],
    "skus": [{"name": "phone", "share": 0.7}, {"name": "watch", "share": 0.2},
             {"name": "charger", "share": 0.1}],
    "arrivals": {"process": "poisson", "rate_per_s": 1}, "run": {"horizon_s": 1000},
    "queue": {"policy": "fifo", "lists": [{"name": "vip", "classes": ["vip"]},
      {"name": "phone", "skus": ["phone"]}, {"name": "watch", "skus": ["watch"]},
      {"name": "charger", "skus": ["charger"]}]},
    "release": {"mode": "concurrency", "slots": 8, "session_s": {"dist": "deterministic", "value": 1},
                "selection": {"kind": "scheduler", "age_weight": 1, "length_weight": 0.002}}})");
  sim::simulator sim;
  models::entrance door(s, sim, 1, 0);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(door.list_for(0), 0u);
  constexpr std::uint64_t n = 100'000;
  std::vector<std::uint64_t> by_list(4, 0);
  for (std::uint64_t i = 0; i < n; ++i) ++by_list[door.list_for(1)];
  EXPECT_EQ(by_list[0], 0u);
  expect_share(by_list[1], n, 0.7);
  expect_share(by_list[2], n, 0.2);
  expect_share(by_list[3], n, 0.1);
}
