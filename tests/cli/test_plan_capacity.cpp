// `plan` past its grid: the sneaker drop (300,000 users in 2 minutes, 15% VIP, VIP p95 at
// most 60 s) fails at every rate up to 200 users/s; the plan names the binding target at each
// end of the grid, finds the least rate that meets the SLA, and a longer run at that rate and
// just below it agrees.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "support/cli_run.hpp"

namespace {

using nlohmann::json;
using waitroom::testing_support::cli_outcome;

cli_outcome run(const std::string& args) {
  return waitroom::testing_support::run_cli("cli", args);
}
const std::string sneaker = waitroom::testing_support::scenario_path("sneaker_capacity_plan.json");

// The number printed right after `prefix` in `text` (NaN when the prefix is missing).
double number_after(const std::string& text, const std::string& prefix) {
  const auto at = text.find(prefix);
  return at == std::string::npos ? std::nan("") : std::stod(text.substr(at + prefix.size()));
}

// The VIP p95 target's outcome at one rate, over `reps` replications.
json vip_p95_at(double rate, int reps) {
  const auto r =
      run(fmt::format("check {} --set /release/rate_per_s={} --set /sla/replications={} "
                      "--format json --quiet",
                      sneaker, rate, reps));
  EXPECT_TRUE(r.code == 0 || r.code == 1) << r.err;  // 1: an SLA fails
  const auto j = json::parse(r.out);
  return j["scenarios"][0]["targets"][0];
}

}  // namespace

TEST(PlanCapacity, TheSneakerDropNeedsTheLeastRateALongRunConfirms) {
  const auto r = run("plan " + sneaker + " --knob /release/rate_per_s --range 80:200:20 --quiet");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("no value of /release/rate_per_s in the range meets every SLA"),
            std::string::npos)
      << r.out;
  // The binding targets at each end: both fail at 80/s; at 200/s the VIPs' is 1.66x its limit.
  EXPECT_NE(r.out.find("lowest /release/rate_per_s = 80: vip p95_wait_s <= 1 min at 7.0"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("highest /release/rate_per_s = 200: vip p95_wait_s <= 1 min at 1.6"),
            std::string::npos)
      << r.out;
  const double least = number_after(r.out, "needs at least ");
  ASSERT_TRUE(std::isfinite(least)) << r.out;
  EXPECT_NE(r.out.find(fmt::format("users/s (every SLA holds at {}, not at {})", least, least - 1)),
            std::string::npos)
      << r.out;  // to 3 significant figures of 200: whole users a second
  const double fluid = number_after(r.out, "fluid lower bound: ");
  EXPECT_NEAR(fluid, 42750 / (174 - 0.2), 0.5);  // the VIPs alone (tests/unit/test_capacity.cpp)
  EXPECT_LE(fluid, least);
  // The simulated answer sits within 3% of the fluid bound: a 2-minute burst of 45,000 VIPs
  // leaves little room for randomness.
  EXPECT_LE(least, 1.03 * fluid);
  // A longer run (40 replications): at the answer the VIP p95's interval is under 60 s; 3%
  // below it, over.
  const json at = vip_p95_at(least, 40);
  EXPECT_TRUE(at["pass"].get<bool>()) << at.dump();
  const json short_of = vip_p95_at(std::floor(0.97 * least), 40);
  EXPECT_GT(short_of["ci"][0].get<double>(), 60) << short_of.dump();
  // The JSON says the same, with the values past the grid marked.
  const auto j = json::parse(run("plan " + sneaker +
                                 " --knob /release/rate_per_s --range 80:200:20 --quiet "
                                 "--format json")
                                 .out);
  EXPECT_EQ(j["past_grid"]["least"].get<double>(), least);
  EXPECT_EQ(j["past_grid"]["unit"], "users/s");
  EXPECT_NEAR(j["past_grid"]["fluid_lower_bound"].get<double>(), fluid, 0.5);
  std::size_t past = 0;
  for (const auto& p : j["points"]) past += p.value("past_grid", false) ? 1 : 0;
  EXPECT_EQ(past, j["past_grid"]["simulated"].get<std::size_t>());
  EXPECT_EQ(j["points"].size(), 7 + past);
}

TEST(PlanCapacity, AKnobThatIsNotCapacityOnlyNamesWhatBinds) {
  // The VIP:normal ratio cannot make 80 users/s enough: the ends are named, nothing searched.
  const auto r = run("plan " + sneaker +
                     " --set /release/selection/kind=ratio --set /release/selection/weights=[4,1]"
                     " --knob /release/selection/weights/0 --range 1:19:6 --quiet");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("lowest /release/selection/weights/0 = 1:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("highest /release/selection/weights/0 = 19:"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("past the grid"), std::string::npos) << r.out;
}
