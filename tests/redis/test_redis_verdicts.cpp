// What a live run concludes, against a redis-server of the test's own: `load` exits 5 when
// Redis did not keep what the release script guarantees (a restart without persistence, a
// counter changed by another client) and says so in its table; a load against a read-only
// replica stops at its first failed command; `check --redis` measures each scenario's memory
// from its own baseline; the mirror checks the stats counters the model predicts.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <span>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "op_stream.hpp"
#include "parity_configs.hpp"
#include "redis/mirror.hpp"
#include "redis_server.hpp"
#include "support/scenario_runs.hpp"

namespace {

using namespace waitroom::redis;
using waitroom::testing_support::make_policy;
using waitroom::testing_support::read_json;
using waitroom::testing_support::redis_server;
using waitroom::testing_support::restart_later;
using waitroom::testing_support::run;
using waitroom::testing_support::run_stream;
using waitroom::testing_support::shipped_scenario;
using waitroom::testing_support::stream_config;

const std::string concert = shipped_scenario("concert_polling");

// Redis restarted without persistence 1.5 s into a load: every command still completes (the
// clients reconnect), but the room's keys start again from nothing: the released set and the
// stats counters hold fewer than the releases handed out (and over a longer run the users who
// had entered are never released: `lost`). The table always has the releases line and says
// the releases failed; the result is still written; exit 5.
TEST(RedisLoadVerdicts, ARestartWithoutPersistenceIsExitFive) {
  for (const std::string format : {"table", "json"}) {
    redis_server s;  // no AOF, no RDB: a restart starts empty
    std::optional<restart_later> restart;
    std::thread stopper([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(1500));
      restart.emplace(s, std::chrono::milliseconds(300));
    });
    const auto out = s.dir() + "/load.out";
    auto r = run("load " + concert + " --redis " + s.url() +
                 " --speed 1 --duration 3.5 --clients 1 --format " + format + " --out " + out);
    stopper.join();
    EXPECT_EQ(r.code, 5) << r.out;
    EXPECT_NE(r.out.find("waitroom: load: the released set holds"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("Redis lost or changed the room's state"), std::string::npos) << r.out;
    ASSERT_TRUE(std::filesystem::exists(out)) << r.out;
    if (format == "table") {
      std::ifstream f(out);
      const std::string table((std::istreambuf_iterator<char>(f)), {});
      EXPECT_NE(table.find("releases: 1 releaser a tick (the release script)"), std::string::npos)
          << table;
      EXPECT_NE(table.find("RELEASES FAILED: "), std::string::npos) << table;
      continue;
    }
    const auto j = read_json(out);
    const auto& rel = j["releases"];
    EXPECT_GE(j["reconnects"].get<int>(), 1);
    for (const auto& [name, c] : j["commands"].items()) EXPECT_EQ(c["errors"], 0) << name;
    EXPECT_LT(rel["released_set"].get<std::int64_t>(), rel["handed_out"].get<std::int64_t>())
        << rel.dump();
    EXPECT_LT(rel["counted"].get<std::int64_t>(), rel["handed_out"].get<std::int64_t>())
        << rel.dump();
  }
}

// The same load undisturbed: the releases line with Redis's record equal to what was handed
// out, exit 0. Then with another client adding 1000 to a counter mid-run: exit 5.
TEST(RedisLoadVerdicts, TheReleasesLineIsAlwaysThereAndACounterChangedMidRunIsExitFive) {
  redis_server s;
  const std::string base = "load " + concert + " --redis " + s.url() +
                           " --set /arrivals/segments/0/duration_s=4 --speed 4 --duration 1.5 "
                           "--clients 2 --format table";
  auto ok = run(base);
  ASSERT_EQ(ok.code, 0) << ok.out;
  const auto at = ok.out.find("releases: 1 releaser a tick (the release script): ");
  ASSERT_NE(at, std::string::npos) << ok.out;
  EXPECT_NE(ok.out.find("Redis's released set", at), std::string::npos) << ok.out;
  EXPECT_EQ(ok.out.find("RELEASES FAILED"), std::string::npos) << ok.out;

  std::thread meddler([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(700));
    connection c(s.parsed_url());
    auto stats = c.call({"KEYS", "waitroom:*:stats"});
    ASSERT_EQ(stats.elements.size(), 1u);
    c.call({"HINCRBY", stats.elements[0].str, "released:0", "1000"});
  });
  auto bad = run(base);
  meddler.join();
  EXPECT_EQ(bad.code, 5) << bad.out;
  EXPECT_NE(bad.out.find("the stats counters add up to"), std::string::npos) << bad.out;
  EXPECT_EQ(s.dbsize(), 0);
}

// A read-only replica answers every write with READONLY: the load stops at the first one,
// within seconds of a 400 s schedule (not after playing the whole schedule), exit 6, the failed
// command named, no result file. The replica's master is a port nobody serves: it stays a
// read-only replica that serves reads.
TEST(RedisLoadVerdicts, AReadOnlyReplicaStopsTheLoadAtItsFirstFailedCommand) {
  redis_server replica({"--replicaof", "127.0.0.1", "1", "--replica-read-only", "yes"});
  const auto out = replica.dir() + "/load.json";
  const auto t0 = std::chrono::steady_clock::now();
  auto r =
      run("load " + concert + " --redis " + replica.url() + " --speed 1 --clients 2 --out " + out);
  const auto took = std::chrono::steady_clock::now() - t0;
  EXPECT_EQ(r.code, 6) << r.out;
  EXPECT_LT(took, std::chrono::seconds(5)) << r.out;
  EXPECT_NE(r.out.find("READONLY"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("waitroom: load: stopped after"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("first: ZADD: READONLY"), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(out));
}

// `check A B --redis`: B's memory is measured from a baseline taken once A's keys are freed
// (UNLINK frees them in the background; a first sample of B that still held them would make
// B's peak its start and its memory read 0.0 MB).
TEST(RedisCheckMemory, EachScenarioIsMeasuredFromItsOwnBaseline) {
  redis_server s;
  const auto out = s.dir() + "/check.json";
  // Two replications each, 20 s of arrivals: the concert's 67k users, then the clinic's 2k.
  auto r = run("check " + concert + " " + shipped_scenario("clinic") +
               " --set /sla/replications=2 --set /arrivals/segments/0/duration_s=20 --quiet "
               "--redis " +
               s.url() + " --out " + out);
  ASSERT_EQ(r.code == 0 || r.code == 1, true) << r.out;
  const auto j = read_json(out);
  ASSERT_EQ(j["redis"].size(), 2u);
  const auto& a = j["redis"][0]["memory"];
  const auto& b = j["redis"][1]["memory"];
  std::printf("A: start %lld peak %lld; B: start %lld peak %lld (%.3f MB above, estimate %.3f)\n",
              a["start_used_bytes"].get<long long>(), a["peak_used_bytes"].get<long long>(),
              b["start_used_bytes"].get<long long>(), b["peak_used_bytes"].get<long long>(),
              b["peak_above_start_mb"].get<double>(),
              j["redis"][1]["memory"].value("model_estimate_mb", 0.0));
  EXPECT_GT(b["peak_used_bytes"].get<long long>(), b["start_used_bytes"].get<long long>());
  EXPECT_GT(b["peak_above_start_mb"].get<double>(), 0.0);
  // B starts from about where A started (A's keys gone), not from A's peak.
  EXPECT_LT(
      b["start_used_bytes"].get<long long>(),
      a["start_used_bytes"].get<long long>() +
          (a["peak_used_bytes"].get<long long>() - a["start_used_bytes"].get<long long>()) / 4);
}

// Another client adds 1000 to `released:0` in the stats hash mid-run: the mirror's check of
// the counters at the next round end finds it, a parity failure naming the counter. An
// undisturbed run checks the counters every round and finds them as the model's releases.
TEST(RedisMirrorCounters, ACounterChangedMidRunIsAParityFailure) {
  redis_server s;
  stream_config cfg;
  cfg.policy = make_policy(waitroom::models::ordering::offset, waitroom::models::time_unit::ms, 0);
  cfg.users = 5'000;
  {
    connection c(s.parsed_url());
    redis_mirror m(c, key_layout{new_run_id()});
    auto res = run_stream(cfg, &m);
    m.finish(res.end_ns);
    EXPECT_GE(m.stats().counter_checks, 5u);  // every round that released anyone
  }
  connection c(s.parsed_url());
  key_layout keys{new_run_id()};
  redis_mirror m(c, keys);
  struct meddling : waitroom::models::forwarding_mirror {
    connection side;
    std::string stats;
    std::uint64_t rounds = 0;
    meddling(redis_mirror& i, const redis_url& u, std::string k)
        : forwarding_mirror(i), side(u), stats(std::move(k)) {}
    void round_end(std::int64_t n) override {
      if (++rounds == 3) side.call({"HINCRBY", stats, "released:0", "1000"});
      forwarding_mirror::round_end(n);
    }
  } wrapper(m, s.parsed_url(), keys.stats());
  std::string what;
  try {
    auto res = run_stream(cfg, &wrapper);
    m.finish(res.end_ns);
  } catch (const redis_error& e) {
    EXPECT_EQ(e.kind(), error_kind::parity);
    what = e.what();
  }
  EXPECT_NE(what.find("the stats counter released:0 is"), std::string::npos) << what;
  EXPECT_NE(what.find("at 0.200000000 s"), std::string::npos) << what;  // the third round
}

// A counter the model never made (another client's field) is found by the final state check.
TEST(RedisMirrorCounters, AForeignCounterIsFoundByTheStateCheck) {
  redis_server s;
  connection c(s.parsed_url());
  key_layout keys{new_run_id()};
  redis_mirror m(c, keys);
  m.enter(0, 1, 1.0, 0);
  std::vector<std::uint64_t> one{1};
  m.released(0, one, 1);
  m.round_end(1);
  c.call({"HINCRBY", keys.stats(), "released:7", "5"});
  std::string what;
  try {
    m.finish(2);
  } catch (const redis_error& e) {
    what = e.what();
  }
  EXPECT_NE(what.find("released:7 = 5, a counter the model's releases never made"),
            std::string::npos)
      << what;
}

}  // namespace
