// Concurrent releasers (Lua: none duplicated or lost; ZRANGE-then-ZREM: duplicates) and
// signed tokens (forged or altered ones are never accepted).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "redis/releasers.hpp"
#include "redis/scripts.hpp"
#include "redis/signed_token.hpp"
#include "redis_server.hpp"
#include "sim/random.hpp"

namespace {

using namespace waitroom::redis;
using waitroom::testing_support::redis_server;

std::uint64_t env_or(const char* name, std::uint64_t dflt) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::strtoull(v, nullptr, 10) : dflt;
}

TEST(RedisReleasers, TheLuaScriptNeitherDuplicatesNorLoses) {
  redis_server s;
  releasers_options o;
  o.users = env_or("WAITROOM_RELEASERS_USERS", 100'000);
  o.releasers = 8;
  o.batch = 100;
  o.atomic = true;
  auto r = run_concurrent_releasers(s.parsed_url(), key_layout{new_run_id()}, o);
  EXPECT_EQ(r.duplicated, 0u);
  EXPECT_EQ(r.lost, 0u);
  EXPECT_EQ(r.distinct, o.users);
  EXPECT_EQ(r.released_set, o.users);
  EXPECT_EQ(r.left_in_list, 0u);
  EXPECT_GE(r.releases, o.users / o.batch);
  std::printf("Lua release: %llu users, %u releasers, %llu releases: %llu duplicated, %llu lost\n",
              static_cast<unsigned long long>(o.users), o.releasers,
              static_cast<unsigned long long>(r.releases),
              static_cast<unsigned long long>(r.duplicated),
              static_cast<unsigned long long>(r.lost));
}

TEST(RedisReleasers, ZrangeThenZremAdmitsUsersTwice) {
  redis_server s;
  releasers_options o;
  o.users = 100'000;
  o.releasers = 8;
  o.batch = 100;
  o.atomic = false;
  auto r = run_concurrent_releasers(s.parsed_url(), key_layout{new_run_id()}, o);
  EXPECT_GT(r.duplicated, 0u) << "8 releasers over " << r.releases << " releases";
  EXPECT_EQ(r.handed_out, r.distinct + r.duplicated);
  EXPECT_EQ(r.lost, 0u);  // ZRANGE sees everyone eventually; the harm is the repeats
  EXPECT_EQ(r.released_set, o.users);
  std::printf(
      "ZRANGE then ZREM: %llu users, %u releasers, %llu releases: %llu duplicated, %llu "
      "lost\n",
      static_cast<unsigned long long>(o.users), o.releasers,
      static_cast<unsigned long long>(r.releases), static_cast<unsigned long long>(r.duplicated),
      static_cast<unsigned long long>(r.lost));
}

// A list of n members, scores 0..n-1, on a fresh connection; returns them in order.
std::vector<std::string> fill(const redis_server& s, const key_layout& keys, std::uint64_t n) {
  connection c(s.parsed_url());
  std::vector<std::string> cmd{"ZADD", keys.list(0)}, members;
  for (std::uint64_t i = 0; i < n; ++i) {
    members.push_back(hex_token(i));
    cmd.push_back(std::to_string(i));
    cmd.push_back(members.back());
  }
  c.call(std::span<const std::string>(cmd));
  return members;
}

// A release replayed after a reconnect (the same id again) returns the logged members and
// takes nobody more; a new id takes the next ones and forgets the id a window before it.
TEST(RedisReleasers, AReleaseIdMakesAReplayedReleaseTakeNobodyTwice) {
  redis_server s;
  const key_layout keys{new_run_id()};
  auto members = fill(s, keys, 100);
  connection c(s.parsed_url());
  auto script = c.add_script("release", waitroom::redis::scripts::release);
  auto first = release_once(c, script, keys, keys.list(0), 0, 10, 3, true, 5, 4);
  auto again = release_once(c, script, keys, keys.list(0), 0, 10, 3, true, 5, 4);
  EXPECT_EQ(first, std::vector<std::string>(members.begin(), members.begin() + 10));
  EXPECT_EQ(again, first);
  EXPECT_EQ(c.call({"ZCARD", keys.list(0)}).integer, 90);
  EXPECT_EQ(c.call({"SCARD", keys.released()}).integer, 10);
  auto next = release_once(c, script, keys, keys.list(0), 0, 10, 3, true, 6, 4);
  EXPECT_EQ(next, std::vector<std::string>(members.begin() + 10, members.begin() + 20));
  // Id 6 forgot id 2 (6 - 4), kept 5 and 6 under releaser 3's log.
  EXPECT_EQ(c.call({"HEXISTS", keys.release_log(3), "5"}).integer, 1);
  EXPECT_EQ(c.call({"HLEN", keys.release_log(3)}).integer, 2);
  EXPECT_EQ(c.call({"ZCARD", keys.list(0)}).integer, 80);
}

// The releaser pool across a restart (SIGTERM, AOF always): every releaser's connection
// reconnects, the release hands out exactly the first members once, and the pool tells its
// owner (the mirror then compares Redis's state with the model's).
TEST(RedisReleasers, ThePoolReconnectsAcrossARestartAndSaysSo) {
  redis_server s({"--appendonly", "yes", "--appendfsync", "always"});
  const key_layout keys{new_run_id()};
  auto members = fill(s, keys, 1000);
  connect_options o;
  o.reconnect = true;
  o.timeout = std::chrono::milliseconds(1000);
  o.give_up_after = std::chrono::milliseconds(10000);
  releaser_pool pool(s.parsed_url(), keys, 4, true, o);
  int told = 0;
  pool.on_reconnect([&] { ++told; });
  const auto parts = split_release(100, 4);
  auto before = pool.release(keys.list(0), 0, parts);
  EXPECT_EQ(told, 0);
  {
    waitroom::testing_support::restart_later restart(s, std::chrono::milliseconds(300));
    auto got = pool.release(keys.list(0), 0, parts);
    std::vector<std::string> all;
    for (const auto& g : got) all.insert(all.end(), g.begin(), g.end());
    std::sort(all.begin(), all.end());
    EXPECT_EQ(all, std::vector<std::string>(members.begin() + 100, members.begin() + 200));
    EXPECT_EQ(told, 1);
    const auto st = pool.stats();
    EXPECT_EQ(st.reconnects, 4u);
    EXPECT_GE(st.gap_ns, 4 * 250'000'000LL);
    std::printf("pool across a restart: %llu reconnects, gaps %.3f s in all, %llu replayed\n",
                static_cast<unsigned long long>(st.reconnects),
                static_cast<double>(st.gap_ns) * 1e-9,
                static_cast<unsigned long long>(st.replayed));
    connection c(s.parsed_url());
    EXPECT_EQ(c.call({"ZCARD", keys.list(0)}).integer, 800);
    EXPECT_EQ(c.call({"SCARD", keys.released()}).integer, 200);
    // Each releaser logged its two releases by id.
    for (std::uint32_t r = 1; r <= 4; ++r)
      EXPECT_EQ(c.call({"HLEN", keys.release_log(r)}).integer, 2) << r;
  }
  EXPECT_EQ(before.size(), 4u);
}

// WAITROOM_TOKEN_KEY set for the scope of one test, restored after (a deployment's key must not
// change what a test checks).
class scoped_token_key {
 public:
  explicit scoped_token_key(const char* value) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value, 1);
  }
  ~scoped_token_key() {
    if (old_)
      ::setenv(name, old_->c_str(), 1);
    else
      ::unsetenv(name);
  }
  scoped_token_key(const scoped_token_key&) = delete;
  scoped_token_key& operator=(const scoped_token_key&) = delete;

 private:
  static constexpr const char* name = "WAITROOM_TOKEN_KEY";
  std::optional<std::string> old_;
};

constexpr const char* some_key = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

TEST(SignedTokens, GenuineOnesVerify) {
  auto signer = token_signer::random();
  for (std::uint64_t i = 0; i < 1000; ++i) {
    auto t = waitroom::sim::mix64(i);
    auto m = signer.sign(t);
    ASSERT_EQ(m.size(), token_signer::member_size);
    ASSERT_EQ(m.substr(0, 16), hex_token(t));
    ASSERT_EQ(signer.verify(m), t);
  }
}

// The environment's key is the deployment's; random() ignores it, from_env_or_random() uses it.
TEST(SignedTokens, RandomKeysIgnoreTheEnvironmentsKey) {
  scoped_token_key env(some_key);
  const auto a = token_signer::random(), b = token_signer::random();
  EXPECT_NE(a.sign(42), b.sign(42));
  EXPECT_FALSE(b.verify(a.sign(42)));
  EXPECT_EQ(token_signer::from_env_or_random().sign(42),
            token_signer::from_env_or_random().sign(42));
}

// Run with WAITROOM_TOKEN_KEY set on purpose: "signed with another key" must still be another
// key (the test once took both keys from the environment and then accepted those).
TEST(SignedTokens, AMillionForgedOrAlteredTokensAreAllRejected) {
  scoped_token_key env(some_key);
  auto signer = token_signer::random();
  auto other = token_signer::random();  // an attacker's own key
  waitroom::sim::rng r(11);
  std::uint64_t accepted = 0;
  const std::uint64_t n = 1'000'000;
  for (std::uint64_t i = 0; i < n; ++i) {
    std::uint64_t t = r.next();
    std::string m = signer.sign(t);
    switch (i % 5) {
      case 0: {  // someone else's place: a genuine tag on another token
        std::string victim = hex_token(t ^ (1ull << r.below(64)));
        m.replace(0, 16, victim);
        break;
      }
      case 1: {  // one character of the tag changed
        auto pos = 17 + r.below(64);
        m[pos] = m[pos] == '0' ? '1' : '0';
        break;
      }
      case 2:  // signed with another key
        m = other.sign(t);
        break;
      case 3:  // a made-up tag
        for (std::size_t k = 17; k < m.size(); ++k) m[k] = "0123456789abcdef"[r.below(16)];
        break;
      default:  // truncated, or upper case hex
        m = (i % 2 == 0) ? m.substr(0, m.size() - 1) : std::string(m.begin(), m.end());
        if (i % 2 != 0)
          for (auto& ch : m)
            if (ch >= 'a' && ch <= 'f') ch = static_cast<char>(ch - 'a' + 'A');
        if (m == signer.sign(t)) m[20] = '.';  // all-digit member: alter it another way
        break;
    }
    if (signer.verify(m)) ++accepted;
  }
  EXPECT_EQ(accepted, 0u);
}

}  // namespace
