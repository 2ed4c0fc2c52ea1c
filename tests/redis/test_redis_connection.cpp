// The connection: URLs, and one clear error of its own kind for each way it can fail.
#include <signal.h>

#include <chrono>
#include <string>

#include <gtest/gtest.h>

#include "redis/connection.hpp"
#include "redis/keys.hpp"
#include "redis/mirror.hpp"
#include "redis/report.hpp"
#include "redis/scripts.hpp"
#include "redis_server.hpp"

namespace {

using namespace waitroom::redis;
using waitroom::testing_support::redis_server;

error_kind kind_of(const auto& f) {
  try {
    f();
  } catch (const redis_error& e) {
    return e.kind();
  }
  ADD_FAILURE() << "no redis_error thrown";
  return error_kind::reply;
}

std::string message_of(const auto& f) {
  try {
    f();
  } catch (const redis_error& e) {
    return e.what();
  }
  return "no error";
}

TEST(RedisUrl, ParsesEveryForm) {
  auto a = parse_url("redis://alice:s3cr%40t@cache.example:6380/2");
  EXPECT_EQ(a.kind, redis_url::transport::tcp);
  EXPECT_EQ(a.user, "alice");
  EXPECT_EQ(a.password, "s3cr@t");
  EXPECT_EQ(a.host, "cache.example");
  EXPECT_EQ(a.port, 6380);
  EXPECT_EQ(a.db, 2);
  auto b = parse_url("redis://localhost");
  EXPECT_EQ(b.port, 6379);
  EXPECT_EQ(b.db, 0);
  EXPECT_TRUE(b.user.empty());
  auto c = parse_url("redis://:pw@[::1]:7000");
  EXPECT_EQ(c.host, "::1");
  EXPECT_EQ(c.port, 7000);
  EXPECT_EQ(c.password, "pw");
  auto d = parse_url("unix:///run/redis/redis.sock?db=3");
  EXPECT_EQ(d.kind, redis_url::transport::unix_socket);
  EXPECT_EQ(d.path, "/run/redis/redis.sock");
  EXPECT_EQ(d.db, 3);
}

TEST(RedisUrl, PasswordFromTheEnvironmentUnlessTheUrlHasOne) {
  EXPECT_EQ(parse_url("redis://h", "fromenv").password, "fromenv");
  EXPECT_EQ(parse_url("redis://:inurl@h", "fromenv").password, "inurl");
}

TEST(RedisUrl, NeverShowsThePassword) {
  auto u = parse_url("redis://bob:hunter2@h:1/4");
  EXPECT_EQ(u.describe(), "redis://bob:***@h:1/4");
  std::string m = message_of([] { parse_url("redis://bob:hunter2@h:notaport"); });
  EXPECT_EQ(m.find("hunter2"), std::string::npos) << m;
  EXPECT_NE(m.find("port"), std::string::npos) << m;
  EXPECT_NE(m.find("'notaport'"), std::string::npos) << m;
}

TEST(RedisUrl, BadUrlsNameWhatWasExpected) {
  for (const char* bad :
       {"localhost:6379", "http://h", "redis://", "redis://h:0", "redis://h:99999", "redis://h/x",
        "unix://relative.sock", "unix:///s?db=x", "redis://[::1", "redis://u:%zz@h"}) {
    EXPECT_EQ(kind_of([&] { parse_url(bad); }), error_kind::bad_url) << bad;
  }
  EXPECT_NE(message_of([] { parse_url("http://h"); }).find("scheme 'http'"), std::string::npos);
}

TEST(RedisConnection, RefusedWhenNothingListens) {
  redis_server s;
  std::string dead = s.dir() + "/nobody.sock";
  EXPECT_EQ(kind_of([&] { connection c(parse_url("unix://" + dead)); }), error_kind::refused);
  // TCP port 1 on loopback: nothing listens there.
  std::string m = message_of([] { connection c(parse_url("redis://127.0.0.1:1")); });
  EXPECT_NE(m.find("connection refused"), std::string::npos) << m;
}

TEST(RedisConnection, UnknownHost) {
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(kind_of([] { connection c(parse_url("redis://no-such-host.invalid:6379")); }),
            error_kind::unknown_host);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(30));
}

TEST(RedisConnection, WrongOrMissingPassword) {
  redis_server s({"--requirepass", "correct-horse"});
  auto u = s.parsed_url();
  u.password = "wrong-battery";
  std::string m = message_of([&] { connection c(u); });
  EXPECT_EQ(kind_of([&] { connection c(u); }), error_kind::auth);
  EXPECT_EQ(m.find("wrong-battery"), std::string::npos) << m;
  u.password.clear();
  EXPECT_EQ(kind_of([&] { connection c(u); }), error_kind::auth);
  u.password = "correct-horse";
  connection ok(u);
  EXPECT_EQ(ok.call({"PING"}).str, "PONG");
}

TEST(RedisConnection, OutOfMemoryIsItsOwnError) {
  redis_server s({"--maxmemory", "2mb", "--maxmemory-policy", "noeviction"});
  connection c(s.parsed_url());
  key_layout keys{new_run_id()};
  redis_mirror m(c, keys);
  std::string what;
  try {
    for (std::uint64_t i = 0; i < 1'000'000; ++i) m.enter(0, i, static_cast<double>(i), 0);
    m.round_end(0);
  } catch (const redis_error& e) {
    EXPECT_EQ(e.kind(), error_kind::oom);
    what = e.what();
  }
  EXPECT_NE(what.find("OOM command not allowed"), std::string::npos) << what;
  EXPECT_NE(what.find("maxmemory"), std::string::npos) << what;
}

TEST(RedisConnection, ScriptErrors) {
  redis_server s;
  connection c(s.parsed_url());
  EXPECT_EQ(kind_of([&] { c.add_script("broken", "return {"); }), error_kind::script);
  auto i = c.add_script("fails", "return redis.call('NOSUCHCOMMAND')");
  auto cmd = c.evalsha_args(i, {}, {});
  EXPECT_EQ(kind_of([&] { c.call(std::span<const std::string>(cmd)); }), error_kind::script);
}

TEST(RedisConnection, KeyOfTheWrongTypeAlreadyThere) {
  redis_server s;
  connection c(s.parsed_url());
  key_layout keys{new_run_id()};
  c.call({"SET", keys.list(0), "a string"});
  redis_mirror m(c, keys);
  std::string what;
  try {
    m.enter(0, 42, 1.0, 0);
    m.round_end(0);
  } catch (const redis_error& e) {
    EXPECT_EQ(e.kind(), error_kind::wrong_type);
    what = e.what();
  }
  EXPECT_NE(what.find(keys.list(0)), std::string::npos) << what;
}

TEST(RedisConnection, EveryCallHasATimeout) {
  redis_server s;
  connect_options o;
  o.timeout = std::chrono::milliseconds(200);
  connection c(s.parsed_url(), o);
  ::kill(s.pid(), SIGSTOP);  // the server hangs
  auto t0 = std::chrono::steady_clock::now();
  error_kind k = kind_of([&] { c.call({"PING"}); });
  auto spent = std::chrono::steady_clock::now() - t0;
  ::kill(s.pid(), SIGCONT);
  EXPECT_EQ(k, error_kind::timeout);
  EXPECT_LT(spent, std::chrono::seconds(2));
}

TEST(RedisConnection, KeysAreUnderTheRunPrefixAndDeletedAtTheEnd) {
  redis_server s;
  connection c(s.parsed_url());
  c.call({"SET", "someone-else", "x"});
  key_layout keys{new_run_id()};
  EXPECT_EQ(keys.list(3), "waitroom:{" + keys.run_id + "}:list:3");
  redis_mirror m(c, keys);
  for (std::uint64_t i = 0; i < 5000; ++i) m.enter(static_cast<std::uint32_t>(i % 3), i, 1.0, 0);
  std::vector<std::uint64_t> first{0, 3};
  m.released(0, first, 1);
  m.finish(1);
  EXPECT_EQ(c.call({"DBSIZE"}).integer, 1 + 3 + 3);  // 3 lists, released, stats, log
  EXPECT_EQ(delete_keys(c, keys), 6u);
  EXPECT_EQ(c.call({"DBSIZE"}).integer, 1);  // only the other key is left
}

}  // namespace

namespace {

using namespace waitroom::redis;
using waitroom::testing_support::redis_server;

TEST(RedisReport, CountsCommandsAndSamplesMemoryWithoutThePassword) {
  redis_server s({"--requirepass", "pw-not-in-results"});
  auto u = s.parsed_url();
  u.password = "pw-not-in-results";
  connection c(u);
  key_layout keys{new_run_id()};
  redis_mirror m(c, keys);
  memory_sampler mem;
  for (std::uint64_t i = 0; i < 3000; ++i) m.enter(0, i, static_cast<double>(i), 0);
  m.round_end(0);
  mem.sample(c, 3000);
  std::vector<std::uint64_t> head{0, 1, 2};
  m.released(0, head, 1);
  m.round_end(1);
  mem.sample(c, 2997);
  auto j = redis_block(c.stats(), m.stats(), mem);
  EXPECT_EQ(j["commands"]["ZADD"], 3000);
  EXPECT_EQ(j["commands"]["EVALSHA release"], 1);
  EXPECT_EQ(j["released"], 3);
  EXPECT_GE(j["round_trips"].get<int>(), 3);
  EXPECT_GT(j["memory"]["peak_used_bytes"].get<std::int64_t>(), 0);
  EXPECT_EQ(j["memory"]["samples"], 2);
  EXPECT_EQ(j.dump().find("pw-not-in-results"), std::string::npos);
  auto info = info_memory(c);
  EXPECT_GE(info.used_memory_peak, info.used_memory);
}

}  // namespace
