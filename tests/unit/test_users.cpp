// The per-user tables: derived tokens and scores under each ordering, the credit bit, lists,
// and blocks freed once every user in them has left.
#include <gtest/gtest.h>

#include <cstdint>

#include "models/scores/score_policy.hpp"
#include "models/users/users.hpp"
#include "sim/random.hpp"
#include "sim/serial_table.hpp"

using namespace waitroom;
using models::users;

namespace {

constexpr std::uint64_t token_salt = 0x1234, noise_salt = 0x5678;

models::score_policy offset_policy() {
  models::score_policy p;
  p.order = models::ordering::offset;
  p.unit = models::time_unit::ms;
  p.offset_units = {10000, 0, 60000};  // vip, normal, and the credit as a third "class"
  return p;
}

}  // namespace

TEST(Users, SerialsCountUpAndTablesHoldWhatWasAdded) {
  const auto p = offset_policy();
  users u(p, 2, token_salt, noise_salt);
  EXPECT_EQ(u.next(), 0u);
  EXPECT_EQ(u.add(1'500'000'000, 1, false), 0u);
  EXPECT_EQ(u.add(2'000'000'000, 0, false), 1u);
  EXPECT_EQ(u.next(), 2u);
  EXPECT_EQ(u.entry_ns(0), 1'500'000'000);
  EXPECT_EQ(u.cls(0), 1u);
  EXPECT_EQ(u.cls(1), 0u);
  EXPECT_TRUE(u.alive(0));
  // Not in a list until one is set.
  EXPECT_EQ(u.list_of(0), users::no_list);
  EXPECT_FALSE(u.waiting(0));
  u.set_list(0, 3);
  EXPECT_EQ(u.list_of(0), 3u);
  EXPECT_TRUE(u.waiting(0));
  u.set_list(0, users::no_list);
  EXPECT_FALSE(u.waiting(0));
}

TEST(Users, TokenIsTheSaltedHashOfTheSerial) {
  const auto p = offset_policy();
  users u(p, 2, token_salt, noise_salt);
  u.add(0, 0, false);
  u.add(0, 0, false);
  EXPECT_EQ(u.token_of(0), sim::mix64(0 ^ token_salt));
  EXPECT_EQ(u.token_of(1), sim::mix64(1 ^ token_salt));
  EXPECT_NE(u.token_of(0), u.token_of(1));
  users other(p, 2, token_salt + 1, noise_salt);
  other.add(0, 0, false);
  EXPECT_NE(other.token_of(0), u.token_of(0));  // another replication, other tokens
}

TEST(Users, OffsetScoreIsTruncatedTimeMinusTheClassOffset) {
  const auto p = offset_policy();
  users u(p, 2, token_salt, noise_salt);
  u.add(1'500'999'999, 1, false);  // 1500.999999 ms truncates to 1500
  u.add(2'000'000'000, 0, false);  // vip: 2000 - 10000
  EXPECT_DOUBLE_EQ(u.score_of(0), 1500.0);
  EXPECT_DOUBLE_EQ(u.score_of(1), -8000.0);
}

TEST(Users, BoostedScoresAsTheCreditClassAndKeepsItsClass) {
  const auto p = offset_policy();
  users u(p, 2, token_salt, noise_salt);
  u.add(5'000'000'000, 1, true);   // entered with a credit
  u.add(5'000'000'000, 1, false);  // credited later, in place
  EXPECT_TRUE(u.boosted(0));
  EXPECT_EQ(u.cls(0), 1u);  // the bit does not leak into the class
  EXPECT_DOUBLE_EQ(u.score_of(0), 5000.0 - 60000.0);
  EXPECT_FALSE(u.boosted(1));
  EXPECT_DOUBLE_EQ(u.score_of(1), 5000.0);
  u.boost(1);
  EXPECT_TRUE(u.boosted(1));
  EXPECT_EQ(u.cls(1), 1u);
  EXPECT_DOUBLE_EQ(u.score_of(1), -55000.0);
  // The highest class a byte can hold with the bit beside it.
  u.add(0, 126, true);
  EXPECT_EQ(u.cls(2), 126u);
  EXPECT_TRUE(u.boosted(2));
}

TEST(Users, FifoAndLevelScores) {
  models::score_policy fifo;
  fifo.order = models::ordering::fifo;
  fifo.unit = models::time_unit::s;
  users f(fifo, 2, token_salt, noise_salt);
  f.add(7'900'000'000, 0, false);
  f.add(7'900'000'000, 1, false);
  EXPECT_DOUBLE_EQ(f.score_of(0), 7.0);  // whole seconds, class ignored
  EXPECT_DOUBLE_EQ(f.score_of(1), 7.0);

  models::score_policy level;
  level.order = models::ordering::level;
  level.unit = models::time_unit::us;
  level.level = {0, 1};
  users l(level, 2, token_salt, noise_salt);
  l.add(3'000'000, 1, false);  // 3000 us
  l.add(9'000'000, 0, false);
  EXPECT_DOUBLE_EQ(l.score_of(0), 1e13 + 3000.0);
  EXPECT_DOUBLE_EQ(l.score_of(1), 9000.0);
}

TEST(Users, NoiseIsTheUsersOwnHashedDraw) {
  auto p = offset_policy();
  p.noise = 1000;  // up to a second, in ms
  users u(p, 2, token_salt, noise_salt);
  u.add(2'000'000'000, 1, false);
  u.add(2'000'000'000, 1, false);
  const double u0 = sim::unit_from_hash(sim::mix64(0 ^ noise_salt));
  const double u1 = sim::unit_from_hash(sim::mix64(1 ^ noise_salt));
  EXPECT_DOUBLE_EQ(u.score_of(0), 2000.0 + 1000.0 * u0);
  EXPECT_DOUBLE_EQ(u.score_of(1), 2000.0 + 1000.0 * u1);
  EXPECT_NE(u.score_of(0), u.score_of(1));
  EXPECT_EQ(u.score_of(0), u.score_of(0));  // derived again, the same
}

TEST(Users, ABlockIsFreedWhenItsLastUserLeavesAfterTheNextBlockBegan) {
  const auto p = offset_policy();
  users u(p, 2, token_salt, noise_salt);
  sim::serial_table<std::uint32_t> extra;
  u.attach(&extra);
  constexpr std::uint32_t block = 1u << sim::serial_block_bits;
  for (std::uint32_t i = 0; i <= block; ++i) {  // the whole first block and one more
    ASSERT_EQ(u.add(i, 1, false), i);
    extra.push(i, i);
  }
  const std::size_t before = u.memory_bytes();
  for (std::uint32_t i = 0; i + 1 < block; ++i) u.retire(i);
  EXPECT_TRUE(u.alive(0));  // one user of the block is still there
  EXPECT_TRUE(extra.has(0));
  u.retire(block - 1);
  EXPECT_FALSE(u.alive(0));
  EXPECT_FALSE(u.alive(block - 1));
  EXPECT_FALSE(u.waiting(0));
  EXPECT_FALSE(extra.has(0));  // the attached table went with it
  EXPECT_TRUE(u.alive(block));
  EXPECT_TRUE(extra.has(block));
  // entry times (8 bytes), class and list (1 each) per user of the block
  EXPECT_EQ(before - u.memory_bytes(), std::size_t{block} * 10);
}

TEST(Users, ABlockEmptiedEarlyIsFreedWhenTheNextBlockBegins) {
  const auto p = offset_policy();
  users u(p, 2, token_salt, noise_salt);
  constexpr std::uint32_t block = 1u << sim::serial_block_bits;
  for (std::uint32_t i = 0; i < block; ++i) u.add(i, 0, false);
  for (std::uint32_t i = 0; i < block; ++i) u.retire(i);
  EXPECT_TRUE(u.alive(0));  // empty, but a later serial could still belong to it
  u.add(block, 0, false);
  EXPECT_FALSE(u.alive(0));
  EXPECT_TRUE(u.alive(block));
  EXPECT_EQ(u.entry_ns(block), block);
}
