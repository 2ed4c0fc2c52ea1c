// run.redis_memory_mb, the model's estimate of the room's Redis memory at its peak, against
// Redis's own INFO memory through `run --redis`, and as an SLA target of `check`.
#include <cstdlib>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "models/queues/redis_memory.hpp"
#include "redis_server.hpp"
#include "support/scenario_runs.hpp"

namespace {

using waitroom::testing_support::redis_server;
namespace rm = waitroom::models::redis_memory;

using waitroom::testing_support::json_in;

// 1M-user runs (WAITROOM_MEMORY_USERS) take minutes.
auto run(const std::string& args) {
  return waitroom::testing_support::run(args, 900);
}

std::uint64_t users() {
  const char* v = std::getenv("WAITROOM_MEMORY_USERS");
  return v != nullptr ? std::strtoull(v, nullptr, 10) : 100'000;
}

// The clinic with `n` patients already waiting at opening and a 5 s horizon: the sets' peak is
// near the backlog (arrivals, 25/s, are fewer than releases, 30/s, on average).
std::string backlog_scenario(const redis_server& s, std::uint64_t n, const std::string& tokens,
                             const nlohmann::json& sla = nullptr) {
  std::ifstream in(waitroom::testing_support::shipped_scenario("clinic"));
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
    auto j = json_in(r.out);
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

// run --replications and compare report it as the other whole-room metrics: in `overall`
// only, a t interval over replications (compare: with the paired difference), the same when
// the replications are run in shards and merged.
TEST(RedisMemoryReplications, InReplicationsCompareAndMergedShards) {
  redis_server s;  // only for its temp folder
  auto file = backlog_scenario(s, 20'000, "hex");
  // Replication 0 alone (`run`): its run.redis_memory_mb.
  auto single = run("run " + file + " --format json");
  ASSERT_EQ(single.code, 0) << single.out;
  const double one = json_in(single.out)["run"]["redis_memory_mb"].get<double>();
  // Three replications: an interval around the mean, above the backlog's sorted set alone.
  auto r3 = run("run " + file + " --replications 3 --format json");
  ASSERT_EQ(r3.code, 0) << r3.out;
  auto j3 = json_in(r3.out);
  const auto& m = j3["overall"]["redis_memory_mb"];
  EXPECT_GE(m["estimate"].get<double>(), rm::zset_bytes(20'000, rm::hex_member_len) / 1e6);
  // Replication 0 is one of the three, and the others differ from it only by 5 s of arrivals
  // (~125 users beside the 20k backlog): the mean is within 1% of it.
  EXPECT_NEAR(m["estimate"].get<double>() / one, 1.0, 0.01);
  EXPECT_FALSE(j3["classes"][0].contains("redis_memory_mb"));  // whole-room: overall only
  EXPECT_LE(m["ci"][0].get<double>(), m["estimate"].get<double>());
  EXPECT_GE(m["ci"][1].get<double>(), m["estimate"].get<double>());
  // Sharded and merged: the same figure.
  std::string merge = "merge";
  for (int k = 0; k < 3; ++k) {
    auto shard = s.dir() + "/shard" + std::to_string(k) + ".json";
    auto sh =
        run("run " + file + " --replications 3 --shard " + std::to_string(k) + "/3 --out " + shard);
    ASSERT_EQ(sh.code, 0) << sh.out;
    merge += " " + shard;
  }
  auto merged = run(merge + " --format json");
  ASSERT_EQ(merged.code, 0) << merged.out;
  EXPECT_EQ(json_in(merged.out)["overall"]["redis_memory_mb"], m);
  // compare: the base, a variant with twice the backlog (more memory), paired differences.
  auto c = run("compare " + file +
               " --variant double:/arrivals/backlog_users=40000 --replications 3 --format json");
  ASSERT_EQ(c.code, 0) << c.out;
  auto jc = json_in(c.out);
  const auto& base = jc["variants"][0]["classes"][0]["redis_memory_mb"];
  const auto& twice = jc["variants"][1]["classes"][0]["redis_memory_mb"];
  EXPECT_EQ(base["estimate"], m["estimate"]);
  EXPECT_GT(
      twice["difference"]["estimate"].get<double>(),
      (rm::zset_bytes(40'000, rm::hex_member_len) - rm::zset_bytes(20'000, rm::hex_member_len)) /
          2e6);
  EXPECT_FALSE(jc["variants"][0]["classes"][1].contains("redis_memory_mb"));
  // Its table lists it with the other whole-room figures.
  auto t = run("compare " + file +
               " --variant double:/arrivals/backlog_users=40000 --replications 3 --format table");
  ASSERT_EQ(t.code, 0) << t.out;
  EXPECT_NE(t.out.find("(redis_memory_mb, everyone)"), std::string::npos) << t.out;
}

}  // namespace
