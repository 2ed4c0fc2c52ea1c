// `waitroom load` end to end against a redis-server of the test's own, and its errors.
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

using waitroom::testing_support::redis_server;
using waitroom::testing_support::run;

const std::string scenario = waitroom::testing_support::shipped_scenario("concert_polling");

TEST(RedisLoad, SendsTheScenariosCommandsAndCleansUp) {
  redis_server s;
  auto out = s.dir() + "/load.json";
  // 20k users in 6 s of simulated time at 20x: entries, polls, releases, abandonments.
  auto r = run("load " + scenario + " --redis " + s.url() +
               " --set /arrivals/segments/0/duration_s=6 --speed 20 --clients 2 --out " + out);
  ASSERT_EQ(r.code, 0) << r.out;
  std::ifstream f(out);
  auto j = nlohmann::json::parse(f);
  EXPECT_GT(j["users"].get<int>(), 19'000);
  const auto& c = j["commands"];
  EXPECT_EQ(c["ZADD"]["requested"], j["users"]);
  EXPECT_EQ(c["ZADD"]["completed"], c["ZADD"]["requested"]);
  EXPECT_GT(c["ZRANK"]["completed"].get<int>(), 0);
  EXPECT_GT(c["EVALSHA release"]["completed"].get<int>(), 0);
  EXPECT_EQ(c["ZADD"]["errors"], 0);
  EXPECT_GT(c["ZADD"]["latency_ms"]["p99"].get<double>(), 0.0);
  waitroom::redis::connection conn(s.parsed_url());
  EXPECT_EQ(conn.call({"DBSIZE"}).integer, 0);  // keys deleted at the end
}

// Redis killed mid-run and not back within --redis-retry: the load's own failure (its table
// and first error, the connection not back) is what the user reads, then that the keys could
// not be deleted; exit 6, no result file, within the budget. Before, the cleanup ran first
// and its "connection refused" was the only message.
TEST(RedisLoad, ARedisThatDiesMidRunIsReportedAsTheLoadsFailure) {
  redis_server s;
  const auto out = s.dir() + "/load.json";
  std::thread killer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    s.crash();
  });
  const auto t0 = std::chrono::steady_clock::now();
  auto r = run("load " + scenario + " --redis " + s.url() +
               " --speed 1 --duration 8 --clients 2 --redis-retry 1 --out " + out);
  const auto took = std::chrono::steady_clock::now() - t0;
  killer.join();
  EXPECT_EQ(r.code, 6) << r.out;
  EXPECT_LT(took, std::chrono::seconds(6)) << "the run went on without Redis";
  EXPECT_NE(r.out.find("commands failed; first:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("connection lost and not back after"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("EVALSHA release"), std::string::npos) << r.out;  // the load's table
  EXPECT_NE(r.out.find("could not be deleted"), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(out));
}

// Redis stopped (SIGTERM, AOF always) 1.5 s into a load and started again 500 ms later: the
// clients reconnect with bounded backoff, resend what had no reply, and the run finishes and
// reports the reconnects, the gap and the commands retried (JSON and table). On one
// connection every release is answered once: nobody handed out twice or lost.
TEST(RedisLoad, ARestartMidRunIsSurvivedAndReported) {
  for (const std::string format : {"json", "table"}) {
    redis_server s({"--appendonly", "yes", "--appendfsync", "always"});
    std::optional<waitroom::testing_support::restart_later> restart;
    std::thread stopper([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(1500));
      restart.emplace(s, std::chrono::milliseconds(500));
    });
    auto r = run("load " + scenario + " --redis " + s.url() +
                 " --speed 1 --duration 4 --clients 1 --format " + format);
    stopper.join();
    ASSERT_EQ(r.code, 0) << r.out;
    if (format == "table") {
      EXPECT_NE(r.out.find("reconnects: "), std::string::npos) << r.out;
      EXPECT_NE(r.out.find("commands retried"), std::string::npos) << r.out;
      continue;
    }
    auto j = nlohmann::json::parse(r.out);
    std::printf("load across a restart: %d reconnects, gap %.3f s, %d commands retried\n",
                j["reconnects"].get<int>(), j["gap_s"].get<double>(), j["retried"].get<int>());
    EXPECT_GE(j["reconnects"].get<int>(), 1);
    EXPECT_GT(j["gap_s"].get<double>(), 0.3);
    EXPECT_LT(j["gap_s"].get<double>(), 3.0);
    EXPECT_GE(j["retried"].get<int>(), 1);
    for (const auto& [name, c] : j["commands"].items()) {
      EXPECT_EQ(c["completed"], c["requested"]) << name;
      EXPECT_EQ(c["errors"], 0) << name;
      EXPECT_EQ(c["timeouts"], 0) << name;
    }
    EXPECT_GT(j["commands"]["EVALSHA release"]["completed"].get<int>(), 0);
    EXPECT_EQ(j["releases"]["duplicated"], 0);
    EXPECT_EQ(j["releases"]["lost"], 0);
    EXPECT_EQ(j["releases"]["handed_out"], j["releases"]["requested"]);
    EXPECT_EQ(s.dbsize(), 0);  // the restarted server's keys deleted at the end
  }
}

// Every release a load connection sends carries an id (so a resend after a reconnect is not
// taken twice), and each forgets the one --pipeline + 16 before it: the release log holds the
// last ones only.
TEST(RedisLoad, ReleasesCarryIdsAndTheLogKeepsAWindow) {
  redis_server s;
  auto r = run("load " + scenario + " --redis " + s.url() +
               " --set /arrivals/segments/0/duration_s=3 --speed asap --clients 1 --pipeline 4 "
               "--redis-keep --format json");
  ASSERT_EQ(r.code, 0) << r.out;
  auto j = nlohmann::json::parse(r.out);
  const auto releases = j["commands"]["EVALSHA release"]["completed"].get<long long>();
  ASSERT_GT(releases, 20);
  waitroom::redis::connection c(s.parsed_url());
  auto logs = c.call({"KEYS", "waitroom:*:release_log:0"});
  ASSERT_EQ(logs.elements.size(), 1u);
  const std::string log = logs.elements[0].str;
  EXPECT_EQ(c.call({"HLEN", log}).integer, 4 + 16);
  // Connection 0's ids are 1, 2, ...: the last release's is kept, the one 20 before it not.
  EXPECT_EQ(c.call({"HEXISTS", log, std::to_string(releases)}).integer, 1);
  EXPECT_EQ(c.call({"HEXISTS", log, std::to_string(releases - 20)}).integer, 0);
}

// --duration bounds the wall clock even when the clients fall behind schedule (stopping
// only when the commands' due times reach it took 8.5 s of wall for --duration 5 at 20x),
// and --speed asap, having no schedule, is never reported behind it.
TEST(RedisLoad, DurationBoundsTheWallClockAndAsapIsNeverBehind) {
  redis_server s;
  // 1000x the concert's polling stream on one connection: far more than Redis and one client
  // thread answer, so the due times run ahead of the wall clock.
  auto late = run("load " + scenario + " --redis " + s.url() +
                  " --speed 1000 --duration 1 --clients 1 --format json");
  ASSERT_EQ(late.code, 0) << late.out;
  auto j = nlohmann::json::parse(late.out);
  EXPECT_TRUE(j["stopped_by_duration"].get<bool>());
  EXPECT_TRUE(j["behind_schedule"].get<bool>());
  // What was queued when the second ended still goes out: at most 4 * 64 + 1024 commands.
  EXPECT_LT(j["wall_s"].get<double>(), 3.0) << late.out.substr(0, 400);
  auto asap = run("load " + scenario + " --redis " + s.url() +
                  " --set /arrivals/segments/0/duration_s=3 --speed asap --format json");
  ASSERT_EQ(asap.code, 0) << asap.out;
  auto k = nlohmann::json::parse(asap.out);
  EXPECT_EQ(k["speed"], "asap");
  EXPECT_FALSE(k["behind_schedule"].get<bool>());
}

TEST(RedisLoad, TheStatusCacheSavesLookups) {
  redis_server s;
  // Fixed 2 s polls (no suggested intervals) through a 10 s cache.
  std::ifstream in(scenario);
  auto sc = nlohmann::json::parse(in);
  sc["polling"].erase("suggest");
  sc["polling"]["interval_s"] = 2;
  sc["polling"]["cache_s"] = 10;
  sc["arrivals"]["segments"][0]["duration_s"] = 3;
  std::string file = s.dir() + "/fixed_polls.json";
  std::ofstream(file) << sc.dump();
  std::string base = "load " + file + " --redis " + s.url() + " --speed asap --format json";
  auto with = run(base);
  auto without = run(base + " --no-status-cache");
  ASSERT_EQ(with.code, 0) << with.out;
  ASSERT_EQ(without.code, 0) << without.out;
  auto jw = nlohmann::json::parse(with.out), jo = nlohmann::json::parse(without.out);
  // Each released user's lookup that finds it released (ZRANK, then SISMEMBER of the released
  // set) is sent with or without the cache: the lookups while waiting are the rest.
  auto told = jw["commands"]["SISMEMBER"]["requested"].get<double>();
  ASSERT_EQ(told, jo["commands"]["SISMEMBER"]["requested"].get<double>());
  auto a = jw["commands"]["ZRANK"]["requested"].get<double>() - told;
  auto b = jo["commands"]["ZRANK"]["requested"].get<double>() - told;
  auto users = jo["users"].get<double>();
  ASSERT_EQ(jw["users"], jo["users"]);
  // Polls every 2 s through a 10 s cache: a user's first poll and every fifth after it reach
  // Redis, ceil(polls / 5) of its polls; so b/5 <= a <= b/5 + users.
  EXPECT_GE(a, b / 5) << a << " vs " << b;
  EXPECT_LE(a, b / 5 + users) << a << " vs " << b;
  EXPECT_LT(a, 0.5 * b);
}

TEST(RedisLoad, ErrorsHaveTheirExitCodesAndWriteNothing) {
  redis_server s;
  auto out = s.dir() + "/never.json";
  auto refused =
      run("load " + scenario + " --redis unix://" + s.dir() + "/nobody.sock --out " + out);
  EXPECT_EQ(refused.code, 6) << refused.out;
  EXPECT_NE(refused.out.find("connection refused"), std::string::npos) << refused.out;
  auto bad = run("load " + scenario + " --redis http://x --out " + out);
  EXPECT_EQ(bad.code, 2) << bad.out;
  auto pw = run("load " + scenario + " --redis redis://u:topsecret@127.0.0.1:1 --out " + out);
  EXPECT_EQ(pw.out.find("topsecret"), std::string::npos) << pw.out;
  for (const std::string v : {"-1", "x", "nan", "inf", "1e9"}) {
    auto retry =
        run("load " + scenario + " --redis " + s.url() + " --redis-retry " + v + " --out " + out);
    EXPECT_EQ(retry.code, 2) << retry.out;
    EXPECT_NE(retry.out.find("--redis-retry: expected seconds from 0 (no reconnect) to 86400, "
                             "found '" +
                             v + "'"),
              std::string::npos)
        << retry.out;
  }
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(RedisLoad, SpeedMaxFindsTheFastestSpeedRedisKeepsUpWith) {
  redis_server s;
  auto out = s.dir() + "/search.json";
  // Short probes; a generous latency limit so the probes end on the send lag or on the cap.
  auto r = run("load " + scenario + " --redis " + s.url() +
               " --speed max --probe 0.3 --p99-limit 1000 --clients 2 --out " + out);
  ASSERT_EQ(r.code, 0) << r.out;
  std::ifstream f(out);
  auto j = nlohmann::json::parse(f);
  const auto& search = j["search"];
  ASSERT_TRUE(search["max_speed"].is_number()) << j.dump(1);
  double best = search["max_speed"];
  EXPECT_GE(best, 1.0);
  bool found = false;
  for (const auto& p : search["probes"]) {
    if (p["speed"].get<double>() == best) {
      found = true;
      EXPECT_TRUE(p["passed"].get<bool>());
    }
  }
  EXPECT_TRUE(found);
  if (search["failing_speed"].is_number()) {
    EXPECT_LE(search["failing_speed"].get<double>() / best, 1.25 + 1e-9);
  }
  waitroom::redis::connection conn(s.parsed_url());
  EXPECT_EQ(conn.call({"DBSIZE"}).integer, 0);  // every probe's keys deleted
}

TEST(RedisLoad, SpeedMaxExitsOneWhenNoSpeedKeepsUp) {
  redis_server s;
  // No command answers within a nanosecond: every probe fails down to 1/64x.
  auto r = run("load " + scenario + " --redis " + s.url() +
               " --speed max --probe 0.2 --p99-limit 0.000001 --format json");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("kept up at no speed"), std::string::npos) << r.out;
  auto flags = run("load " + scenario + " --redis " + s.url() + " --speed 2 --probe 1");
  EXPECT_EQ(flags.code, 2) << flags.out;  // --probe only with --speed max
  EXPECT_NE(flags.out.find("--probe"), std::string::npos) << flags.out;
}

TEST(RedisLoad, SignedTokensAreVerifiedBeforeEveryLookup) {
  redis_server s;
  std::ifstream in(scenario);
  auto sc = nlohmann::json::parse(in);
  sc["redis"] = {{"tokens", "signed"}};
  sc["arrivals"]["segments"][0]["duration_s"] = 3;
  std::string file = s.dir() + "/signed.json";
  std::ofstream(file) << sc.dump();
  auto r = run("load " + file + " --redis " + s.url() + " --speed asap --format json");
  ASSERT_EQ(r.code, 0) << r.out;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["tokens"], "signed");
  const auto& checks = j["token_checks"];
  EXPECT_GT(checks["lookups"].get<std::uint64_t>(), 0u);
  // Every lookup was checked, every genuine member passed and was sent.
  EXPECT_EQ(checks["lookups"], j["commands"]["ZRANK"]["requested"]);
  EXPECT_EQ(checks["rejected"], 0);
  EXPECT_EQ(j["commands"]["ZRANK"]["completed"], j["commands"]["ZRANK"]["requested"]);
  EXPECT_GT(checks["ns_per_lookup"].get<double>(), 0.0);
}

}  // namespace
