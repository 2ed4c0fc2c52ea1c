// The planning logic with fake predicates: milliseconds, where the same search through the
// program simulates every probe.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "models/planning/first_guess.hpp"
#include "models/planning/grid.hpp"
#include "models/planning/pareto.hpp"
#include "models/planning/search.hpp"
#include "sim/input_error.hpp"
#include "support/test_support.hpp"

using namespace waitroom;
using namespace waitroom::models::planning;

namespace {

// SLA holds exactly on [lo, hi]; counts the calls per value.
struct fake_sla {
  std::size_t lo, hi;
  std::vector<int> calls;
  bool operator()(std::size_t i) {
    ++calls.at(i);
    return lo <= i && i <= hi;
  }
};

}  // namespace

TEST(PlanningSearch, BisectionFindsEveryFeasibleIntervalSimulatingEachValueOnce) {
  for (std::size_t n = 1; n <= 24; ++n)
    for (std::size_t lo = 0; lo < n; ++lo)
      for (std::size_t hi = lo; hi < n; ++hi)
        for (std::size_t g0 = lo; g0 <= hi; ++g0) {  // the closed form passes [g0, hi]
          std::vector<std::optional<bool>> guess(n, false);
          for (std::size_t i = g0; i <= hi; ++i) guess[i] = true;
          fake_sla sla{lo, hi, std::vector<int>(n, 0)};
          const auto out = search_feasible(guess, [&](std::size_t i) { return sla(i); });
          ASSERT_EQ(out.kind, search_kind::bisected) << n << " " << lo << " " << hi;
          EXPECT_EQ(out.left, lo);
          EXPECT_EQ(out.right, hi);
          EXPECT_EQ(*out.start, g0 + (hi - g0 + 1) / 2);  // the middle of the guessed values
          std::size_t called = 0;
          for (std::size_t i = 0; i < n; ++i) {
            EXPECT_LE(sla.calls[i], 1) << "value " << i << " simulated twice";
            EXPECT_EQ(sla.calls[i] == 1, out.ran[i]);
            called += static_cast<std::size_t>(sla.calls[i]);
          }
          EXPECT_EQ(out.simulated(), called);
          // Two bisections of at most ceil(log2 n) steps, the guess and both ends.
          EXPECT_LE(called, 2 * static_cast<std::size_t>(std::ceil(std::log2(n))) + 3);
        }
}

TEST(PlanningSearch, WithoutAGuessOrWhenItFailsItSaysSoAndLeavesTheRest) {
  fake_sla none{2, 4, std::vector<int>(8, 0)};
  auto out =
      search_feasible(std::vector<std::optional<bool>>(8), [&](std::size_t i) { return none(i); });
  EXPECT_EQ(out.kind, search_kind::no_guess);
  EXPECT_EQ(out.simulated(), 0u);
  // The closed form passes 6 and 7, the simulation only 2 to 4: the guess (7) fails.
  std::vector<std::optional<bool>> guess(8, false);
  guess[6] = guess[7] = true;
  guess[0] = std::nullopt;
  fake_sla sla{2, 4, std::vector<int>(8, 0)};
  out = search_feasible(guess, [&](std::size_t i) { return sla(i); });
  EXPECT_EQ(out.kind, search_kind::guess_fails);
  EXPECT_EQ(*out.start, 7u);
  EXPECT_EQ(out.simulated(), 1u);
  EXPECT_EQ(sla.calls[7], 1);
}

TEST(PlanningPareto, TheFrontIsThePointsNoOtherDominates) {
  // (1,5) (2,2) (3,3) (5,1) (2,2): (3,3) is dominated by (2,2); equal points both stay.
  const std::vector<std::pair<double, double>> costs{{1, 5}, {2, 2}, {3, 3}, {5, 1}, {2, 2}};
  EXPECT_EQ(pareto_front(costs, std::vector<bool>(5, true)),
            (std::vector<bool>{true, true, false, true, true}));
  // Without the two (2,2) points, (3,3) is on the front; excluded points never are.
  EXPECT_EQ(pareto_front(costs, {true, false, true, true, false}),
            (std::vector<bool>{true, false, true, true, false}));
}

TEST(PlanningPareto, TheFeasibleRangeSaysWhetherItIsContiguous) {
  auto r = find_feasible({false, true, true, false});
  EXPECT_EQ(r.count, 2u);
  EXPECT_EQ(r.first, 1u);
  EXPECT_EQ(r.last, 2u);
  EXPECT_TRUE(r.contiguous);
  r = find_feasible({true, false, true});
  EXPECT_EQ(r.count, 2u);
  EXPECT_EQ(r.last, 2u);
  EXPECT_FALSE(r.contiguous);
  EXPECT_EQ(find_feasible({false, false}).count, 0u);
}

TEST(PlanningGrid, PointsRunFirstAxisOutermostAndRangesReadExactly) {
  EXPECT_EQ(parse_range("0:0.3:0.1", "--range"), (std::vector<double>{0, 0.1, 0.2, 0.3}));
  EXPECT_EQ(parse_range("0:1", "--range").size(), 21u);  // STEP: a 20th of the range
  const std::vector<axis> axes{{"/a", {1, 2, 3}, ""}, {"/b", {10, 20}, ""}};
  EXPECT_EQ(grid_size(axes), 6u);
  EXPECT_EQ(grid_values(axes, 0), (std::vector<double>{1, 10}));
  EXPECT_EQ(grid_values(axes, 1), (std::vector<double>{1, 20}));
  EXPECT_EQ(grid_values(axes, 5), (std::vector<double>{3, 20}));
  EXPECT_EQ(json_number(4), "4");
  EXPECT_EQ(json_number(0.5), "0.5");
  EXPECT_EQ(parse_tie("30-x", "--tie")(4), 26);
  EXPECT_EQ(parse_tie("x*2", "--tie")(4), 8);
  EXPECT_EQ(parse_tie("x", "--tie")(4), 4);
  EXPECT_THROW(parse_tie("x/2", "--tie"), sim::input_error);
  EXPECT_THROW(parse_range("3:1", "--range"), sim::input_error);
  EXPECT_THROW(parse_range("0:1:0", "--range"), sim::input_error);
}

TEST(PlanningFirstGuess, TheClosedFormJudgesMeanWaitTargetsOnly) {
  // M/M/4 at 3.5/s, mean service 1 s: Erlang C gives a mean wait of 1.4757 s.
  auto j = models::read_json_file(testing_support::source_path("scenarios/mmc_validation.json"));
  auto load = [&] { return models::parse_scenario(j, "mmc", "."); };
  EXPECT_EQ(closed_form_holds(load()), true);  // max 1.6
  j["sla"]["targets"][0]["max"] = 1.4;
  EXPECT_EQ(closed_form_holds(load()), false);
  j["sla"]["targets"][0]["max"] = 1.48;
  EXPECT_EQ(closed_form_holds(load()), true);
  j["sla"]["targets"] = {{{"metric", "p99_wait_s"}, {"max", 0.001}}};  // not judged
  EXPECT_EQ(closed_form_holds(load()), std::nullopt);
  j["arrivals"]["rate_per_s"] = 4.5;  // unstable: waits grow without bound
  j["sla"]["targets"] = {{{"metric", "mean_wait_s"}, {"max", 1e9}}};
  EXPECT_EQ(closed_form_holds(load()), false);
}
