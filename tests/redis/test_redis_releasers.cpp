// Concurrent releasers (Lua: none duplicated or lost; ZRANGE-then-ZREM: duplicates) and
// signed tokens (forged or altered ones are never accepted).
#include <cstdio>
#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

#include "redis/releasers.hpp"
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

TEST(SignedTokens, GenuineOnesVerify) {
  auto signer = token_signer::from_env_or_random();
  for (std::uint64_t i = 0; i < 1000; ++i) {
    auto t = waitroom::sim::mix64(i);
    auto m = signer.sign(t);
    ASSERT_EQ(m.size(), token_signer::member_size);
    ASSERT_EQ(m.substr(0, 16), hex_token(t));
    ASSERT_EQ(signer.verify(m), t);
  }
}

TEST(SignedTokens, AMillionForgedOrAlteredTokensAreAllRejected) {
  auto signer = token_signer::from_env_or_random();
  auto other = token_signer::from_env_or_random();  // an attacker's own key
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
