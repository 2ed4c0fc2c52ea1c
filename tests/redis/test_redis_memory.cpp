// The Redis memory estimate (models/queues/redis_memory.hpp) against INFO memory.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "models/queues/redis_memory.hpp"
#include "redis/keys.hpp"
#include "redis/signed_token.hpp"
#include "redis_server.hpp"
#include "sim/random.hpp"

namespace {

using namespace waitroom::redis;
namespace rm = waitroom::models::redis_memory;
using waitroom::testing_support::redis_server;

std::int64_t used_memory(connection& c) {
  auto info = c.call({"INFO", "memory"}).str;
  auto at = info.find("used_memory:");
  return std::stoll(info.substr(at + 12));
}

// Adds n members to a sorted set (or a set) and returns the growth of used_memory, once
// Redis has finished rehashing its dict (the old table is freed then).
double measured(connection& c, const std::string& key, std::uint64_t n, bool zset,
                const token_signer* signer) {
  auto before = used_memory(c);
  for (std::uint64_t i = 0; i < n;) {
    std::vector<std::string> cmd{zset ? "ZADD" : "SADD", key};
    for (std::uint64_t j = 0; j < 1000 && i < n; ++j, ++i) {
      std::uint64_t t = waitroom::sim::mix64(i);
      if (zset) cmd.push_back(std::to_string(i / 100));  // ties, as at ms precision
      cmd.push_back(signer != nullptr ? signer->sign(t) : hex_token(t));
    }
    c.call(std::span<const std::string>(cmd));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // serverCron finishes rehashing
  return static_cast<double>(used_memory(c) - before);
}

std::uint64_t sizes() {
  const char* v = std::getenv("WAITROOM_MEMORY_USERS");
  return v != nullptr ? std::strtoull(v, nullptr, 10) : 100'000;
}

TEST(RedisMemory, SortedSetOfHexTokensWithinTenPercent) {
  redis_server s;
  connection c(s.parsed_url());
  auto n = sizes();
  double live = measured(c, "z", n, true, nullptr);
  double est = rm::zset_bytes(n, rm::hex_member_len);
  RecordProperty("bytes_per_member_live", std::to_string(live / static_cast<double>(n)));
  RecordProperty("bytes_per_member_estimate", std::to_string(est / static_cast<double>(n)));
  EXPECT_NEAR(est / live, 1.0, 0.10) << "live " << live << " estimate " << est;
  std::printf("%s n=%llu live %.1f estimate %.1f bytes/member ratio %.4f\n",
              ::testing::UnitTest::GetInstance()->current_test_info()->name(),
              static_cast<unsigned long long>(n), live / static_cast<double>(n),
              est / static_cast<double>(n), est / live);
}

TEST(RedisMemory, SortedSetOfSignedTokensWithinTenPercent) {
  redis_server s;
  connection c(s.parsed_url());
  auto signer = token_signer::random();
  auto n = sizes();
  double live = measured(c, "z", n, true, &signer);
  double est = rm::zset_bytes(n, rm::signed_member_len);
  EXPECT_NEAR(est / live, 1.0, 0.10) << "live " << live << " estimate " << est;
  std::printf("%s n=%llu live %.1f estimate %.1f bytes/member ratio %.4f\n",
              ::testing::UnitTest::GetInstance()->current_test_info()->name(),
              static_cast<unsigned long long>(n), live / static_cast<double>(n),
              est / static_cast<double>(n), est / live);
}

TEST(RedisMemory, ReleasedSetWithinTenPercent) {
  redis_server s;
  connection c(s.parsed_url());
  auto n = sizes();
  double live = measured(c, "released", n, false, nullptr);
  double est = rm::set_bytes(n, rm::hex_member_len);
  EXPECT_NEAR(est / live, 1.0, 0.10) << "live " << live << " estimate " << est;
  std::printf("%s n=%llu live %.1f estimate %.1f bytes/member ratio %.4f\n",
              ::testing::UnitTest::GetInstance()->current_test_info()->name(),
              static_cast<unsigned long long>(n), live / static_cast<double>(n),
              est / static_cast<double>(n), est / live);
}

}  // namespace
