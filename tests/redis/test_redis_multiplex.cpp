// The multiplexed client (redis/multiplex): one thread, several connections, every reply to
// its own command in order; error replies, a connection the server closes and a server that
// does not answer; and load mode's counts with one client thread or two.
#include <chrono>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "redis/connection.hpp"
#include "redis/multiplex.hpp"
#include "redis_server.hpp"
#include "support/scenario_runs.hpp"

namespace {

using waitroom::redis::connection;
using waitroom::redis::multiplexer;
using waitroom::redis::redis_error;
using waitroom::redis::reply;
using waitroom::testing_support::redis_server;
using namespace std::chrono_literals;

struct delivered {
  std::size_t conn;
  std::uint64_t tag;
  reply r;
};

struct failure {
  std::size_t conn;
  waitroom::redis::error_kind kind;
  std::string what;
  std::vector<std::uint64_t> lost;
};

// One step, recording every reply and failure.
void step_once(multiplexer& mux, std::vector<delivered>& got, std::vector<failure>& failed,
               std::chrono::milliseconds wait) {
  mux.step(
      wait,
      [&](std::size_t c, std::uint64_t t, reply&& r) {
        got.push_back({c, t, r});
      },
      [&](std::size_t c, const redis_error& e, std::vector<std::uint64_t> lost) {
        failed.push_back({c, e.kind(), e.what(), std::move(lost)});
      });
}

// Steps until nothing is in flight or `limit` has passed (the test fails then, never hangs).
void drain(multiplexer& mux, std::vector<delivered>& got, std::vector<failure>& failed,
           std::chrono::seconds limit = 20s) {
  auto end = std::chrono::steady_clock::now() + limit;
  while (mux.in_flight() > 0) {
    ASSERT_LT(std::chrono::steady_clock::now(), end) << mux.in_flight() << " still in flight";
    step_once(mux, got, failed, 100ms);
  }
}

TEST(RedisMultiplex, EveryReplyGoesToItsCommandOnItsConnectionInOrder) {
  redis_server s;
  constexpr std::size_t k = 4, n = 500;
  std::vector<std::unique_ptr<connection>> conns;
  std::vector<connection*> raw;
  for (std::size_t i = 0; i < k; ++i) {
    conns.push_back(std::make_unique<connection>(s.parsed_url()));
    raw.push_back(conns.back().get());
  }
  multiplexer mux(raw);
  // Connection i: ZADD then ZRANK of member m (score m) in its own set, tags 2m and 2m + 1.
  // The ZRANK's answer is m only if it ran after the ZADDs of members 0..m on that set.
  // Commands go out in chunks of 32, the next chunk appended from the reply callback, so the
  // appends and the reads interleave as they do in load mode.
  std::vector<std::size_t> next(k, 0);
  auto refill = [&](std::size_t i) {
    for (std::size_t j = 0; j < 16 && next[i] < n; ++j, ++next[i]) {
      // (appended, not "m" + to_string: GCC 12 warns falsely on that, -Wrestrict)
      std::string key = "mux:", m = "m";
      key += std::to_string(i);
      m += std::to_string(next[i]);
      mux.append(i, {"ZADD", key, std::to_string(next[i]), m}, 2 * next[i]);
      mux.append(i, {"ZRANK", key, m}, 2 * next[i] + 1);
    }
  };
  for (std::size_t i = 0; i < k; ++i) refill(i);
  EXPECT_EQ(mux.in_flight(), k * 32);
  std::vector<std::vector<std::uint64_t>> tags(k);
  std::vector<std::vector<reply>> replies(k);
  auto end = std::chrono::steady_clock::now() + 20s;
  std::size_t failures = 0;
  while (mux.in_flight() > 0) {
    ASSERT_LT(std::chrono::steady_clock::now(), end);
    mux.step(
        100ms,
        [&](std::size_t c, std::uint64_t t, reply&& r) {
          tags[c].push_back(t);
          replies[c].push_back(std::move(r));
          if (mux.in_flight(c) == 0) refill(c);
        },
        [&](std::size_t, const redis_error&, std::vector<std::uint64_t>) { ++failures; });
  }
  EXPECT_EQ(failures, 0u);
  for (std::size_t i = 0; i < k; ++i) {
    ASSERT_EQ(tags[i].size(), 2 * n) << "connection " << i;
    for (std::size_t t = 0; t < 2 * n; ++t) {
      ASSERT_EQ(tags[i][t], t) << "connection " << i;
      const reply& r = replies[i][t];
      ASSERT_EQ(r.type, reply::kind::integer)
          << "connection " << i << " tag " << t << ": " << r.str;
      // ZADD of a new member answers 1; ZRANK of member m answers m.
      EXPECT_EQ(r.integer, t % 2 == 0 ? 1 : static_cast<long long>(t / 2))
          << "connection " << i << " tag " << t;
    }
    EXPECT_EQ(conns[i]->stats().sent.at("ZADD"), n);
    EXPECT_EQ(conns[i]->stats().sent.at("ZRANK"), n);
    EXPECT_EQ(conns[i]->pending(), 0u);
  }
}

TEST(RedisMultiplex, AnErrorReplyIsCountedForItsCommandAndTheConnectionGoesOn) {
  redis_server s;
  connection a(s.parsed_url()), b(s.parsed_url());
  a.call({"SET", "mux:string", "x"});
  std::vector<delivered> got;
  std::vector<failure> failed;
  {
    multiplexer mux({&a, &b});
    mux.append(0, {"ZADD", "mux:z", "1", "a"}, 10);
    mux.append(0, {"ZADD", "mux:string", "1", "a"}, 11);  // WRONGTYPE
    mux.append(1, {"NOSUCHCOMMAND"}, 20);
    mux.append(0, {"ZCARD", "mux:z"}, 12);
    mux.append(1, {"PING"}, 21);
    drain(mux, got, failed);
    EXPECT_TRUE(mux.alive(0));
    EXPECT_TRUE(mux.alive(1));
  }
  EXPECT_TRUE(failed.empty());
  ASSERT_EQ(got.size(), 5u);
  std::vector<delivered> on0, on1;
  for (auto& d : got) (d.conn == 0 ? on0 : on1).push_back(d);
  ASSERT_EQ(on0.size(), 3u);
  ASSERT_EQ(on1.size(), 2u);
  EXPECT_EQ(on0[0].tag, 10u);
  EXPECT_EQ(on0[0].r.integer, 1);
  EXPECT_EQ(on0[1].tag, 11u);
  EXPECT_EQ(on0[1].r.type, reply::kind::error);
  EXPECT_EQ(on0[1].r.str.rfind("WRONGTYPE", 0), 0u) << on0[1].r.str;
  EXPECT_EQ(on0[2].tag, 12u);
  EXPECT_EQ(on0[2].r.integer, 1);
  EXPECT_EQ(on1[0].tag, 20u);
  EXPECT_EQ(on1[0].r.type, reply::kind::error);
  EXPECT_EQ(on1[1].tag, 21u);
  EXPECT_EQ(on1[1].r.str, "PONG");
  // Blocking again once the multiplexer is gone: call() works on both.
  EXPECT_EQ(a.call({"ZCARD", "mux:z"}).integer, 1);
  EXPECT_EQ(b.call({"PING"}).str, "PONG");
}

// The connection writes RESP itself (not hiredis's formatter) and counts a run of one command
// without a map search: binary and empty arguments arrive intact, and every command is counted
// under its name (EVALSHA under its script's, in any letter case).
TEST(RedisMultiplex, CommandsAreWrittenByteExactAndCountedByName) {
  redis_server s;
  connection a(s.parsed_url());
  const std::size_t script = a.add_script("echo", "return ARGV[1]");
  const std::string odd("a\r\nb\0c$*", 8), big(100'000, 'x');
  std::vector<delivered> got;
  std::vector<failure> failed;
  {
    multiplexer mux({&a});
    mux.append(0, {"ZADD", "mux:bin", "1", odd}, 1);
    mux.append(0, {"ZADD", "mux:bin", "2", ""}, 2);
    mux.append(0, {"ZADD", "mux:bin", "3", big}, 3);
    mux.append(0, {"ZRANGE", "mux:bin", "0", "-1"}, 4);
    for (std::uint64_t t = 5; t < 8; ++t)
      mux.append(
          0, a.evalsha_args(script, std::vector<std::string>{}, std::vector<std::string>{odd}), t);
    auto lower = a.evalsha_args(script, std::vector<std::string>{}, std::vector<std::string>{""});
    lower[0] = "evalsha";
    mux.append(0, std::move(lower), 8);
    mux.append(0, {"EVALSHA", std::string(40, '0'), "0"}, 9);  // NOSCRIPT: no name
    drain(mux, got, failed);
  }
  ASSERT_TRUE(failed.empty()) << failed[0].what;
  ASSERT_EQ(got.size(), 9u);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(got[i].r.integer, 1) << i;
  ASSERT_EQ(got[3].r.elements.size(), 3u);
  EXPECT_EQ(got[3].r.elements[0].str, odd);
  EXPECT_EQ(got[3].r.elements[1].str, "");
  EXPECT_EQ(got[3].r.elements[2].str, big);
  for (std::size_t i = 4; i < 7; ++i) EXPECT_EQ(got[i].r.str, odd) << i;
  EXPECT_EQ(got[7].r.type, reply::kind::string);
  EXPECT_EQ(got[7].r.str, "");
  EXPECT_EQ(got[8].r.type, reply::kind::error);
  const auto& sent = a.stats().sent;
  EXPECT_EQ(sent.at("ZADD"), 3u);
  EXPECT_EQ(sent.at("ZRANGE"), 1u);
  EXPECT_EQ(sent.at("EVALSHA echo"), 4u);
  EXPECT_EQ(sent.at("EVALSHA"), 1u);
}

TEST(RedisMultiplex, AConnectionTheServerClosesFailsAloneWithItsCommands) {
  redis_server s;
  connection a(s.parsed_url()), b(s.parsed_url()), control(s.parsed_url());
  const long long id_a = a.call({"CLIENT", "ID"}).integer;
  std::vector<delivered> got;
  std::vector<failure> failed;
  multiplexer mux({&a, &b});
  // a waits in a BLPOP that nothing will answer, then PING behind it: both lost when the
  // server closes a. b is unaffected.
  mux.append(0, {"BLPOP", "mux:nothing", "0"}, 1);
  mux.append(0, {"PING"}, 2);
  mux.append(1, {"PING"}, 3);
  for (int i = 0; i < 20 && got.empty(); ++i) step_once(mux, got, failed, 50ms);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].tag, 3u);
  EXPECT_EQ(control.call({"CLIENT", "KILL", "ID", std::to_string(id_a)}).integer, 1);
  drain(mux, got, failed);
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].conn, 0u);
  EXPECT_EQ(failed[0].kind, waitroom::redis::error_kind::connection) << failed[0].what;
  EXPECT_EQ(failed[0].lost, (std::vector<std::uint64_t>{1, 2}));
  EXPECT_FALSE(mux.alive(0));
  EXPECT_TRUE(mux.alive(1));
  EXPECT_THROW(mux.append(0, {"PING"}), std::logic_error);
  // The other connection goes on.
  mux.append(1, {"PING"}, 4);
  drain(mux, got, failed);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[1].tag, 4u);
  EXPECT_EQ(got[1].r.str, "PONG");
}

TEST(RedisMultiplex, NoReplyWithinTheTimeoutFailsTheConnectionAsATimeout) {
  redis_server s;
  waitroom::redis::connect_options o;
  o.timeout = 300ms;
  connection a(s.parsed_url(), o);
  std::vector<delivered> got;
  std::vector<failure> failed;
  multiplexer mux({&a});
  mux.append(0, {"BLPOP", "mux:nothing", "0"}, 7);  // never answered
  auto t0 = std::chrono::steady_clock::now();
  drain(mux, got, failed);
  auto took = std::chrono::steady_clock::now() - t0;
  EXPECT_TRUE(got.empty());
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].kind, waitroom::redis::error_kind::timeout) << failed[0].what;
  EXPECT_EQ(failed[0].lost, std::vector<std::uint64_t>{7});
  EXPECT_NE(failed[0].what.find("300 ms"), std::string::npos) << failed[0].what;
  EXPECT_GE(took, 300ms);
  EXPECT_LT(took, 5s);
}

// Redis stopped (SIGTERM) and started again on the same socket: a connection with
// connect_options::reconnect is retried with its backoff while the multiplexer goes on, then
// every command without a reply is sent again and answered under its first tag, in order.
TEST(RedisMultiplex, AConnectionBrokenByARestartIsReconnectedAndItsCommandsResent) {
  redis_server s({"--appendonly", "yes", "--appendfsync", "always"});
  waitroom::redis::connect_options o;
  o.reconnect = true;
  o.timeout = 5s;  // longer than the BLPOP below is left waiting
  o.give_up_after = 10s;
  connection a(s.parsed_url(), o), b(s.parsed_url(), o);
  std::vector<delivered> got;
  std::vector<failure> failed;
  multiplexer mux({&a, &b});
  // a: a BLPOP the server will not answer before it stops, then an ECHO behind it.
  mux.append(0, {"BLPOP", "mux:k", "0"}, 1);
  mux.append(0, {"ECHO", "two"}, 2);
  mux.append(1, {"ECHO", "three"}, 3);
  for (int i = 0; i < 40 && got.empty(); ++i) step_once(mux, got, failed, 50ms);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].tag, 3u);
  {
    waitroom::testing_support::restart_later restart(s, 300ms);
    auto end = std::chrono::steady_clock::now() + 10s;
    while (a.stats().reconnects == 0 && std::chrono::steady_clock::now() < end)
      step_once(mux, got, failed, 100ms);
    ASSERT_EQ(a.stats().reconnects, 1u);
    EXPECT_TRUE(mux.alive(0));
    EXPECT_FALSE(mux.reconnecting(0));
    EXPECT_EQ(a.stats().replayed, 2u);  // the BLPOP and the ECHO, sent again
    EXPECT_GE(a.stats().gap_ns, 250'000'000);
    ASSERT_EQ(a.stats().outages.size(), 1u);
    // The BLPOP waits again on the new server: answer it.
    connection control(s.parsed_url());
    EXPECT_EQ(control.call({"LPUSH", "mux:k", "x"}).integer, 1);
    // b broke too, with nothing in flight: its next command finds out and is resent.
    mux.append(1, {"ECHO", "four"}, 4);
    drain(mux, got, failed);
  }
  EXPECT_TRUE(failed.empty()) << failed.front().what;
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got[1].tag, 1u);
  ASSERT_EQ(got[1].r.elements.size(), 2u);
  EXPECT_EQ(got[1].r.elements[1].str, "x");
  EXPECT_TRUE(got[1].r.replayed);
  EXPECT_EQ(got[2].tag, 2u);
  EXPECT_EQ(got[2].r.str, "two");
  EXPECT_TRUE(got[2].r.replayed);
  EXPECT_EQ(got[3].tag, 4u);
  EXPECT_EQ(got[3].r.str, "four");
  EXPECT_EQ(b.stats().reconnects, 1u);
  EXPECT_EQ(waitroom::redis::outage_union_ns(
                {{0, 10}, {5, 20}, {30, 40}, {35, 38}}),  // overlaps counted once
            30);
}

TEST(RedisMultiplex, AServerThatNeverComesBackFailsTheConnectionAfterItsBudget) {
  redis_server s;
  waitroom::redis::connect_options o;
  o.reconnect = true;
  o.timeout = 300ms;
  o.give_up_after = 1s;
  connection a(s.parsed_url(), o);
  std::vector<delivered> got;
  std::vector<failure> failed;
  multiplexer mux({&a});
  s.stop();
  mux.append(0, {"ECHO", "lost"}, 9);
  auto t0 = std::chrono::steady_clock::now();
  drain(mux, got, failed);
  auto took = std::chrono::steady_clock::now() - t0;
  EXPECT_TRUE(got.empty());
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].kind, waitroom::redis::error_kind::connection) << failed[0].what;
  EXPECT_NE(failed[0].what.find("not back after"), std::string::npos) << failed[0].what;
  EXPECT_EQ(failed[0].lost, std::vector<std::uint64_t>{9});
  EXPECT_FALSE(mux.alive(0));
  EXPECT_GE(took, 500ms);
  EXPECT_LT(took, 5s);
}

// Load mode over a small scenario: one client thread or two, the same commands requested and
// completed (the stream is the generator's, whatever the thread layout).
TEST(RedisMultiplex, LoadCountsAreTheSameWithOneThreadOrTwo) {
  redis_server s;
  const std::string scenario = waitroom::testing_support::shipped_scenario("concert_polling");
  auto once = [&](unsigned threads) {
    auto r = waitroom::testing_support::run(
        "load " + scenario + " --redis " + s.url() +
        " --set /arrivals/segments/0/duration_s=2 --speed asap --clients 4 --threads " +
        std::to_string(threads) + " --format json");
    EXPECT_EQ(r.code, 0) << r.out;
    return nlohmann::json::parse(r.out);
  };
  auto one = once(1), two = once(2);
  EXPECT_EQ(one["threads"], 1);
  EXPECT_EQ(two["threads"], 2);
  EXPECT_GT(one["users"].get<int>(), 6000);
  EXPECT_EQ(one["users"], two["users"]);
  EXPECT_EQ(one["simulated_s"], two["simulated_s"]);
  ASSERT_EQ(one["commands"].size(), two["commands"].size());
  for (const auto& [name, c] : one["commands"].items()) {
    const auto& d = two["commands"][name];
    EXPECT_EQ(c["requested"], d["requested"]) << name;
    EXPECT_EQ(c["completed"], c["requested"]) << name;
    EXPECT_EQ(d["completed"], d["requested"]) << name;
    EXPECT_EQ(c["errors"], 0) << name;
    EXPECT_EQ(d["errors"], 0) << name;
    EXPECT_EQ(c["timeouts"], 0) << name;
    EXPECT_EQ(d["timeouts"], 0) << name;
  }
  for (const auto* j : {&one, &two}) {
    EXPECT_EQ((*j)["releases"]["requested"], one["releases"]["requested"]);
    EXPECT_EQ((*j)["releases"]["duplicated"], 0);
    EXPECT_LE((*j)["releases"]["handed_out"], (*j)["releases"]["requested"]);
  }
  EXPECT_EQ(s.dbsize(), 0);
  // More threads than connections: bad input naming the flag.
  auto many = waitroom::testing_support::run("load " + scenario + " --redis " + s.url() +
                                             " --clients 2 --threads 3");
  EXPECT_EQ(many.code, 2) << many.out;
  EXPECT_NE(many.out.find("--threads: expected at most --clients (2)"), std::string::npos)
      << many.out;
}

}  // namespace
