// `waitroom check --redis URL` and `compare --redis URL`: replication 0 of each scenario (or
// variant) mirrored on a real Redis, the verdict and the comparison unchanged.
#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

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

const std::string variant = " --variant 15to15:/release/selection/weights=[15,15]";

TEST(RedisCheck, MirrorsReplicationZeroOfEachScenarioAndKeepsTheVerdict) {
  redis_server s;
  const std::string files =
      shipped_scenario("clinic_ratio") + " " + shipped_scenario("strict_aging");
  auto out = s.dir() + "/check.json";
  auto r = run("check " + files + " --quiet --redis " + s.url() + " --out " + out);
  ASSERT_EQ(r.code, 0) << r.out;
  auto j = read_json(out);
  ASSERT_EQ(j["redis"].size(), 2u) << j["redis"].dump();
  for (std::size_t i = 0; i < 2; ++i) {
    const auto& b = j["redis"][i];
    EXPECT_EQ(b["scenario"],
              i == 0 ? shipped_scenario("clinic_ratio") : shipped_scenario("strict_aging"));
    EXPECT_EQ(b["replication"], 0);
    EXPECT_GT(b["released"].get<std::uint64_t>(), 1000u);
    EXPECT_GE(b["replies_checked"].get<std::uint64_t>(), b["released"].get<std::uint64_t>());
    EXPECT_EQ(b["keys"], "deleted");
  }
  EXPECT_EQ(s.dbsize(), 0);
  // Everything else is what check writes without --redis.
  auto plain = s.dir() + "/plain.json";
  auto p = run("check " + files + " --quiet --out " + plain);
  ASSERT_EQ(p.code, 0) << p.out;
  j.erase("redis");
  EXPECT_EQ(j, read_json(plain));
  // The table says so too, before the verdict.
  auto t = run("check " + shipped_scenario("clinic_ratio") + " --quiet --format table --redis " +
               s.url());
  ASSERT_EQ(t.code, 0) << t.out;
  auto held = t.out.find("parity held over");
  ASSERT_NE(held, std::string::npos) << t.out;
  EXPECT_LT(held, t.out.find("all SLAs hold")) << t.out;
}

TEST(RedisCheck, AFailingSlaStillExitsOneWithTheMirrorHeld) {
  redis_server s;
  auto r = run("check " + shipped_scenario("clinic_ratio") +
               " --quiet --set /sla/targets/0/max=0.01 --format json --redis " + s.url());
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("\"replies_checked\""), std::string::npos) << r.out;
}

TEST(RedisCompare, MirrorsReplicationZeroOfEachVariant) {
  redis_server s;
  auto out = s.dir() + "/compare.json";
  auto r = run("compare " + shipped_scenario("clinic_ratio") + variant +
               " --replications 3 --redis " + s.url() + " --out " + out);
  ASSERT_EQ(r.code, 0) << r.out;
  auto j = read_json(out);
  ASSERT_EQ(j["redis"].size(), 2u);
  EXPECT_EQ(j["redis"][0]["variant"], "base");
  EXPECT_EQ(j["redis"][1]["variant"], "15to15");
  for (const auto& b : j["redis"]) {
    EXPECT_GT(b["released"].get<std::uint64_t>(), 1000u);
    EXPECT_EQ(b["keys"], "deleted");
  }
  EXPECT_EQ(s.dbsize(), 0);
  auto plain = s.dir() + "/plain.json";
  auto p = run("compare " + shipped_scenario("clinic_ratio") + variant +
               " --replications 3 --out " + plain);
  ASSERT_EQ(p.code, 0) << p.out;
  j.erase("redis");
  EXPECT_EQ(j, read_json(plain));
}

TEST(RedisCheck, RedisKeepLeavesEachScenariosKeys) {
  redis_server s;
  auto r =
      run("check " + shipped_scenario("clinic_ratio") +
          " --quiet --format json --redis-keep --redis " + s.url() + " --set /run/horizon_s=600");
  ASSERT_EQ(r.code, 0) << r.out;
  auto j = json_in(r.out);
  const std::string kept = j["redis"][0]["keys"];
  EXPECT_TRUE(kept.starts_with("waitroom:{")) << kept;
  EXPECT_GT(s.dbsize(), 0);
}

// Another client empties Redis while the mirror runs: Redis no longer answers as the model
// does (a release returns fewer members, a ZREM finds nothing), so the run stops with exit 5,
// no output file.
template <class F>
auto while_flushing(const redis_server& s, F&& f) {
  std::atomic<bool> stop{false};
  std::thread flusher([&] {
    waitroom::redis::connection c(s.parsed_url());
    while (!stop) {
      c.call({"FLUSHDB"});
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  });
  auto r = f();
  stop = true;
  flusher.join();
  return r;
}

TEST(RedisCheck, ADifferenceExitsFiveAndWritesNothing) {
  redis_server s;
  auto out = s.dir() + "/never.json";
  auto r = while_flushing(s, [&] {
    return run("check " + shipped_scenario("clinic_ratio") + " --quiet --redis " + s.url() +
               " --out " + out);
  });
  EXPECT_EQ(r.code, 5) << r.out;
  EXPECT_NE(r.out.find("parity lost"), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(RedisCompare, ADifferenceExitsFiveAndWritesNothing) {
  redis_server s;
  auto out = s.dir() + "/never.json";
  auto r = while_flushing(s, [&] {
    return run("compare " + shipped_scenario("clinic_ratio") + variant +
               " --replications 2 --redis " + s.url() + " --out " + out);
  });
  EXPECT_EQ(r.code, 5) << r.out;
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(RedisCheck, RedisErrorsExitSixAndOomDeletesTheKeys) {
  redis_server s({"--maxmemory", "3mb", "--maxmemory-policy", "noeviction"});
  auto out = s.dir() + "/never.json";
  auto oom = run("check " + shipped_scenario("concert_presale") + " --quiet --redis " + s.url() +
                 " --out " + out);
  EXPECT_EQ(oom.code, 6) << oom.out;
  EXPECT_NE(oom.out.find("OOM"), std::string::npos) << oom.out;
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_EQ(s.dbsize(), 0);
  auto refused = run("compare " + shipped_scenario("clinic_ratio") + variant + " --out " + out +
                     " --redis unix://" + s.dir() + "/none.sock");
  EXPECT_EQ(refused.code, 6) << refused.out;
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(RedisCheck, BadFlagsAreExitTwo) {
  redis_server s;
  auto shard = run("check " + shipped_scenario("clinic_ratio") + " --shard 0/2 --out " + s.dir() +
                   "/s.json --redis " + s.url());
  EXPECT_EQ(shard.code, 2) << shard.out;
  EXPECT_NE(shard.out.find("--shard"), std::string::npos) << shard.out;
  auto keep = run("compare " + shipped_scenario("clinic_ratio") + variant + " --redis-keep");
  EXPECT_EQ(keep.code, 2) << keep.out;
  EXPECT_NE(keep.out.find("--redis-keep"), std::string::npos) << keep.out;
  auto url = run("check " + shipped_scenario("clinic_ratio") + " --redis http://x");
  EXPECT_EQ(url.code, 2) << url.out;
  auto missing = run("check " + shipped_scenario("clinic_ratio") + " --redis");
  EXPECT_EQ(missing.code, 2) << missing.out;
}

}  // namespace
