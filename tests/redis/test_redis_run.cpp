// `waitroom run SCENARIO --redis URL`: the room's own operations mirrored on a real Redis,
// for the shipped scenarios (every ordering, selection, aging, temporary VIP, lottery).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "redis_server.hpp"
#include "support/scenario_runs.hpp"

namespace {

using waitroom::testing_support::json_in;
using waitroom::testing_support::read_json;
using waitroom::testing_support::redis_server;
using waitroom::testing_support::run;
using waitroom::testing_support::shipped_scenario;

class RedisRun : public ::testing::TestWithParam<std::string> {};

TEST_P(RedisRun, ParityHoldsForTheShippedScenario) {
  redis_server s;
  auto out = s.dir() + "/result.json";
  auto r = run("run " + shipped_scenario(GetParam()) + " --redis " + s.url() + " --out " + out);
  ASSERT_EQ(r.code, 0) << r.out;
  std::ifstream f(out);
  auto j = nlohmann::json::parse(f);
  const auto& b = j["redis"];
  EXPECT_GT(b["released"].get<std::uint64_t>(), 0u);
  EXPECT_GT(b["replies_checked"].get<std::uint64_t>(), 0u);
  EXPECT_GT(b["memory"]["peak_used_bytes"].get<std::int64_t>(), 0);
  EXPECT_EQ(b["keys"], "deleted");
  // The simulation's own result is the in-memory one: the same as without --redis.
  auto plain = run("run " + shipped_scenario(GetParam()) + " --format json");
  ASSERT_EQ(plain.code, 0);
  auto p = nlohmann::json::parse(plain.out);
  j.erase("redis");
  EXPECT_EQ(j["overall"], p["overall"]);
  waitroom::redis::connection c(s.parsed_url());
  EXPECT_EQ(c.call({"DBSIZE"}).integer, 0);
}

INSTANTIATE_TEST_SUITE_P(Scenarios, RedisRun,
                         ::testing::Values("clinic", "clinic_ratio", "clinic_temp_vip",
                                           "strict_aging", "probabilistic_lists", "flash_lottery",
                                           "per_sku_flash_sale", "flash_sale_stock",
                                           "offset_vs_noise", "concert_polling"));

TEST(RedisRunErrors, OutOfMemoryExitsSixAndWritesNothing) {
  redis_server s({"--maxmemory", "3mb", "--maxmemory-policy", "noeviction"});
  auto out = s.dir() + "/never.json";
  auto r =
      run("run " + shipped_scenario("concert_presale") + " --redis " + s.url() + " --out " + out);
  EXPECT_EQ(r.code, 6) << r.out;
  EXPECT_NE(r.out.find("OOM"), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(out));
  // The keys it made are deleted even so.
  waitroom::redis::connection c(s.parsed_url());
  EXPECT_EQ(c.call({"DBSIZE"}).integer, 0);
}

TEST(RedisRunErrors, RefusedAndBadFlags) {
  redis_server s;
  auto refused =
      run("run " + shipped_scenario("clinic") + " --redis unix://" + s.dir() + "/none.sock");
  EXPECT_EQ(refused.code, 6) << refused.out;
  auto reps =
      run("run " + shipped_scenario("clinic") + " --redis " + s.url() + " --replications 3");
  EXPECT_EQ(reps.code, 2) << reps.out;
  EXPECT_NE(reps.out.find("--replications"), std::string::npos) << reps.out;
  auto missing = run("run " + shipped_scenario("clinic") + " --redis");
  EXPECT_EQ(missing.code, 2) << missing.out;
}

// Members kept in Redis (--redis-keep): every sorted set's members, from a fresh connection.
std::vector<std::string> kept_members(const redis_server& s) {
  waitroom::redis::connection c(s.parsed_url());
  std::vector<std::string> out;
  for (const auto& k : c.call({"KEYS", "*"}).elements) {
    if (c.call({"TYPE", k.str}).str != "zset") continue;
    for (const auto& m : c.call({"ZRANGE", k.str, "0", "-1"}).elements) out.push_back(m.str);
  }
  return out;
}

TEST(RedisRunTokens, SignedTokensKeepParityAndAreWhatRedisHolds) {
  redis_server s;
  // The clinic with a horizon so users are still waiting at the end, and signed tokens.
  std::ifstream in(shipped_scenario("clinic"));
  auto sc = nlohmann::json::parse(in);
  sc["redis"] = {{"tokens", "signed"}};
  sc["run"]["horizon_s"] = 600;
  std::string file = s.dir() + "/signed.json";
  std::ofstream(file) << sc.dump();
  auto out = s.dir() + "/result.json";
  auto r = run("run " + file + " --redis " + s.url() + " --redis-keep --out " + out);
  ASSERT_EQ(r.code, 0) << r.out;
  auto members = kept_members(s);
  ASSERT_FALSE(members.empty());
  for (const auto& m : members) {
    ASSERT_EQ(m.size(), 81u) << m;  // 16 hex digits, '.', a 64-digit HMAC-SHA256 tag
    EXPECT_EQ(m[16], '.') << m;
  }
  // The result echoes the key, so the run can be repeated from it.
  std::ifstream f(out);
  auto j = nlohmann::json::parse(f);
  EXPECT_EQ(j["scenario"]["redis"]["tokens"], "signed");
}

TEST(RedisRunTokens, AnUnknownTokenFormatIsRefused) {
  auto r =
      run("validate " + shipped_scenario("clinic") + " --set '/redis={\"tokens\":\"base64\"}'");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("/redis/tokens"), std::string::npos) << r.out;
}

}  // namespace
