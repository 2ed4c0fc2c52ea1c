// Load mode's command stream (redis/load_stream): the room's own commands and every user's
// status lookups as the polling model schedules them. Counted against the in-memory run of
// the same scenario and seed, then sent to a redis-server of the test's own.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "models/queues/queue_mirror.hpp"
#include "models/room/room.hpp"
#include "models/scenario/scenario.hpp"
#include "redis/keys.hpp"
#include "redis/load.hpp"
#include "redis/load_stream.hpp"
#include "redis_server.hpp"
#include "sim/random.hpp"
#include "support/scenario_runs.hpp"

namespace {

using nlohmann::json;
using waitroom::testing_support::redis_server;
namespace redis = waitroom::redis;
namespace models = waitroom::models;

json shipped(const std::string& name) {
  return models::read_json_file(waitroom::testing_support::shipped_scenario(name));
}
models::scenario parse(const json& j) {
  return models::parse_scenario(j, "test.json", ".");
}

// A release as the stream sends it, or as the room made it (gathered per list and time).
using release_key = std::tuple<std::int64_t, std::uint32_t>;  // time, list

struct drained {
  std::uint64_t ops = 0;
  std::uint64_t by_type[redis::t_count] = {};
  std::uint64_t released = 0;                     // members of every release script call
  std::map<release_key, std::uint64_t> releases;  // members per (time, list)
  std::uint64_t digest = 0;                       // of every command, in order
  bool in_time_order = true;
  std::uint64_t users = 0;
};

drained drain(const models::scenario& sc, bool status_cache) {
  drained d;
  redis::load_stream s(sc, redis::key_layout{"t"}, status_cache, nullptr);
  redis::stream_op op;
  std::int64_t last = INT64_MIN;
  while (s.next(op)) {
    ++d.ops;
    ++d.by_type[op.type];
    if (op.at_ns < last) d.in_time_order = false;
    last = op.at_ns;
    d.digest = waitroom::sim::mix64(d.digest ^ static_cast<std::uint64_t>(op.at_ns) ^ op.route);
    for (const auto& a : op.args)
      d.digest = waitroom::sim::mix64(d.digest ^ std::hash<std::string>{}(a));
    if (op.type == redis::t_release) {
      const std::uint64_t n = std::stoull(op.args[7]);
      const auto list = static_cast<std::uint32_t>(std::stoul(op.args[8].substr(9)));
      d.released += n;
      d.releases[{op.at_ns, list}] += n;
    }
  }
  d.users = s.users();
  return d;
}

// The room's own releases, per list and time, from a mirror on an in-memory run.
struct release_recorder final : models::queue_mirror {
  std::map<release_key, std::uint64_t> releases;
  std::uint64_t entered = 0, removed = 0, moved = 0, draws = 0;
  void enter(std::uint32_t, std::uint64_t, double, std::int64_t) override { ++entered; }
  void remove(std::uint32_t, std::uint64_t, std::int64_t) override { ++removed; }
  void move(std::uint32_t, std::uint32_t, std::uint64_t, double, std::int64_t) override { ++moved; }
  void released(std::uint32_t list, std::span<const std::uint64_t> t, std::int64_t now) override {
    releases[{now, list}] += t.size();
  }
  void drawn(std::uint32_t, std::uint64_t, std::int64_t) override { ++draws; }
  void ranked(std::uint32_t, std::uint64_t, std::uint64_t, std::int64_t) override {}
  void counted(std::uint32_t, std::uint64_t, std::int64_t) override {}
  void round_end(std::int64_t) override {}
};

struct model_run {
  models::room_result result;
  release_recorder ops;
};
model_run run_model(const models::scenario& sc) {
  model_run m;
  models::room rm(sc, sc.seed, 0);
  rm.set_mirror(&m.ops);
  m.result = rm.run();
  return m;
}

// The polling block's count of one command, with or without the status cache.
std::uint64_t model_commands(const models::polling_result& p, bool cache, const std::string& name) {
  for (const auto& [k, v] : p.commands(cache))
    if (k == name) {
      std::uint64_t n = 0;
      for (auto x : v) n += x;
      return n;
    }
  return 0;
}

void expect_lookups_as_the_model(const json& j) {
  const auto sc = parse(j);
  const bool lottery = sc.release.selection.kind == models::selection_kind::lottery;
  // The in-memory run as `waitroom run` makes it (followed users on).
  const auto model = models::run_scenario(sc, sc.seed);
  ASSERT_TRUE(model.polling.has_value());
  for (bool cache : {true, false}) {
    SCOPED_TRACE(cache ? "with the status cache" : "without the status cache");
    const auto d = drain(sc, cache);
    const auto& p = *model.polling;
    EXPECT_TRUE(d.in_time_order);
    if (lottery) {  // membership and set size stand in for rank and length
      EXPECT_GT(d.by_type[redis::t_sismember], 1000u);
      EXPECT_EQ(d.by_type[redis::t_sismember], model_commands(p, cache, "SISMEMBER"));
      EXPECT_EQ(d.by_type[redis::t_scard], model_commands(p, cache, "SCARD"));
      EXPECT_EQ(d.by_type[redis::t_sadd], model_commands(p, cache, "SADD"));
      EXPECT_EQ(d.by_type[redis::t_srem], model_commands(p, cache, "SREM"));
      EXPECT_EQ(d.by_type[redis::t_zrank], 0u);
      continue;
    }
    EXPECT_GT(d.by_type[redis::t_zrank], 1000u);
    EXPECT_EQ(d.by_type[redis::t_zrank], model_commands(p, cache, "ZRANK"));
    EXPECT_EQ(d.by_type[redis::t_zcard], model_commands(p, cache, "ZCARD"));
    EXPECT_EQ(d.by_type[redis::t_sismember], model_commands(p, cache, "SISMEMBER"));
    EXPECT_EQ(d.by_type[redis::t_zadd], model_commands(p, cache, "ZADD"));
    EXPECT_EQ(d.by_type[redis::t_zrem], model_commands(p, cache, "ZREM"));
  }
}

// Fixed 2 s polls through a 10 s cache, each user's first poll at a phase of its own.
TEST(LoadStream, LookupsEqualTheModelsCountWithAFixedInterval) {
  json j = shipped("concert_polling");
  j["polling"].erase("suggest");
  j["polling"]["interval_s"] = 2;
  j["polling"]["start_jitter_s"] = 1.5;
  j["arrivals"]["segments"][0]["duration_s"] = 8;
  expect_lookups_as_the_model(j);
}

// The server's suggested interval (5 s, 2 s above 5,000 waiting) refreshed every second from
// the queue length; the cached answer carries the old suggestion.
TEST(LoadStream, LookupsEqualTheModelsCountWithSuggestedIntervals) {
  json j = shipped("concert_polling");
  j["arrivals"]["segments"][0]["duration_s"] = 12;
  j["polling"]["suggest_every_s"] = 3;
  expect_lookups_as_the_model(j);
}

// A lottery's page: the lookup asks whether the user is still in its class's set.
TEST(LoadStream, LotteryLookupsEqualTheModelsCount) {
  json j = shipped("flash_lottery");
  j["arrivals"]["segments"][0]["duration_s"] = 3;
  j["polling"] = shipped("concert_polling")["polling"];
  for (auto& c : j["classes"]) c["patience_s"] = {{"dist", "exponential"}, {"mean", 60}};
  expect_lookups_as_the_model(j);
}

// Ratio 1:4 over two lists: the release script is sent per list with the room's count each
// tick (strict priority would empty the vip list first).
TEST(LoadStream, RatioReleasesAreTheRoomsPerListAndTick) {
  const auto sc = parse(shipped("sneaker_redis_ratio"));
  const auto model = run_model(sc);
  const auto d = drain(sc, true);
  EXPECT_TRUE(d.in_time_order);
  EXPECT_EQ(d.releases, model.ops.releases);
  std::uint64_t both = 0;  // ticks that released from both lists
  std::map<std::int64_t, int> lists_at;
  for (const auto& [k, n] : d.releases) ++lists_at[std::get<0>(k)];
  for (const auto& [t, n] : lists_at) both += n == 2;
  EXPECT_GT(both, 100u);
  EXPECT_EQ(d.by_type[redis::t_zadd], model.ops.entered);
  EXPECT_EQ(d.by_type[redis::t_zrem], model.ops.removed);
  EXPECT_EQ(d.released, model.result.by_list[0].released + model.result.by_list[1].released);
}

TEST(LoadStream, SameSeedSameStreamAnotherSeedAnother) {
  json j = shipped("concert_polling");
  j["arrivals"]["segments"][0]["duration_s"] = 4;
  const auto a = drain(parse(j), true), b = drain(parse(j), true);
  EXPECT_EQ(a.digest, b.digest);
  EXPECT_EQ(a.ops, b.ops);
  j["seed"] = 7;
  EXPECT_NE(drain(parse(j), true).digest, a.digest);
}

// Arrivals for a million seconds: the consumer takes a few commands and goes (--duration);
// the producer stops at its next hand-over (no hang, no thread left).
TEST(LoadStream, StopsPromptlyWhenTheConsumerGoes) {
  json j = shipped("concert_polling");
  j["arrivals"] = {{"process", "poisson"}, {"rate_per_s", 500}};
  j["run"]["horizon_s"] = 1e6;
  const auto sc = parse(j);
  const auto t0 = std::chrono::steady_clock::now();
  for (int k = 0; k < 3; ++k) {
    redis::load_stream s(sc, redis::key_layout{"t"}, true, nullptr);
    redis::stream_op op;
    for (int i = 0; i < 10'000; ++i) ASSERT_TRUE(s.next(op));
    EXPECT_GT(s.users(), 0u);
  }
  { redis::load_stream never_started(sc, redis::key_layout{"t"}, true, nullptr); }
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(20));
}

// Nobody ever queues (a free slot for everyone): the room makes no commands, so there is no
// hand-over to stop at; stop() from another thread still ends it (the room's sampler looks),
// and the consumer waiting in next() sees the end of the stream.
TEST(LoadStream, StopsARoomThatMakesNoCommands) {
  json j = shipped("mmc_validation");
  j["release"]["slots"] = 1'000'000;
  j["arrivals"]["rate_per_s"] = 1000;
  j["run"]["horizon_s"] = 1e6;  // a billion arrivals: minutes to simulate
  redis::load_stream s(parse(j), redis::key_layout{"t"}, true, nullptr);
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    s.stop();
  });
  const auto t0 = std::chrono::steady_clock::now();
  redis::stream_op op;
  EXPECT_FALSE(s.next(op));
  stopper.join();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));
}

// A room that cannot drain (no horizon, a release that never runs) stops with the model's
// error, which reaches the consumer after the commands made before it.
TEST(LoadStream, TheRoomsErrorReachesTheConsumer) {
  json j = shipped("sneaker_redis_ratio");
  // From 700 s list 1 has weight 0: its users wait for ever (a stall the room finds at run
  // time).
  j["release"]["selection"] = {{"kind", "ratio"},
                               {"weights", {1, 4}},
                               {"work_conserving", false},
                               {"schedule", {{{"at_s", 700}, {"weights", {1, 0}}}}}};
  for (auto& c : j["classes"]) c.erase("patience_s");  // nobody leaves list 1 by giving up
  const auto sc = parse(j);
  redis::load_stream s(sc, redis::key_layout{"t"}, true, nullptr);
  redis::stream_op op;
  std::uint64_t n = 0;
  EXPECT_THROW(
      {
        while (s.next(op)) ++n;
      },
      models::stall_error);
  EXPECT_GT(n, 0u);
}

// The same stall through `waitroom load`: the room's message, exit 2, no output file, and
// the keys the commands before it made are deleted.
TEST(LoadStreamRedis, AStallingRoomExitsTwoWithNothingWritten) {
  redis_server s;
  json j = shipped("sneaker_redis_ratio");
  j["release"]["selection"] = {{"kind", "ratio"},
                               {"weights", {1, 4}},
                               {"work_conserving", false},
                               {"schedule", {{{"at_s", 700}, {"weights", {1, 0}}}}}};
  for (auto& c : j["classes"]) c.erase("patience_s");
  const std::string file = s.dir() + "/stall.json", out = s.dir() + "/out.json";
  std::ofstream(file) << j.dump();
  auto r = waitroom::testing_support::run("load " + file + " --redis " + s.url() +
                                          " --speed asap --out " + out);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("ratio weight 0"), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(out));
  redis::connection c(s.parsed_url());
  EXPECT_EQ(c.call({"DBSIZE"}).integer, 0);
}

// Through the program: `waitroom load` sends, per type, the commands `waitroom run` counts in
// its polling block (same scenario, same seed), with and without the status cache. The
// release script is the exception: the block counts one per tick, load one per list
// released from.
TEST(LoadStreamRedis, LoadSendsTheCommandsOfRunsPollingBlock) {
  redis_server s;
  const std::string sc = waitroom::testing_support::shipped_scenario("concert_polling");
  const std::string set = " --set /arrivals/segments/0/duration_s=4 --set /seed=99";
  const std::string out = s.dir() + "/run.json";
  auto r = waitroom::testing_support::run("run " + sc + set + " --format json --out " + out);
  ASSERT_EQ(r.code, 0) << r.out;
  const json polling = waitroom::testing_support::read_json(out)["polling"];
  for (const char* block : {"commands", "commands_without_cache"}) {
    SCOPED_TRACE(block);
    const bool cache = std::string(block) == "commands";
    auto l = waitroom::testing_support::run("load " + sc + set + " --redis " + s.url() +
                                            " --speed asap --format json" +
                                            (cache ? "" : " --no-status-cache"));
    ASSERT_EQ(l.code, 0) << l.out;
    const json sent = waitroom::testing_support::json_in(l.out)["commands"];
    for (const char* type : {"ZADD", "ZREM", "ZRANK", "ZCARD", "SISMEMBER"})
      EXPECT_EQ(sent[type]["requested"], polling[block][type]) << type;
    EXPECT_GT(sent["ZRANK"]["requested"].get<std::uint64_t>(), 10'000u);
  }
}

// --- Against Redis: one connection (in order), the whole stream, then Redis's state. ---

struct loaded {
  redis::load_result result;
  std::uint64_t waiting = 0;   // members left in the lists / sets
  std::uint64_t released = 0;  // SCARD of the released set
  std::map<std::string, std::uint64_t> stats;
};

loaded load_on(redis_server& s, const models::scenario& sc, std::size_t sets, bool lottery) {
  loaded out;
  redis::key_layout keys{redis::new_run_id()};
  redis::load_options o;
  o.max_speed = true;
  o.clients = 1;
  out.result = redis::run_load(sc, s.parsed_url(), keys, o);
  redis::connection c(s.parsed_url());
  for (std::uint32_t l = 0; l < sets; ++l)
    out.waiting += static_cast<std::uint64_t>(lottery ? c.call({"SCARD", keys.lottery(l)}).integer
                                                      : c.call({"ZCARD", keys.list(l)}).integer);
  out.released = static_cast<std::uint64_t>(c.call({"SCARD", keys.released()}).integer);
  auto h = c.call({"HGETALL", keys.stats()});
  for (std::size_t i = 0; i + 1 < h.elements.size(); i += 2)
    out.stats[h.elements[i].str] = std::stoull(h.elements[i + 1].str);
  redis::delete_keys(c, keys);
  return out;
}

std::uint64_t requested(const redis::load_result& r, const std::string& type) {
  auto it = r.commands.find(type);
  if (it == r.commands.end()) return 0;
  EXPECT_EQ(it->second.errors, 0u) << type;
  EXPECT_EQ(it->second.completed, it->second.requested) << type;
  return it->second.requested;
}

TEST(LoadStreamRedis, RatioLeavesRedisAsTheModel) {
  redis_server s;
  const auto sc = parse(shipped("sneaker_redis_ratio"));
  const auto model = run_model(sc);
  const auto l = load_on(s, sc, 2, false);
  EXPECT_EQ(l.waiting, 0u);
  EXPECT_EQ(requested(l.result, "ZADD"), model.ops.entered);
  EXPECT_EQ(requested(l.result, "ZREM"), model.ops.removed);
  EXPECT_EQ(l.result.releases.requested, l.released);
  EXPECT_EQ(l.stats.at("released:0"), model.result.by_list[0].released);
  EXPECT_EQ(l.stats.at("released:1"), model.result.by_list[1].released);
  EXPECT_EQ(l.result.releases.lost, 0u);
  EXPECT_EQ(l.result.releases.duplicated, 0u);
}

TEST(LoadStreamRedis, LotteryDrawsTheModelsMembers) {
  redis_server s;
  json j = shipped("flash_lottery");
  j["arrivals"]["segments"][0]["duration_s"] = 4;
  const auto sc = parse(j);
  const auto model = run_model(sc);
  const auto l = load_on(s, sc, sc.classes.size(), true);
  EXPECT_EQ(l.waiting, 0u);
  EXPECT_EQ(requested(l.result, "SADD"), model.ops.entered);
  EXPECT_EQ(requested(l.result, "SREM"), model.ops.removed);
  // Each draw script call removed exactly the model's member (else it would return 0 and the
  // member stay in its set).
  EXPECT_EQ(requested(l.result, "EVALSHA draw"), model.ops.draws);
  EXPECT_EQ(l.released, model.ops.draws);
  EXPECT_GT(model.ops.draws, 1000u);
}

TEST(LoadStreamRedis, AgingMovesUsersAsTheModel) {
  redis_server s;
  const auto sc = parse(shipped("strict_aging"));
  const auto model = run_model(sc);
  const auto l = load_on(s, sc, 3, false);
  EXPECT_GT(model.ops.moved, 100u);
  EXPECT_EQ(requested(l.result, "EVALSHA move"), model.ops.moved);
  EXPECT_EQ(l.waiting, 0u);
  for (std::uint32_t i = 0; i < 3; ++i)
    EXPECT_EQ(l.stats.at("released:" + std::to_string(i)), model.result.by_list[i].released) << i;
  EXPECT_EQ(l.released, l.result.releases.requested);
}

// Per-SKU lists (the shipped scenario's concurrency release as ticks): users routed by the
// SKU they want, released by the scheduler's choice of list.
TEST(LoadStreamRedis, SkuListsAsTheModel) {
  redis_server s;
  json j = shipped("per_sku_flash_sale");
  j["release"] = {{"mode", "tick"},
                  {"interval_ms", 200},
                  {"batch", 3},
                  {"selection", j["release"]["selection"]}};
  const auto sc = parse(j);
  const auto model = run_model(sc);
  const auto l = load_on(s, sc, sc.lists.size(), false);
  EXPECT_EQ(l.waiting, 0u);
  std::uint64_t lists_used = 0;
  for (std::uint32_t i = 0; i < sc.lists.size(); ++i) {
    EXPECT_EQ(l.stats.at("released:" + std::to_string(i)), model.result.by_list[i].released) << i;
    lists_used += model.result.by_list[i].released > 0;
  }
  EXPECT_EQ(lists_used, sc.lists.size());
  EXPECT_EQ(requested(l.result, "ZADD"), model.ops.entered);
  EXPECT_EQ(l.released, l.result.releases.requested);
}

// The release modes other than tick (refused by the earlier generator): the room's releases,
// whenever a session ends or the gate admits, reach Redis as the model made them.
class LoadStreamModes : public ::testing::TestWithParam<std::pair<const char*, const char*>> {};

TEST_P(LoadStreamModes, RedisHoldsWhatTheModelHolds) {
  redis_server s;
  json j = shipped(GetParam().first);
  if (*GetParam().second) j["run"]["horizon_s"] = std::stod(GetParam().second);
  const auto sc = parse(j);
  const auto model = run_model(sc);
  std::uint64_t released = 0;
  for (const auto& [k, n] : model.ops.releases) released += n;
  const auto l = load_on(s, sc, sc.lists.size(), false);
  EXPECT_GT(released, 1000u);
  EXPECT_EQ(requested(l.result, "ZADD"), model.ops.entered);
  EXPECT_EQ(requested(l.result, "ZREM"), model.ops.removed);
  EXPECT_EQ(l.released, released);
  EXPECT_EQ(l.waiting, model.ops.entered - model.ops.removed - released);
  for (std::uint32_t i = 0; i < sc.lists.size(); ++i)
    if (model.result.by_list[i].released > 0) {
      EXPECT_EQ(l.stats.at("released:" + std::to_string(i)), model.result.by_list[i].released) << i;
    }
}

INSTANTIATE_TEST_SUITE_P(
    Modes, LoadStreamModes,
    ::testing::Values(std::pair{"mmc_validation", "3000"},       // concurrency, to a horizon
                      std::pair{"per_sku_flash_sale", ""},       // concurrency, SKU lists
                      std::pair{"sneaker_cloudflare_fifo", ""},  // active users
                      std::pair{"sneaker_aws_periodic", ""}),    // serving counter
    // Named by the scenario (the default name prints the pointers: a name per build).
    [](const auto& p) { return std::string(p.param.first); });

}  // namespace
