// run.redis_memory_mb, the model's estimate of the room's Redis memory at its peak, against
// Redis's own INFO memory through `run --redis`, and as an SLA target of `check`.
#include <cstdlib>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "models/queues/redis_memory.hpp"
#include "redis_server.hpp"
#include "support/run_program.hpp"

namespace {

using waitroom::testing_support::redis_server;
namespace rm = waitroom::models::redis_memory;

auto run(const std::string& args) {
  return waitroom::testing_support::run_waitroom(args, 900);
}

std::uint64_t users() {
  const char* v = std::getenv("WAITROOM_MEMORY_USERS");
  return v != nullptr ? std::strtoull(v, nullptr, 10) : 100'000;
}

// The clinic with `n` patients already waiting at opening and a 5 s horizon: the sets' peak is
// near the backlog (arrivals, 25/s, are fewer than releases, 30/s, on average).
std::string backlog_scenario(const redis_server& s, std::uint64_t n, const std::string& tokens,
                             const nlohmann::json& sla = nullptr) {
  std::ifstream in(std::string(WAITROOM_SOURCE_DIR) + "/scenarios/clinic.json");
  auto sc = nlohmann::json::parse(in);
  sc["arrivals"]["backlog_users"] = n;
  sc["run"]["horizon_s"] = 5;
  sc["redis"] = {{"tokens", tokens}};
  if (!sla.is_null()) sc["sla"] = sla;
  std::string file = s.dir() + "/backlog_" + tokens + ".json";
  std::ofstream(file) << sc.dump();
  return file;
}

class RedisMemoryRun : public ::testing::TestWithParam<std::string> {};

TEST_P(RedisMemoryRun, TheEstimateIsWithinTenPercentOfInfoMemory) {
  redis_server s;
  const std::uint64_t n = users();
  const std::string tokens = GetParam();
  auto out = s.dir() + "/result.json";
  auto r = run("run " + backlog_scenario(s, n, tokens) + " --redis " + s.url() + " --out " + out);
  ASSERT_EQ(r.code, 0) << r.out;
  std::ifstream f(out);
  auto j = nlohmann::json::parse(f);
  const double estimate = j["run"]["redis_memory_mb"].get<double>();
  const auto& mem = j["redis"]["memory"];
  EXPECT_EQ(mem["model_estimate_mb"].get<double>(), estimate);
  // Bracketed by the formula: at least the backlog's sorted set alone (its first instant), at
  // most the longest queue's sorted set plus every member released in the run.
  const std::uint64_t len = tokens == "signed" ? rm::signed_member_len : rm::hex_member_len;
  std::uint64_t released = 0;
  for (const auto& l : j["lists"]) released += l["released"].get<std::uint64_t>();
  const auto peak_queue = j["run"]["peak_queue_length"].get<std::uint64_t>();
  EXPECT_GE(estimate, rm::zset_bytes(n, len) / 1e6);
  EXPECT_LE(estimate, (rm::zset_bytes(peak_queue, len) + rm::set_bytes(released, len)) / 1e6);
  // Redis's own figure: used_memory's peak above what it used before the run's first key.
  const double live = mem["peak_above_start_mb"].get<double>();
  std::printf(
      "%s tokens, %llu waiting: estimate %.3f MB, INFO used_memory peak above start %.3f "
      "MB (ratio %.4f)\n",
      tokens.c_str(), static_cast<unsigned long long>(n), estimate, live, estimate / live);
  EXPECT_NEAR(estimate / live, 1.0, 0.10);
  EXPECT_GT(mem["start_used_bytes"].get<std::int64_t>(), 0);
}

INSTANTIATE_TEST_SUITE_P(Tokens, RedisMemoryRun, ::testing::Values("hex", "signed"));

// As an SLA target of check (with --redis: Redis's figure is reported beside it): a limit
// above the estimate holds, one below fails (exit 1), and the value checked is the estimate.
TEST(RedisMemorySla, ALimitAboveHoldsAndOneBelowFails) {
  redis_server s;
  const std::uint64_t n = 20'000;
  const double estimate = rm::zset_bytes(n, rm::hex_member_len) / 1e6;  // ~2.6 MB
  auto sla = [&](double max) {
    return nlohmann::json{{"replications", 3},
                          {"targets", {{{"metric", "redis_memory_mb"}, {"max", max}}}}};
  };
  for (const double max : {2 * estimate, estimate / 2}) {
    auto file = backlog_scenario(s, n, "hex", sla(max));
    auto r = run("check " + file + " --quiet --format json --redis " + s.url());
    ASSERT_EQ(r.code, max > estimate ? 0 : 1) << r.out;
    auto j = nlohmann::json::parse(r.out.substr(r.out.find('{')));
    const auto& outcome = j["scenarios"][0]["targets"][0];
    EXPECT_EQ(outcome["metric"], "redis_memory_mb") << outcome.dump();
    EXPECT_NEAR(outcome["estimate"].get<double>(), estimate, 0.01) << outcome.dump();
    const auto& mem = j["redis"][0]["memory"];
    EXPECT_GT(mem["peak_above_start_mb"].get<double>(), 0.0);
    // Without --redis the verdict is the same: the metric is the model's own.
    auto plain = run("check " + file + " --quiet --format json");
    EXPECT_EQ(plain.code, r.code) << plain.out;
  }
}

// plan finds the largest backlog whose sets stay under a memory limit: the estimate grows with
// the backlog, so the limit falls between the formula's sizes of two grid points.
TEST(RedisMemorySla, PlanFindsTheBacklogsThatFitALimit) {
  redis_server s;  // only for its temp folder: plan talks to no Redis
  const double limit = 5.0;
  auto file = backlog_scenario(
      s, 10'000, "hex",
      {{"replications", 2}, {"targets", {{{"metric", "redis_memory_mb"}, {"max", limit}}}}});
  // 30k waiting is under 5 MB by the formula, 40k over it (the sets of the 5 s run add little).
  ASSERT_LT(rm::zset_bytes(30'000, rm::hex_member_len) / 1e6, limit);
  ASSERT_GT(rm::zset_bytes(40'000, rm::hex_member_len) / 1e6, limit);
  auto t =
      run("plan " + file + " --knob /arrivals/backlog_users --range 10000:60000:10000 --quiet");
  ASSERT_EQ(t.code, 0) << t.out;
  EXPECT_NE(t.out.find("every SLA holds for /arrivals/backlog_users from 10000 to 30000"),
            std::string::npos)
      << t.out;
}

}  // namespace
