// `release.consumers` and `release.atomic`: K releasers racing on Redis each tick, with the
// atomic release script (nobody twice, nobody left) or the articles' ZRANGE-then-ZREM
// (users handed out twice, counted), in `run --redis` and in `load`. Without --redis the keys
// change nothing.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
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

// Two lists released 20:10 in batches of 30 a second: each list's part of a release is split
// among 8 releasers (3 or 4 members each, some releasers get 1 or none).
const std::string ratio = shipped_scenario("clinic_ratio");

nlohmann::json mirrored(const redis_server& s, const std::string& sets) {
  auto out = s.dir() + "/result.json";
  auto r = run("run " + ratio + " " + sets + " --redis " + s.url() + " --out " + out);
  EXPECT_EQ(r.code, 0) << r.out;
  if (r.code != 0) return {};
  return read_json(out);
}

nlohmann::json in_memory(const std::string& sets) {
  auto r = run("run " + ratio + " " + sets + " --format json");
  EXPECT_EQ(r.code, 0) << r.out;
  return nlohmann::json::parse(r.out);
}

TEST(RedisConsumers, TheScriptHandsOutExactlyTheModelsMembersOnce) {
  redis_server s;
  auto j = mirrored(s, "--set /release/consumers=8");
  ASSERT_TRUE(j.contains("redis"));
  const auto& b = j["redis"];
  const auto& rel = b["releasers"];
  EXPECT_EQ(rel["consumers"], 8);
  EXPECT_EQ(rel["atomic"], true);
  EXPECT_EQ(rel["duplicated"], 0);
  EXPECT_EQ(rel["lost"], 0);
  EXPECT_EQ(rel["handed_out"], b["released"]);
  EXPECT_GT(b["released"].get<std::uint64_t>(), 1000u);
  // The ratio releases one user at a time; the mirror gathers a list's consecutive ones
  // (about 20 VIPs and 10 others a round), and several releasers take part in each.
  const auto rounds = rel["rounds"].get<std::uint64_t>();
  EXPECT_LT(rounds, b["releases"].get<std::uint64_t>() / 5);
  EXPECT_GT(rel["calls"].get<std::uint64_t>(), 2 * rounds);
  EXPECT_LE(rel["calls"].get<std::uint64_t>(), 8 * rounds);
  EXPECT_EQ(rel["commands"]["EVALSHA release"], rel["calls"]);
  EXPECT_EQ(b["keys"], "deleted");
  EXPECT_EQ(s.dbsize(), 0);
  // The simulation's result is the in-memory one, which the keys do not change.
  auto plain = in_memory("");
  EXPECT_EQ(j["overall"], plain["overall"]);
  EXPECT_EQ(j["classes"], plain["classes"]);
  EXPECT_EQ(j["scenario"]["release"]["consumers"], 8);
}

TEST(RedisConsumers, ZrangeThenZremHandsUsersOutTwiceAndIsCounted) {
  redis_server s;
  auto j = mirrored(s, "--set /release/consumers=8 --set /release/atomic=false");
  ASSERT_TRUE(j.contains("redis"));
  const auto& b = j["redis"];
  const auto& rel = b["releasers"];
  EXPECT_EQ(rel["atomic"], false);
  // Over ~3,600 rounds of 8 racing releasers, some read the same head.
  EXPECT_GT(rel["duplicated"].get<std::uint64_t>(), 0u) << rel.dump();
  // Each releaser reads as many as it asks for, so every repeat leaves a model's user behind
  // (then released by the mirror: the final state check still matches the model's).
  EXPECT_EQ(rel["lost"], rel["duplicated"]);
  EXPECT_EQ(rel["handed_out"], b["released"]);
  EXPECT_GT(rel["commands"]["ZRANGE"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(rel["commands"]["ZRANGE"], rel["calls"]);
  EXPECT_EQ(rel["commands"]["ZREM"], rel["calls"]);
  EXPECT_EQ(rel["commands"].count("EVALSHA release"), 0u);
  EXPECT_EQ(s.dbsize(), 0);
  auto plain = in_memory("");
  EXPECT_EQ(j["overall"], plain["overall"]);
  // The table says so.
  auto t = run("run " + ratio + " --set /release/consumers=4 --set /release/atomic=false" +
               " --format table --redis " + s.url());
  ASSERT_EQ(t.code, 0) << t.out;
  EXPECT_NE(t.out.find("4 concurrent releasers (ZRANGE, then ZREM)"), std::string::npos) << t.out;
}

TEST(RedisConsumers, OneReleaserWithoutTheScriptDuplicatesNobody) {
  redis_server s;
  auto j = mirrored(s, "--set /release/atomic=false");
  ASSERT_TRUE(j.contains("redis"));
  const auto& rel = j["redis"]["releasers"];
  EXPECT_EQ(rel["consumers"], 1);
  EXPECT_EQ(rel["duplicated"], 0);
  EXPECT_EQ(rel["lost"], 0);
  EXPECT_EQ(rel["calls"], rel["rounds"]);
}

TEST(RedisConsumers, WithoutRedisTheKeysChangeNothing) {
  auto plain = in_memory("");
  auto racing = in_memory("--set /release/consumers=8 --set /release/atomic=false");
  EXPECT_EQ(racing["scenario"]["release"]["consumers"], 8);
  EXPECT_EQ(racing["scenario"]["release"]["atomic"], false);
  racing["scenario"]["release"].erase("consumers");
  racing["scenario"]["release"].erase("atomic");
  EXPECT_EQ(racing, plain);
  // The default run has no releasers block.
  redis_server s;
  auto j = mirrored(s, "");
  EXPECT_FALSE(j["redis"].contains("releasers"));
}

TEST(RedisConsumers, LoadSplitsEachTickAmongTheReleasers) {
  redis_server s;
  // The clinic's 1,500 users waiting at opening, 6 a tick; the first tick at 10 s (0.2 s of
  // wall time) so the entries are in Redis before anyone is released.
  std::string base = "load " + shipped_scenario("clinic") + " --redis " + s.url() +
                     " --set /release/first_tick_s=10 --set /release/consumers=4 --speed 50 " +
                     "--duration 4 --clients 4 --format json";
  auto script = run(base);
  ASSERT_EQ(script.code, 0) << script.out;
  auto a = nlohmann::json::parse(script.out);
  EXPECT_EQ(a["releases"]["consumers"], 4);
  EXPECT_EQ(a["releases"]["duplicated"], 0);
  EXPECT_GT(a["releases"]["handed_out"].get<std::uint64_t>(), 1000u);
  EXPECT_LE(a["releases"]["handed_out"], a["releases"]["requested"]);
  // 6 a tick among 4 releasers: 2, 2, 1, 1.
  EXPECT_GT(a["commands"]["EVALSHA release"]["requested"].get<std::uint64_t>(),
            3 * a["commands"]["ZADD"]["requested"].get<std::uint64_t>() / 6);
  auto racing = run(base + " --set /release/atomic=false");
  ASSERT_EQ(racing.code, 0) << racing.out;
  auto b = nlohmann::json::parse(racing.out);
  EXPECT_EQ(b["releases"]["atomic"], false);
  EXPECT_GT(b["releases"]["duplicated"].get<std::uint64_t>(), 0u) << b["releases"].dump();
  EXPECT_EQ(b["commands"].count("EVALSHA release"), 0u);
  EXPECT_GT(b["commands"]["ZRANGE+ZREM release"]["completed"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(s.dbsize(), 0);
  // Each releaser is a client of its own: fewer clients than releasers is refused.
  auto few = run("load " + shipped_scenario("clinic") + " --redis " + s.url() +
                 " --set /release/consumers=8 --clients 4");
  EXPECT_EQ(few.code, 2) << few.out;
  EXPECT_NE(few.out.find("--clients"), std::string::npos) << few.out;
}

// `run --redis` with 4 releasers and Redis stopped (SIGTERM, AOF always) 0.8 s in, started
// again 300 ms later: the CLI's connections reconnect (the mirror's and every releaser's),
// the run finishes with parity held, nobody handed out twice or lost, and says so (JSON and
// the table's line).
TEST(RedisConsumers, ARestartMidRunIsSurvivedByTheReleasers) {
  for (const std::string format : {"json", "table"}) {
    redis_server s({"--appendonly", "yes", "--appendfsync", "always"});
    std::optional<waitroom::testing_support::restart_later> restart;
    std::thread stopper([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(800));
      restart.emplace(s, std::chrono::milliseconds(300));
    });
    // Half the clinic's day (2-6 s here, with every write fsynced).
    auto r = run("run " + ratio + " --set /arrivals/segments/0/duration_s=900 " +
                 "--set /release/consumers=4 --redis " + s.url() + " --format " + format);
    stopper.join();
    ASSERT_EQ(r.code, 0) << r.out;
    if (format == "table") {
      EXPECT_NE(r.out.find("\n  reconnects: 1 ("), std::string::npos) << r.out;
      EXPECT_NE(r.out.find("; their reconnects: 4 ("), std::string::npos) << r.out;
      continue;
    }
    auto j = json_in(r.out);
    const auto& b = j["redis"];
    const auto& rel = b["releasers"];
    std::printf(
        "run across a restart, 4 releasers: mirror %d reconnect(s), gap %.3f s, %d "
        "replayed; releasers %d reconnects, %d replayed\n",
        b["reconnects"].get<int>(), b["gap_s"].get<double>(), b["replayed"].get<int>(),
        rel["reconnects"].get<int>(), rel["replayed"].get<int>());
    EXPECT_EQ(b["reconnects"], 1);
    // The mirror's connection may find the break only once the server is back (gap ~0).
    EXPECT_GT(b["gap_s"].get<double>(), 0.0);
    EXPECT_GT(rel["gap_s"].get<double>(), 0.0);
    EXPECT_EQ(rel["reconnects"], 4);
    EXPECT_EQ(rel["duplicated"], 0);
    EXPECT_EQ(rel["lost"], 0);
    EXPECT_EQ(rel["handed_out"], b["released"]);
    EXPECT_EQ(s.dbsize(), 0);
  }
}

TEST(RedisConsumers, ALotteryRefusesThem) {
  auto r = run("validate " + shipped_scenario("flash_lottery") + " --set /release/consumers=2");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("/release/consumers"), std::string::npos) << r.out;
}

}  // namespace
