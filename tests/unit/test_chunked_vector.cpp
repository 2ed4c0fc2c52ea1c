// The chunked vector: indexing across blocks, stable addresses, and memory in whole blocks.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "sim/chunked_vector.hpp"

using waitroom::sim::chunked_vector;

TEST(ChunkedVector, IndexesAcrossBlocksInPushOrder) {
  chunked_vector<std::uint32_t, 2> v;  // blocks of 4
  EXPECT_EQ(v.size(), 0u);
  for (std::uint32_t i = 0; i < 10; ++i) EXPECT_EQ(v.push_back(100 + i), i);
  EXPECT_EQ(v.size(), 10u);
  for (std::uint32_t i = 0; i < 10; ++i) EXPECT_EQ(v[i], 100 + i);
  v[5] = 7;  // writes go to the same element
  const auto& cv = v;
  EXPECT_EQ(cv[5], 7u);
  EXPECT_EQ(cv[4], 104u);
  EXPECT_EQ(cv[6], 106u);
}

TEST(ChunkedVector, AddressesStayPutWhenItGrows) {
  chunked_vector<std::uint64_t, 2> v;
  v.push_back(1);
  std::uint64_t* first = &v[0];
  v.push_back(2);
  v.push_back(3);
  v.push_back(4);
  std::uint64_t* fourth = &v[3];
  for (std::uint64_t i = 5; i <= 40; ++i) v.push_back(i);  // nine more blocks
  EXPECT_EQ(&v[0], first);
  EXPECT_EQ(&v[3], fourth);
  EXPECT_EQ(*first, 1u);
  EXPECT_EQ(*fourth, 4u);
  // Within a block the elements are contiguous; the next block is elsewhere.
  EXPECT_EQ(&v[1], first + 1);
  EXPECT_EQ(&v[37], &v[36] + 1);
}

TEST(ChunkedVector, EmplaceUninitializedTakesTheNextIndex) {
  struct rec {
    std::uint32_t a, b;
  };
  chunked_vector<rec, 1> v;  // blocks of 2
  const std::size_t i = v.emplace_uninitialized();
  EXPECT_EQ(i, 0u);
  v[i].a = 1;
  v[i].b = 2;
  EXPECT_EQ(v.push_back({3, 4}), 1u);
  const std::size_t k = v.emplace_uninitialized();  // the first of a second block
  EXPECT_EQ(k, 2u);
  v[k] = {5, 6};
  EXPECT_EQ(v.size(), 3u);
  EXPECT_EQ(v[0].b, 2u);
  EXPECT_EQ(v[1].a, 3u);
  EXPECT_EQ(v[2].b, 6u);
}

TEST(ChunkedVector, MemoryGrowsOneWholeBlockAtATime) {
  using vec = chunked_vector<std::uint64_t, 3>;  // blocks of 8 x 8 bytes
  constexpr std::size_t block_bytes = vec::block_size * sizeof(std::uint64_t);
  static_assert(vec::block_size == 8);
  vec v;
  EXPECT_EQ(v.memory_bytes(), 0u);
  // Counts the block bytes apart from the block table (a vector of pointers whose capacity
  // is the library's business): whole blocks only, one per 8 elements begun.
  auto blocks_in = [&](std::size_t mem, std::size_t blocks) {
    return mem >= blocks * block_bytes && mem <= blocks * block_bytes + 2 * blocks * sizeof(void*);
  };
  v.push_back(0);
  EXPECT_TRUE(blocks_in(v.memory_bytes(), 1)) << v.memory_bytes();
  for (int i = 1; i < 8; ++i) v.push_back(i);
  EXPECT_TRUE(blocks_in(v.memory_bytes(), 1)) << v.memory_bytes();  // full, no second block
  v.push_back(8);
  EXPECT_TRUE(blocks_in(v.memory_bytes(), 2)) << v.memory_bytes();
  for (int i = 9; i < 17; ++i) v.push_back(i);
  EXPECT_TRUE(blocks_in(v.memory_bytes(), 3)) << v.memory_bytes();
}

TEST(ChunkedVector, DefaultBlocksHoldAMillionValues) {
  chunked_vector<std::uint32_t> v;  // blocks of 2^14
  constexpr std::uint32_t n = 1'000'000;
  for (std::uint32_t i = 0; i < n; ++i) v.push_back(i * 3u);
  ASSERT_EQ(v.size(), n);
  for (std::uint32_t i : {0u, 16383u, 16384u, 16385u, 500'000u, n - 1}) EXPECT_EQ(v[i], i * 3u);
  const std::size_t blocks = (n + (1u << 14) - 1) >> 14;  // 62
  EXPECT_GE(v.memory_bytes(), blocks * (std::size_t{1} << 14) * sizeof(std::uint32_t));
  EXPECT_LT(v.memory_bytes(), (blocks + 1) * (std::size_t{1} << 14) * sizeof(std::uint32_t));
}
