// The release script that chooses the list itself (strict, ratio, probabilistic over several
// lists): whole runs through `run --redis` with every release one call of the choose script,
// and the checks that catch a Redis whose choice differs from the model's.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "models/release/selector.hpp"
#include "redis/mirror.hpp"
#include "redis/scripts.hpp"
#include "redis_server.hpp"
#include "sim/random.hpp"
#include "support/scenario_runs.hpp"

namespace {

using nlohmann::json;
using waitroom::testing_support::redis_server;
using waitroom::testing_support::run;
namespace redis = waitroom::redis;
namespace models = waitroom::models;

// Arrivals per second over the 1,000 s of arrivals: WAITROOM_CHOOSE_USERS / 1,000 (the slow
// suite passes 1,000,000: 1,000/s), else 40/s.
std::uint64_t rate_per_s() {
  const char* env = std::getenv("WAITROOM_CHOOSE_USERS");
  return env != nullptr ? std::max<std::uint64_t>(1, std::strtoull(env, nullptr, 10) / 1000) : 40;
}

// A room with 2 or 3 lists (one class each) near saturation, so lists empty now and then
// (ratio without work conservation then loses units), and a backlog at opening. At 40
// users/s: 2,000 at opening + 40/s for 1,000 s = 42,000 users, 44 released a tick.
json room_with(std::size_t lists, json selection) {
  const std::uint64_t rate = rate_per_s();
  const std::vector<std::string> names{"gold", "silver", "normal"};
  const std::vector<double> shares2{0.3, 0.7}, shares3{0.15, 0.25, 0.6};
  json classes = json::array(), qlists = json::array();
  for (std::size_t i = 0; i < lists; ++i) {
    const std::string n = lists == 2 && i == 1 ? "normal" : names[i];
    classes.push_back({{"name", n}, {"share", lists == 2 ? shares2[i] : shares3[i]}});
    qlists.push_back({{"name", n}, {"classes", {n}}});
  }
  return {{"name", "choose-" + std::to_string(lists) + "-lists"},
          {"seed", 11},
          {"classes", classes},
          {"arrivals",
           {{"process", "piecewise"},
            {"segments", {{{"duration_s", 1000}, {"rate_per_s", rate}}}},
            {"backlog_users", rate * 50}}},
          {"queue", {{"policy", "fifo"}, {"lists", qlists}}},
          {"release",
           {{"mode", "tick"},
            {"interval_ms", 1000},
            {"batch", rate * 11 / 10},
            {"selection", selection}}},
          {"run", {{"sample_interval_s", 10}}}};
}

struct choose_case {
  std::string name;
  json scenario;
  bool loses_units;  // the model loses units to an empty list's share (ratio, not conserving)
};

std::vector<choose_case> choose_cases() {
  // 6:4 over 44 units a tick leaves credit at each tick's end, so the step to the same
  // weights at 403 s (which resets it in the model) matters.
  const json schedule = {{{"at_s", 200}, {"weights", {6, 4}}},
                         {{"at_s", 403}, {"weights", {6, 4}}},  // the same: the credit resets
                         {{"at_s", 700}, {"weights", {7, 3}}}};
  json concurrency = room_with(
      2,
      {{"kind", "ratio"}, {"weights", {7, 3}}, {"work_conserving", true}, {"schedule", schedule}});
  concurrency["release"] = {{"mode", "concurrency"},
                            {"slots", rate_per_s()},
                            {"session_s", {{"dist", "exponential"}, {"mean", 1.0}}},
                            {"selection", concurrency["release"]["selection"]}};
  return {
      {"ratio_7_3_conserving",
       room_with(2, {{"kind", "ratio"}, {"weights", {7, 3}}, {"work_conserving", true}}), false},
      {"ratio_7_3_not_conserving",
       room_with(2, {{"kind", "ratio"}, {"weights", {7, 3}}, {"work_conserving", false}}), true},
      {"ratio_7_3_schedule",
       room_with(2, {{"kind", "ratio"},
                     {"weights", {7, 3}},
                     {"work_conserving", false},
                     {"schedule", schedule}}),
       true},
      {"ratio_3_lists_schedule",
       room_with(3, {{"kind", "ratio"},
                     {"weights", {5, 3, 2}},
                     {"work_conserving", true},
                     {"schedule",
                      {{{"at_s", 500}, {"weights", {1, 0, 1}}},
                       {{"at_s", 800}, {"weights", {2, 3, 5}}}}}}),
       false},
      {"ratio_concurrency_schedule", concurrency, false},
      {"strict_2_lists", room_with(2, {{"kind", "strict"}}), false},
      {"strict_3_lists", room_with(3, {{"kind", "strict"}}), false},
      {"probabilistic_2_lists",
       room_with(2, {{"kind", "probabilistic"}, {"start_probabilities", {0.7, 0.3}}}), false},
      {"probabilistic_3_lists",
       room_with(3, {{"kind", "probabilistic"}, {"start_probabilities", {0.6, 0.3, 0.1}}}), false},
  };
}

void PrintTo(const choose_case& c, std::ostream* os) {
  *os << c.name;
}

class RedisChoose : public ::testing::TestWithParam<choose_case> {};

TEST_P(RedisChoose, RedisChoosesTheSameListsAsTheModel) {
  redis_server s;
  const auto& c = GetParam();
  const std::string file = s.dir() + "/" + c.name + ".json";
  std::ofstream(file) << c.scenario.dump();
  const std::string out = s.dir() + "/result.json";
  const std::uint64_t users = rate_per_s() * 1050;
  const int limit = users > 100'000 ? 1800 : 120;
  auto r = run("run " + file + " --redis " + s.url() + " --out " + out, limit);
  ASSERT_EQ(r.code, 0) << r.out;
  auto j = waitroom::testing_support::read_json(out);
  const auto& b = j["redis"];
  // Every release went through the choose script, one call per release, none per list.
  ASSERT_TRUE(b.contains("list_choice")) << b.dump();
  const auto calls = b["list_choice"]["script_calls"].get<std::uint64_t>();
  EXPECT_GT(calls, 500u);
  EXPECT_EQ(b["commands"].value("EVALSHA choose", 0u), calls);
  EXPECT_FALSE(b["commands"].contains("EVALSHA release")) << b["commands"].dump();
  EXPECT_EQ(b["releases"].get<std::uint64_t>(), calls);
  EXPECT_GE(b["released"].get<std::uint64_t>(), users * 9 / 10);
  // Units lost to an empty list's share were made on Redis too, as many as the model lost.
  const auto lost = b["list_choice"]["lost_units"].get<std::uint64_t>();
  if (c.loses_units) {
    EXPECT_GT(lost, 0u);
    EXPECT_EQ(lost, j["lost_release_units"].get<std::uint64_t>());
  } else {
    EXPECT_EQ(lost, 0u);
  }
  // The simulation's own result is the in-memory one.
  auto plain = run("run " + file + " --format json", limit);
  ASSERT_EQ(plain.code, 0) << plain.out;
  auto p = json::parse(plain.out);
  EXPECT_EQ(j["overall"], p["overall"]);
  EXPECT_EQ(j["lists"], p["lists"]);
  redis::connection conn(s.parsed_url());
  EXPECT_EQ(conn.call({"DBSIZE"}).integer, 0);
}

INSTANTIATE_TEST_SUITE_P(Policies, RedisChoose, ::testing::ValuesIn(choose_cases()),
                         [](const auto& p) { return p.param.name; });

// Lotteries, one list and several releasers keep the per-list release script.
TEST(RedisChooseScope, OnlyStrictRatioProbabilisticOverSeveralListsWithOneReleaser) {
  models::selection_spec ratio;
  ratio.kind = models::selection_kind::ratio;
  EXPECT_TRUE(redis::redis_mirror::can_choose(ratio, 2, 1, true));
  EXPECT_FALSE(redis::redis_mirror::can_choose(ratio, 1, 1, true));
  EXPECT_FALSE(redis::redis_mirror::can_choose(ratio, 2, 4, true));
  EXPECT_FALSE(redis::redis_mirror::can_choose(ratio, 2, 1, false));
  for (auto k : {models::selection_kind::strict, models::selection_kind::probabilistic}) {
    models::selection_spec s;
    s.kind = k;
    EXPECT_TRUE(redis::redis_mirror::can_choose(s, 3, 1, true));
  }
  for (auto k : {models::selection_kind::lottery, models::selection_kind::scheduler,
                 models::selection_kind::deadline}) {
    models::selection_spec s;
    s.kind = k;
    EXPECT_FALSE(redis::redis_mirror::can_choose(s, 2, 1, true));
  }
}

// The room's release loop in small: two lists of tokens, the model's ratio selector picking
// a list per unit, each pop reported to the mirror, a round end per tick.
struct small_room {
  models::list_selector selector;
  waitroom::sim::rng stream{3};
  std::vector<std::deque<std::uint64_t>> lists{2};
  std::uint64_t lost = 0;
  std::uint64_t next_token = 1;

  explicit small_room(const models::selection_spec& spec) : selector(spec, 2) {}

  void enter(redis::redis_mirror& m, std::uint32_t l, std::int64_t now) {
    const std::uint64_t t = next_token++;
    lists[l].push_back(t);
    m.enter(l, t, static_cast<double>(t), now);
  }
  void tick(redis::redis_mirror& m, std::uint64_t n, std::int64_t now) {
    for (std::uint64_t k = 0; k < n && !(lists[0].empty() && lists[1].empty()); ++k) {
      std::vector<std::uint64_t> sizes{lists[0].size(), lists[1].size()};
      const int l = selector.pick(sizes, stream);
      if (l == models::list_selector::none) {
        ++lost;
        continue;
      }
      const std::uint64_t t = lists[static_cast<std::size_t>(l)].front();
      lists[static_cast<std::size_t>(l)].pop_front();
      m.released(static_cast<std::uint32_t>(l), std::span(&t, 1), now);
    }
    m.round_end(now);
  }
};

models::selection_spec ratio_7_3(bool work_conserving) {
  models::selection_spec s;
  s.kind = models::selection_kind::ratio;
  s.weights = {7, 3};
  s.work_conserving = work_conserving;
  return s;
}

// A server of its own, a mirror choosing the lists by ratio 7:3, and the small room feeding it.
struct choose_rig {
  redis_server s;
  redis::connection c{s.parsed_url()};
  redis::key_layout keys{redis::new_run_id()};
  redis::redis_mirror m{c, keys};
  models::selection_spec spec;
  small_room room;

  explicit choose_rig(bool work_conserving) : spec(ratio_7_3(work_conserving)), room(spec) {
    m.choose_lists(spec, 2, room.selector, room.stream, [this] { return room.lost; });
  }
};

// Ten ticks of 10 units over two lists; with `tamper` another client writes a credit of its
// own into the selection state on Redis before tick 5. Returns the parity error, or "".
std::string run_small(bool work_conserving, bool tamper, std::uint64_t* calls = nullptr) {
  choose_rig r(work_conserving);
  auto& [s, c, keys, m, spec, room] = r;
  try {
    for (std::int64_t tick = 1; tick <= 10; ++tick) {
      const std::int64_t now = tick * 1'000'000'000;
      for (int i = 0; i < 12; ++i) room.enter(m, i % 4 == 0 ? 0 : 1, now);
      if (tick == 5 && tamper) {
        m.round_end(now);  // everything sent so far has run
        redis::connection other(s.parsed_url());
        other.call({"HSET", keys.selection(), "credit", "-3,3"});
      }
      room.tick(m, 10, now);
    }
    m.finish(11'000'000'000);
  } catch (const redis::redis_error& e) {
    EXPECT_EQ(e.kind(), redis::error_kind::parity) << e.what();
    return e.what();
  }
  if (calls != nullptr) *calls = m.stats().chosen_releases;
  return {};
}

TEST(RedisChooseClaims, TheSameCreditOnRedisHoldsParity) {
  for (bool wc : {true, false}) {
    std::uint64_t calls = 0;
    EXPECT_EQ(run_small(wc, false, &calls), "") << "work_conserving " << wc;
    EXPECT_EQ(calls, 10u);
  }
}

TEST(RedisChooseClaims, ADifferentCreditOnRedisIsAParityFailure) {
  for (bool wc : {true, false}) {
    const std::string what = run_small(wc, true);
    ASSERT_FALSE(what.empty()) << "work_conserving " << wc;
    EXPECT_NE(what.find("Redis parity lost at 5.000000000 s"), std::string::npos) << what;
    EXPECT_NE(what.find("model: ["), std::string::npos) << what;
    EXPECT_NE(what.find("redis: ["), std::string::npos) << what;
  }
}

// Only the credit differs: a state whose picks happen to be the model's is still caught.
TEST(RedisChooseClaims, ACreditThatPicksTheSameListsIsStillCaught) {
  choose_rig r(true);
  auto& [s, c, keys, m, spec, room] = r;
  // Only list 1 has users, so (work-conserving) every pick takes from it whatever the
  // credit, and its credit gains 3 and loses 3 per unit: the lists and members agree.
  for (int i = 0; i < 5; ++i) room.enter(m, 1, 1'000'000'000);
  m.round_end(1'000'000'000);
  redis::connection other(s.parsed_url());
  other.call({"HSET", keys.selection(), "epoch", "0", "credit", "0,0.5"});
  std::string what;
  try {
    room.tick(m, 3, 1'000'000'000);
    m.finish(2'000'000'000);
  } catch (const redis::redis_error& e) {
    EXPECT_EQ(e.kind(), redis::error_kind::parity);
    what = e.what();
  }
  EXPECT_NE(what.find("the ratio's credit after the release differs at position 1"),
            std::string::npos)
      << what;
}

// Replay protection: the same release id again (a call replayed after a reconnect) returns
// the logged reply, parsed back from the log, and takes nobody more.
TEST(RedisChooseClaims, AReplayedReleaseReturnsTheLoggedReplyAndTakesNobody) {
  redis_server s;
  redis::connection c(s.parsed_url());
  redis::key_layout keys{redis::new_run_id()};
  const auto script = c.add_script("choose", redis::scripts::choose);
  c.call({"ZADD", keys.list(0), "1", "a", "2", "b", "3", "c"});
  c.call({"ZADD", keys.list(1), "1", "d", "2", "e"});
  const std::vector<std::string> k{keys.list(0), keys.list(1),        keys.released(),
                                   keys.stats(), keys.release_log(0), keys.selection()};
  // Ratio 7:3, work-conserving, epoch 0: four units, release id 1.
  const std::vector<std::string> a{"4", "ratio", "1", "", "2", "1", "0", "7", "3"};
  const auto call = c.evalsha_args(script, k, a);
  const auto first = c.call(call);
  const auto again = c.call(call);
  auto flat = [](const redis::reply& r) {
    std::vector<std::string> out{r.elements.at(0).str, std::to_string(r.elements.at(1).integer),
                                 r.elements.at(2).str};
    for (std::size_t i = 3; i < r.elements.size(); ++i) {
      std::string m;
      for (const auto& e : r.elements[i].elements) m += e.str + " ";
      out.push_back(m);
    }
    return out;
  };
  // SWRR 7:3 over four units: 0 (credit 7-10), 1, 0, 0; the credit ends at (-2, 2).
  EXPECT_EQ(flat(first), (std::vector<std::string>{"0,1,0,0", "0", "-2,2", "a b c ", "d "}));
  EXPECT_EQ(flat(again), flat(first));
  EXPECT_EQ(c.call({"ZCARD", keys.list(0)}).integer + c.call({"ZCARD", keys.list(1)}).integer, 1);
  EXPECT_EQ(c.call({"SCARD", keys.released()}).integer, 4);
  EXPECT_EQ(c.call({"HGET", keys.stats(), "released:0"}).str, "3");
  EXPECT_EQ(c.call({"HGET", keys.selection(), "credit"}).str, "-2,2");
}

}  // namespace
