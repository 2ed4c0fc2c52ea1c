// The tables behind the extension points (docs/ARCHITECTURE.md, "Recipes"): every kind has
// its row, the schema and the Redis chooser take their lists from the same table, and each
// arrival process answers for itself what the scenario reader and memory estimate ask.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

#include "models/analytic/queueing.hpp"
#include "models/release/selection.hpp"
#include "models/room/room.hpp"
#include "models/run/memory_estimate.hpp"
#include "models/scenario/scenario.hpp"
#include "support/test_support.hpp"
#include "support/trace_file.hpp"

using namespace waitroom;

TEST(SelectionTable, EveryKindHasItsOwnRowInTheEnumsOrder) {
  const auto& rows = models::selection_policies();
  ASSERT_EQ(rows.size(), models::all_selection_kinds.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].kind, models::all_selection_kinds[i]) << rows[i].name;
    EXPECT_EQ(models::selection_policy_of(rows[i].kind).name, rows[i].name);
    EXPECT_FALSE(rows[i].name.empty());
    for (std::size_t j = 0; j < i; ++j) EXPECT_NE(rows[j].name, rows[i].name);
    EXPECT_FALSE(rows[i].doc.empty()) << rows[i].name;
  }
}

TEST(SelectionTable, TheSchemaListsExactlyTheTablesKinds) {
  std::ifstream f(testing_support::source_path("scenarios/scenario.schema.json"));
  std::stringstream text;
  text << f.rdbuf();
  const auto schema = models::parse_json_text(text.str(), "scenario.schema.json");
  const auto& kinds = schema.at(nlohmann::json::json_pointer(
      "/properties/release/properties/selection/properties/kind/enum"));
  std::vector<std::string> in_schema = kinds.get<std::vector<std::string>>();
  EXPECT_EQ(in_schema, models::selection_policy_names());
}

TEST(SelectionTable, TheRedisChooserTakesThePoliciesThatNameAScript) {
  std::vector<std::string> chosen;
  for (const auto& p : models::selection_policies())
    if (!p.redis_choose.empty()) chosen.emplace_back(p.redis_choose);
  // The choose script (redis/scripts) implements these three; a policy that names another
  // would be sent to a script that refuses it.
  EXPECT_EQ(chosen, (std::vector<std::string>{"strict", "ratio", "probabilistic"}));
}

namespace {
models::arrival_spec poisson(double rate) {
  models::arrival_spec a;
  a.kind = models::arrival_kind::poisson;
  a.rate_per_s = rate;
  return a;
}
}  // namespace

TEST(ArrivalProcess, EachKindAnswersItsRatesAndWhetherItEnds) {
  auto p = poisson(25);
  EXPECT_TRUE(p.open_ended());
  EXPECT_TRUE(p.poisson());
  EXPECT_EQ(p.final_rate_per_s(), 25);
  EXPECT_EQ(p.max_rate_per_s(), 25);
  EXPECT_FALSE(p.none());
  EXPECT_TRUE(poisson(0).none());

  models::arrival_spec w;
  w.kind = models::arrival_kind::piecewise;
  w.segments = {{60.0, 1000.0}, {120.0, 10.0}};
  EXPECT_FALSE(w.open_ended());
  EXPECT_TRUE(w.poisson());
  EXPECT_EQ(w.max_rate_per_s(), 1000);
  EXPECT_EQ(w.final_rate_per_s(), 10);
  w.segments.back().duration_s = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(w.open_ended());

  models::arrival_spec r;
  r.kind = models::arrival_kind::renewal;
  r.interarrival_s = sim::distribution::constant(0.25);
  EXPECT_TRUE(r.open_ended());
  EXPECT_FALSE(r.poisson());
  EXPECT_EQ(r.final_rate_per_s(), 4);
  EXPECT_EQ(r.max_rate_per_s(), 4);
  EXPECT_FALSE(r.none());

  models::arrival_spec t;
  t.kind = models::arrival_kind::trace;
  EXPECT_TRUE(t.none());
  for (double s : {0.0, 0.1, 0.5, 0.9, 1.5, 3.0})
    t.trace.push_back({sim::sim_time::from_seconds(s), 0, 0});
  EXPECT_FALSE(t.open_ended());
  EXPECT_FALSE(t.poisson());
  EXPECT_EQ(t.final_rate_per_s(), 0);
  EXPECT_EQ(t.max_rate_per_s(), 4);  // 0, 0.1, 0.5, 0.9 within one second
  EXPECT_FALSE(t.none());
}

TEST(ArrivalProcess, EachKindSaysWhichClosedFormsHold) {
  EXPECT_EQ(poisson(25).steady_poisson_rate_per_s(), 25);
  EXPECT_EQ(poisson(25).renewal_interarrival_s(), nullptr);
  EXPECT_TRUE(poisson(25).classes_by_share());

  models::arrival_spec w;
  w.kind = models::arrival_kind::piecewise;
  w.segments = {{std::numeric_limits<double>::infinity(), 10.0}};
  EXPECT_FALSE(w.steady_poisson_rate_per_s());
  EXPECT_EQ(w.renewal_interarrival_s(), nullptr);

  models::arrival_spec r;
  r.kind = models::arrival_kind::renewal;
  r.interarrival_s = sim::distribution::constant(0.25);
  EXPECT_FALSE(r.steady_poisson_rate_per_s());
  ASSERT_NE(r.renewal_interarrival_s(), nullptr);
  EXPECT_EQ(r.renewal_interarrival_s()->mean(), 0.25);

  models::arrival_spec t;
  t.kind = models::arrival_kind::trace;
  EXPECT_FALSE(t.steady_poisson_rate_per_s());
  EXPECT_EQ(t.renewal_interarrival_s(), nullptr);
  EXPECT_FALSE(t.classes_by_share());  // the records name their classes
}

namespace {
struct candidate {
  double t_s, arrived;
  bool operator==(const candidate&) const = default;
};
std::vector<candidate> candidates(const models::arrival_spec& a, double horizon_s, double mu) {
  std::vector<candidate> out;
  a.peak_candidates(horizon_s, mu, [&](double t, double n) { out.push_back({t, n}); });
  return out;
}
}  // namespace

TEST(ArrivalProcess, EachKindNamesWhereTheQueueCanPeak) {
  const double inf = std::numeric_limits<double>::infinity();
  // A steady stream: only the horizon, and nothing without one.
  EXPECT_EQ(candidates(poisson(25), 100, 10), (std::vector<candidate>{{100, 2500}}));
  EXPECT_TRUE(candidates(poisson(25), inf, 10).empty());
  // Piecewise: each segment's end within the horizon.
  models::arrival_spec w;
  w.kind = models::arrival_kind::piecewise;
  w.segments = {{60.0, 1000.0}, {120.0, 10.0}};
  EXPECT_EQ(candidates(w, inf, 10), (std::vector<candidate>{{60, 60000}, {180, 61200}}));
  EXPECT_EQ(candidates(w, 100, 10), (std::vector<candidate>{{60, 60000}, {100, 60400}}));
  // A trace: each arrival up to the horizon.
  models::arrival_spec t;
  t.kind = models::arrival_kind::trace;
  for (double s : {0.5, 1.0, 3.0}) t.trace.push_back({sim::sim_time::from_seconds(s), 0, 0});
  EXPECT_EQ(candidates(t, 2, 10), (std::vector<candidate>{{0.5, 1}, {1, 2}}));
}

TEST(ArrivalProcess, EachKindWritesWhatTheReaderRead) {
  testing_support::trace_file trace("arrival-writer", "0.5,normal\n2,normal\n");
  // Each block as the writer puts it (every key, defaults included), so reading it and
  // writing it back gives the same block.
  const std::vector<std::string> blocks{
      R"({"process": "poisson", "rate_per_s": 5.0, "backlog_users": 3})",
      R"({"process": "piecewise", "segments": [{"duration_s": 60.0, "rate_per_s": 100.0},)"
      R"( {"duration_s": 10.0, "rate_per_s": 0.0}], "backlog_users": 0})",
      R"({"process": "renewal", "interarrival_s": {"dist": "erlang", "k": 3, "mean": 0.5},)"
      R"( "backlog_users": 0})",
      R"({"process": "trace", "trace_file": ")" + trace.path.string() +
          R"(", "backlog_users": 0})"};
  for (const auto& block : blocks) {
    const auto s = testing_support::scenario_from(
        R"({"name": "echo", "classes": [{"name": "normal"}], "arrivals": )" + block +
        R"(, "release": {"mode": "tick", "interval_ms": 100, "batch": 5},)"
        R"( "run": {"horizon_s": 100}})");
    EXPECT_EQ(s.arrivals.to_json(), models::parse_json_text(block, "block")) << block;
  }
}

TEST(ArrivalProcess, TheSchemaListsExactlyTheKindsNames) {
  std::ifstream f(testing_support::source_path("scenarios/scenario.schema.json"));
  std::stringstream text;
  text << f.rdbuf();
  const auto schema = models::parse_json_text(text.str(), "scenario.schema.json");
  const auto& kinds =
      schema.at(nlohmann::json::json_pointer("/properties/arrivals/properties/process/enum"));
  std::vector<std::string> names;
  for (const auto& [kind, name] : models::arrival_kind_names) names.emplace_back(name);
  EXPECT_EQ(kinds.get<std::vector<std::string>>(), names);
  // The table is in the enum's order, every kind once.
  for (std::size_t i = 0; i < models::arrival_kind_names.size(); ++i)
    EXPECT_EQ(static_cast<std::size_t>(models::arrival_kind_names[i].first), i);
}

namespace {
// A surge from 300/s to 20/s, half-life 10 s, for 60 s, released at 100 users/s.
std::string surge_scenario(const std::string& arrivals, const std::string& more = "") {
  return R"({"name": "surge", "classes": [{"name": "normal"}], "arrivals": )" + arrivals +
         R"(, "queue": {"policy": "fifo"},)"
         R"( "release": {"mode": "tick", "interval_ms": 100, "batch": 10})" +
         more + "}";
}
double surge_lambda(double base, double peak, double h, double t) {
  return base * t + (peak - base) * h / std::log(2.0) * (1.0 - std::pow(2.0, -t / h));
}
}  // namespace

TEST(ArrivalProcess, ASurgeAnswersReadsWritesBackAndRuns) {
  const auto s = testing_support::scenario_from(
      surge_scenario(R"({"process": "surge", "peak_rate_per_s": 300, "base_rate_per_s": 20,)"
                     R"( "half_life_s": 10, "duration_s": 60})"));
  EXPECT_EQ(s.arrivals.kind, models::arrival_kind::surge);
  EXPECT_FALSE(s.arrivals.open_ended());  // it stops at duration_s
  EXPECT_EQ(s.arrivals.final_rate_per_s(), 0);
  EXPECT_EQ(s.arrivals.max_rate_per_s(), 300);
  EXPECT_TRUE(s.arrivals.poisson());
  EXPECT_FALSE(s.arrivals.none());
  EXPECT_TRUE(s.arrivals.classes_by_share());
  // Poisson, but of no one rate: no M/... closed form, like piecewise.
  EXPECT_FALSE(s.arrivals.steady_poisson_rate_per_s());
  EXPECT_EQ(s.arrivals.renewal_interarrival_s(), nullptr);
  const auto closed = models::analytic_for(s);
  EXPECT_FALSE(closed.estimate);
  EXPECT_EQ(closed.reason, "arrivals are not a plain Poisson process (closed forms need one)");

  // Written back as read, and read again to the same.
  EXPECT_EQ(s.arrivals.to_json(),
            models::parse_json_text(R"({"process": "surge", "peak_rate_per_s": 300.0,)"
                                    R"( "base_rate_per_s": 20.0, "half_life_s": 10.0,)"
                                    R"( "duration_s": 60.0, "backlog_users": 0})",
                                    "block"));
  const auto again = models::parse_scenario(models::to_json(s), "echo.json", ".");
  EXPECT_EQ(models::to_json(again), models::to_json(s));

  // The memory estimate's queue peaks where the rate falls to the 100 users/s released:
  // t = 10 log2(280 / 80) = 18.07 s, where Lambda(t) - 100 t = 3,246.9 - 1,807.4 = 1,439.5
  // users wait.
  const double t_peak = 10 * std::log2(280.0 / 80.0);
  const double peak = surge_lambda(20, 300, 10, t_peak) - 100 * t_peak;
  const auto memory = models::estimate_memory(s);
  EXPECT_EQ(memory.peak_waiting, std::floor(peak));
  EXPECT_NE(memory.peak_reason.find("at 18 s"), std::string::npos) << memory.peak_reason;

  // It runs: one run's count is Poisson of mean Lambda(60) = 5,176.4, within 4 of its
  // standard deviations (288); without a horizon the room releases everyone.
  const auto r = models::run_scenario(s, 1);
  const double lambda = surge_lambda(20, 300, 10, 60);
  EXPECT_NEAR(static_cast<double>(r.overall.arrived), lambda, 4 * std::sqrt(lambda));
  EXPECT_EQ(r.overall.released, r.overall.arrived);
}

TEST(ArrivalProcess, ASurgeWithoutADurationEndsOnlyWithoutABase) {
  // No base: it ends by itself (no horizon needed) after 300 x 10 / ln 2 = 4,328 users on
  // average; one run's count within 4 standard deviations.
  const auto bounded = testing_support::scenario_from(
      surge_scenario(R"({"process": "surge", "peak_rate_per_s": 300, "half_life_s": 10})"));
  EXPECT_FALSE(bounded.arrivals.open_ended());
  EXPECT_EQ(bounded.arrivals.final_rate_per_s(), 0);
  EXPECT_EQ(bounded.arrivals.max_rate_per_s(), 300);
  EXPECT_FALSE(bounded.arrivals.to_json().contains("duration_s"));
  const double total = 300 * 10 / std::log(2.0);
  const auto r = models::run_scenario(bounded, 1);
  EXPECT_NEAR(static_cast<double>(r.overall.arrived), total, 4 * std::sqrt(total));
  // A base rate: open-ended like poisson, going on at the base.
  const auto open = testing_support::scenario_from(
      surge_scenario(R"({"process": "surge", "peak_rate_per_s": 300, "base_rate_per_s": 20,)"
                     R"( "half_life_s": 10})",
                     R"(, "run": {"horizon_s": 120})"));
  EXPECT_TRUE(open.arrivals.open_ended());
  EXPECT_EQ(open.arrivals.final_rate_per_s(), 20);
  EXPECT_EQ(open.arrivals.max_rate_per_s(), 300);
  const auto again = models::parse_scenario(models::to_json(open), "echo.json", ".");
  EXPECT_EQ(models::to_json(again), models::to_json(open));
}

// "What if F x the traffic": every kind with a rate scales it (renewal: its interarrival times
// by 1/F), and the backlog; a trace, which has no rate, says no.
TEST(ArrivalProcess, EachKindScalesItsRates) {
  auto p = poisson(25);
  p.backlog_users = 1500;
  ASSERT_TRUE(p.scale(1.4));
  EXPECT_DOUBLE_EQ(p.rate_per_s, 35);
  EXPECT_EQ(p.backlog_users, 2100u);

  models::arrival_spec w;
  w.kind = models::arrival_kind::piecewise;
  w.segments = {{60.0, 1000.0}, {120.0, 10.0}};
  ASSERT_TRUE(w.scale(2));
  EXPECT_EQ(w.max_rate_per_s(), 2000);
  EXPECT_EQ(w.final_rate_per_s(), 20);

  models::arrival_spec r;
  r.kind = models::arrival_kind::renewal;
  r.interarrival_s = sim::distribution::gamma(2.0, 0.5);  // mean 1 s: 1 a second
  ASSERT_TRUE(r.scale(4));
  EXPECT_DOUBLE_EQ(r.interarrival_s.mean(), 0.25);

  models::arrival_spec g;
  g.kind = models::arrival_kind::surge;
  g.surge = {20.0, 200.0, 5.0, 30.0};
  ASSERT_TRUE(g.scale(0.5));
  EXPECT_DOUBLE_EQ(g.surge.base_rate_per_s, 10);
  EXPECT_DOUBLE_EQ(g.max_rate_per_s(), 100);

  models::arrival_spec t;
  t.kind = models::arrival_kind::trace;
  EXPECT_FALSE(t.scale(2));
}
