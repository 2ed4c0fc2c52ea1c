// Parity at the sorted-set level: the same operation stream through the in-memory zset and a
// real Redis (through redis_mirror, which checks every reply), for every score policy.
#include <signal.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <span>
#include <thread>

#include <gtest/gtest.h>

#include "op_stream.hpp"
#include "parity_configs.hpp"
#include "redis/mirror.hpp"
#include "redis_server.hpp"

namespace {

using namespace waitroom::redis;
using namespace waitroom::testing_support;

// The user count: WAITROOM_PARITY_USERS overrides (the slow suite passes 1,000,000).
std::uint64_t parity_users() {
  const char* env = std::getenv("WAITROOM_PARITY_USERS");
  return env != nullptr ? std::strtoull(env, nullptr, 10) : 100'000;
}

class RedisParity : public ::testing::TestWithParam<named_policy> {
 protected:
  static void SetUpTestSuite() { server_ = new redis_server(); }
  static void TearDownTestSuite() {
    delete server_;  // NOLINT: one server for the suite, stopped by its pid here
    server_ = nullptr;
  }
  static redis_server* server_;
};
redis_server* RedisParity::server_ = nullptr;

TEST_P(RedisParity, ReleaseOrderIsIdenticalOnOneList) {
  connection c(server_->parsed_url());
  key_layout keys{new_run_id()};
  redis_mirror m(c, keys);
  stream_config cfg;
  cfg.policy = GetParam().policy;
  cfg.users = parity_users();
  auto res = run_stream(cfg, &m);
  m.finish(res.end_ns);
  EXPECT_EQ(m.stats().released_members, res.released);
  EXPECT_EQ(res.released + res.abandoned, cfg.users);
  EXPECT_GT(m.stats().releases, 0u);
  EXPECT_EQ(m.stats().ranks_checked, res.ranks);
  delete_keys(c, keys);
}

TEST_P(RedisParity, ReleaseOrderIsIdenticalWithTwoListsAndAging) {
  connection c(server_->parsed_url());
  key_layout keys{new_run_id()};
  redis_mirror m(c, keys);
  stream_config cfg;
  cfg.policy = GetParam().policy;
  cfg.users = parity_users();
  cfg.lists = 2;
  cfg.aging_share = 0.3;
  auto res = run_stream(cfg, &m);
  m.finish(res.end_ns);
  EXPECT_GT(res.moved, 0u);
  EXPECT_EQ(m.stats().released_members, res.released);
  delete_keys(c, keys);
}

INSTANTIATE_TEST_SUITE_P(Policies, RedisParity, ::testing::ValuesIn(parity_policies()),
                         [](const auto& p) { return p.param.name; });

// The articles' second-precision bug: within one second ties are broken by the token, not by
// arrival, so users of one class leave out of arrival order. Redis does exactly the same.
TEST(RedisParityClaims, SecondPrecisionBugReproducesOnRedis) {
  redis_server s;
  connection c(s.parsed_url());
  key_layout keys{new_run_id()};
  redis_mirror m(c, keys);
  stream_config cfg;
  cfg.policy = make_policy(waitroom::models::ordering::offset, waitroom::models::time_unit::s, 0);
  cfg.users = 50'000;
  auto bug = run_stream(cfg, &m);
  m.finish(bug.end_ns);
  EXPECT_GT(bug.out_of_arrival_order, 1000u);
  // At microseconds the same stream leaves (almost) in arrival order.
  cfg.policy.unit = waitroom::models::time_unit::us;
  cfg.policy.offset_units = {10e6, 0};
  auto fine = run_stream(cfg, nullptr);
  EXPECT_LT(fine.out_of_arrival_order * 20, bug.out_of_arrival_order);
}

TEST(RedisParityClaims, TheFirstDifferenceStopsWithBothLists) {
  redis_server s;
  connection c(s.parsed_url());
  key_layout keys{new_run_id()};
  redis_mirror m(c, keys);
  for (std::uint64_t t = 1; t <= 10; ++t) m.enter(2, t, static_cast<double>(t), 0);
  std::vector<std::uint64_t> wrong{1, 3, 2};  // Redis returns 1, 2, 3
  m.released(2, wrong, 1'500'000'000);
  std::string what;
  try {
    m.round_end(1'500'000'000);
  } catch (const redis_error& e) {
    EXPECT_EQ(e.kind(), error_kind::parity);
    what = e.what();
  }
  EXPECT_NE(what.find("1.500000000 s"), std::string::npos) << what;
  EXPECT_NE(what.find("list 2"), std::string::npos) << what;
  EXPECT_NE(what.find("position 1"), std::string::npos) << what;
  EXPECT_NE(what.find("model: [0000000000000001, 0000000000000003, 0000000000000002]"),
            std::string::npos)
      << what;
  EXPECT_NE(what.find("redis: [0000000000000001, 0000000000000002, 0000000000000003]"),
            std::string::npos)
      << what;
}

TEST(RedisParityClaims, AWrongRankIsADifference) {
  redis_server s;
  connection c(s.parsed_url());
  key_layout keys{new_run_id()};
  redis_mirror m(c, keys);
  m.enter(0, 5, 1.0, 0);
  m.enter(0, 6, 1.0, 0);
  m.ranked(0, 6, 1, 0);
  m.round_end(0);
  m.ranked(0, 6, 0, 0);
  EXPECT_THROW(m.round_end(0), redis_error);
}

// The sampled queue length is checked against ZCARD: a member another client added is found
// at the next sample, naming the key and both counts.
TEST(RedisParityClaims, AQueueLengthRedisDoesNotHoldIsADifference) {
  redis_server s;
  connection c(s.parsed_url());
  connection other(s.parsed_url());
  key_layout keys{new_run_id()};
  redis_mirror m(c, keys);
  m.enter(1, 5, 1.0, 0);
  m.enter(1, 6, 2.0, 0);
  m.counted(1, 2, 1'000'000'000);
  m.counted(0, 0, 1'000'000'000);
  m.round_end(1'000'000'000);
  EXPECT_EQ(m.stats().sizes_checked, 2u);
  other.call({"ZADD", keys.list(1), "3", "stray"});
  m.counted(1, 2, 2'000'000'000);
  std::string what;
  try {
    m.round_end(2'000'000'000);
  } catch (const redis_error& e) {
    EXPECT_EQ(e.kind(), error_kind::parity);
    what = e.what();
  }
  EXPECT_NE(what.find("2.000000000 s on list 1: ZCARD of " + keys.list(1) +
                      " is 3, the model counts 2 waiting"),
            std::string::npos)
      << what;
  delete_keys(c, keys);
}

TEST(RedisParityClaims, LotteryDrawsRemoveExactlyTheModelsMember) {
  redis_server s;
  connection c(s.parsed_url());
  key_layout keys{new_run_id()};
  mirror_options o;
  o.lottery = true;
  redis_mirror m(c, keys, o);
  waitroom::sim::rng r(3);
  std::vector<std::vector<std::uint64_t>> sets(2);
  std::uint64_t tok = 0;
  for (int round = 0; round < 2000; ++round) {
    for (int k = 0; k < 5; ++k) {
      std::uint32_t cl = r.uniform01() < 0.2 ? 0 : 1;
      sets[cl].push_back(waitroom::sim::mix64(++tok));
      m.enter(cl, sets[cl].back(), 0.0, round);
    }
    for (int k = 0; k < 4; ++k) {
      std::uint32_t cl = sets[0].empty() || r.uniform01() < 0.5 ? 1 : 0;
      auto i = r.below(sets[cl].size());
      std::swap(sets[cl][i], sets[cl].back());
      m.drawn(cl, sets[cl].back(), round);
      sets[cl].pop_back();
    }
    if (!sets[1].empty() && r.uniform01() < 0.1) {  // someone gives up
      m.remove(1, sets[1].back(), round);
      sets[1].pop_back();
    }
    m.round_end(round);
  }
  m.finish(2000);
  EXPECT_EQ(m.stats().draws, 8000u);
  // A member the model never added cannot be drawn.
  m.drawn(0, 0xdeadbeef, 2001);
  EXPECT_THROW(m.round_end(2001), redis_error);
}

TEST(RedisParityClaims, SignedMembersKeepTheOrder) {
  redis_server s;
  connection c(s.parsed_url());
  key_layout keys{new_run_id()};
  token_signer signer = token_signer::random();
  mirror_options o;
  o.signer = &signer;
  redis_mirror m(c, keys, o);
  stream_config cfg;
  cfg.policy = make_policy(waitroom::models::ordering::offset, waitroom::models::time_unit::s, 0);
  cfg.users = 20'000;
  auto res = run_stream(cfg, &m);
  m.finish(res.end_ns);
  EXPECT_EQ(m.stats().released_members, res.released);
  auto some = c.call({"SRANDMEMBER", keys.released()});
  EXPECT_EQ(some.str.size(), token_signer::member_size);
  EXPECT_TRUE(signer.verify(some.str).has_value());
}

// Passes every operation to a live mirror; the fault tests act on Redis before an entry.
struct fault_mirror : waitroom::models::forwarding_mirror {
  redis_mirror& inner;
  explicit fault_mirror(redis_mirror& i) : waitroom::models::forwarding_mirror(i), inner(i) {}
  virtual void before_enter() {}
  void enter(std::uint32_t l, std::uint64_t t, double sc, std::int64_t n) override {
    before_enter();
    waitroom::models::forwarding_mirror::enter(l, t, sc, n);
  }
};

// Redis stopped and restarted mid-run (appendonly yes, appendfsync always): the mirror
// reconnects with bounded backoff, replays what was not acknowledged, reports the gap, and
// the state after the restart still matches the model's.
TEST(RedisFaults, RestartMidRunIsSurvivedAndReported) {
  redis_server s({"--appendonly", "yes", "--appendfsync", "always"});
  connect_options co;
  co.reconnect = true;
  co.timeout = std::chrono::milliseconds(1000);
  co.give_up_after = std::chrono::milliseconds(20000);
  connection c(s.parsed_url(), co);
  key_layout keys{new_run_id()};
  redis_mirror m(c, keys);
  stream_config cfg;
  cfg.policy = make_policy(waitroom::models::ordering::offset, waitroom::models::time_unit::ms, 0);
  cfg.users = 20'000;
  // A mirror that crashes the server once, a third of the way in, and restarts it 300 ms later.
  struct crashing : fault_mirror {
    redis_server& server;
    std::uint64_t calls = 0;
    std::thread restarter;
    std::mutex m;
    std::condition_variable cv;
    bool done = false;
    void finish() {
      {
        std::lock_guard lock(m);
        done = true;
      }
      cv.notify_all();
      if (restarter.joinable()) restarter.join();
    }
    crashing(redis_mirror& i, redis_server& s) : fault_mirror(i), server(s) {}
    void maybe_crash() {
      if (++calls != 8'000) return;
      server.crash();
      // The restarted server dies with the thread that started it: keep the thread alive.
      restarter = std::thread([this] {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        server.start();
        std::unique_lock lock(m);
        cv.wait(lock, [this] { return done; });
        server.stop();
      });
    }
    void before_enter() override { maybe_crash(); }
  } wrapper(m, s);
  stream_result res;
  try {
    res = run_stream(cfg, &wrapper);
    m.finish(res.end_ns);
  } catch (...) {
    wrapper.finish();
    throw;
  }
  wrapper.finish();
  EXPECT_EQ(c.stats().reconnects, 1u);
  EXPECT_GE(c.stats().gap_ns, 250'000'000);
  EXPECT_GT(c.stats().replayed, 0u);
  std::printf("reconnects %llu, gap %.3f s, commands replayed %llu\n",
              static_cast<unsigned long long>(c.stats().reconnects),
              static_cast<double>(c.stats().gap_ns) * 1e-9,
              static_cast<unsigned long long>(c.stats().replayed));
  EXPECT_GE(m.stats().state_checks, 2u);  // after the reconnect and at the end
  EXPECT_EQ(m.stats().released_members, res.released);
}

// A mirror that stops Redis (SIGTERM) at its 8,000th entry and starts it 300 ms later.
struct restarting : fault_mirror {
  redis_server& server;
  std::uint64_t calls = 0;
  std::optional<restart_later> restart;
  restarting(redis_mirror& i, redis_server& s) : fault_mirror(i), server(s) {}
  void before_enter() override {
    if (++calls == 8'000) restart.emplace(server, std::chrono::milliseconds(300));
  }
};

// A 20k-user stream released by 4 releasers (the script, or ZRANGE then ZREM), Redis
// restarted a third of the way in; checks what every such run must show.
struct restart_run {
  stream_result res;
  mirror_stats st;
  command_stats main;
  long long released_set = 0;
};
restart_run run_across_a_restart(bool atomic) {
  redis_server s({"--appendonly", "yes", "--appendfsync", "always"});
  connect_options co;
  co.reconnect = true;
  co.timeout = std::chrono::milliseconds(1000);
  co.give_up_after = std::chrono::milliseconds(20000);
  connection c(s.parsed_url(), co);
  key_layout keys{new_run_id()};
  mirror_options mo;
  mo.releasers = 4;
  mo.atomic = atomic;
  redis_mirror m(c, keys, mo);
  stream_config cfg;
  cfg.policy = make_policy(waitroom::models::ordering::offset, waitroom::models::time_unit::ms, 0);
  cfg.users = 20'000;
  restarting wrapper(m, s);
  restart_run out;
  out.res = run_stream(cfg, &wrapper);
  m.finish(out.res.end_ns);  // the state check: Redis's sizes are the model's
  EXPECT_TRUE(wrapper.restart.has_value());
  out.st = m.stats();
  out.main = c.stats();
  out.released_set = c.call({"SCARD", keys.released()}).integer;
  EXPECT_EQ(out.main.reconnects, 1u);
  // Each releaser's connection, at its next release: by then the mirror's own connection has
  // waited out the restart (it finds the break first, with entries in flight), so theirs is
  // back at the first try. ThePoolReconnectsAcrossARestartAndSaysSo waits it out in a release.
  EXPECT_EQ(out.st.releaser_commands.reconnects, 4u);
  EXPECT_EQ(out.st.releaser_commands.replayed, 4u);  // the release call each had sent
  EXPECT_GT(out.st.releaser_commands.gap_ns, 0);
  EXPECT_EQ(out.st.releasers, 4u);
  EXPECT_EQ(out.st.released_members, out.res.released);
  EXPECT_GE(out.st.state_checks, 2u);  // after the reconnects and at the end
  EXPECT_EQ(out.released_set, static_cast<long long>(out.res.released));
  std::printf(
      "4 releasers (%s): mirror reconnects %llu (gap %.3f s, %llu replayed); releasers %llu "
      "(gaps %.3f s in all, %llu replayed); %llu handed out, %llu duplicated, %llu lost\n",
      atomic ? "script" : "ZRANGE, ZREM", static_cast<unsigned long long>(out.main.reconnects),
      static_cast<double>(out.main.gap_ns) * 1e-9,
      static_cast<unsigned long long>(out.main.replayed),
      static_cast<unsigned long long>(out.st.releaser_commands.reconnects),
      static_cast<double>(out.st.releaser_commands.gap_ns) * 1e-9,
      static_cast<unsigned long long>(out.st.releaser_commands.replayed),
      static_cast<unsigned long long>(out.st.handed_out),
      static_cast<unsigned long long>(out.st.duplicated),
      static_cast<unsigned long long>(out.st.lost));
  return out;
}

// With release.consumers 4 (four releasers, each a thread with its own connection, the
// atomic script): the mirror's connection and every releaser's reconnect; replayed releases
// return their logged members; nobody is handed out twice or left behind, and the state
// check after the reconnect finds Redis as the model is.
TEST(RedisFaults, RestartWithFourReleasersKeepsParity) {
  auto r = run_across_a_restart(true);
  EXPECT_EQ(r.st.duplicated, 0u);
  EXPECT_EQ(r.st.lost, 0u);
  EXPECT_EQ(r.st.handed_out, r.res.released);
}

// Without the script (ZRANGE, then ZREM + SADD) nothing makes a replay safe: the run still
// finishes, the race's repeats and the members left behind are counted as without a restart
// (each releaser reads as many as it asks for, so as many duplicated as lost), and the
// mirror's repair keeps Redis in step (the state checks pass).
TEST(RedisFaults, RestartWithFourNonAtomicReleasersIsCounted) {
  auto r = run_across_a_restart(false);
  EXPECT_EQ(r.st.duplicated, r.st.lost);
  EXPECT_EQ(r.st.handed_out, r.res.released);
}

TEST(RedisFaults, AServerThatNeverComesBackIsAnErrorNotAHang) {
  redis_server s;
  connect_options co;
  co.reconnect = true;
  co.timeout = std::chrono::milliseconds(300);
  co.give_up_after = std::chrono::milliseconds(1500);
  connection c(s.parsed_url(), co);
  key_layout keys{new_run_id()};
  redis_mirror m(c, keys);
  m.enter(0, 1, 1.0, 0);
  m.round_end(0);
  s.crash();
  auto t0 = std::chrono::steady_clock::now();
  std::string what;
  try {
    m.enter(0, 2, 1.0, 1);
    m.round_end(1);
  } catch (const redis_error& e) {
    EXPECT_EQ(e.kind(), error_kind::connection);
    what = e.what();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  EXPECT_NE(what.find("not back after"), std::string::npos) << what;
}

}  // namespace
