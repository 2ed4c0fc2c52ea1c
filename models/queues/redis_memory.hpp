#pragma once
// An estimate of the memory Redis 7.0 (jemalloc) uses for the room's sets, from the number of
// members, their size and the set's encoding. Pure arithmetic on Redis's data structures, so
// the in-memory model can size a Redis it never talks to; checked against INFO memory by the
// redis tests (within 10% for 100k and 1M members).
#include <bit>
#include <cstdint>

namespace waitroom::models::redis_memory {

// jemalloc's size class for a request of n bytes (16-byte quantum, four classes per doubling
// above 128 bytes): what used_memory counts for each allocation.
constexpr std::uint64_t jemalloc_class(std::uint64_t n) {
  if (n <= 8) return 8;
  if (n <= 128) return (n + 15) / 16 * 16;
  std::uint64_t pow = std::bit_ceil(n);  // n in (pow/2, pow]
  std::uint64_t step = pow / 8;          // four classes between pow/2 and pow
  return (n + step - 1) / step * step;
}

// An sds string of len bytes: header (1 byte below 32, 3 below 256, 5 below 64 KiB) + bytes
// + the terminating zero.
constexpr std::uint64_t sds_bytes(std::uint64_t len) {
  std::uint64_t header = len < 32 ? 1 : len < 256 ? 3 : 5;
  return jemalloc_class(header + len + 1);
}

// A dict's bucket array: a power of two at least the number of entries, 8 bytes a bucket.
constexpr std::uint64_t dict_table_bytes(std::uint64_t entries) {
  if (entries == 0) return 0;
  std::uint64_t size = std::bit_ceil(entries < 4 ? std::uint64_t{4} : entries);
  return jemalloc_class(size * 8);
}

// The same after growing to `entries` by adds, each of which moves rehash_steps_per_add
// buckets of an incremental rehash (a set's SADD 1, a sorted set's ZADD 2: its lookup and its
// insert). Redis never rehashes a value's dict in the background, so the old table (half the
// size) is still allocated until the adds since the last doubling have moved its non-empty
// buckets: about 63% of them (load factor 1 when it doubled).
constexpr std::uint64_t dict_bytes_grown(std::uint64_t entries,
                                         std::uint64_t rehash_steps_per_add) {
  std::uint64_t table = dict_table_bytes(entries);
  if (entries <= 4) return table;
  std::uint64_t size = std::bit_ceil(entries);
  std::uint64_t old = size / 2;
  std::uint64_t steps = (entries - old) * rehash_steps_per_add;
  bool rehashing = static_cast<double>(steps) < 0.632 * static_cast<double>(old);
  return rehashing ? table + jemalloc_class(old * 8) : table;
}

inline constexpr std::uint64_t dict_entry_bytes = 32;  // key, value, next: 24 -> class 32

// The expected size of a skiplist node: 24 bytes (member, score, backward) plus 16 a level,
// with Redis's level distribution (P(level > l) = 0.25^l, at most 32 levels).
constexpr double skiplist_node_bytes() {
  double p = 0.75, total = 0.0;
  for (int level = 1; level <= 32; ++level) {
    total += p * static_cast<double>(jemalloc_class(24 + 16 * static_cast<std::uint64_t>(level)));
    p *= 0.25;
  }
  return total;
}

// A constant, so code that sizes sets at run time (redis_memory_peak) never runs the loop.
inline constexpr double skiplist_node_expected_bytes = skiplist_node_bytes();

// Redis's defaults: a sorted set stays a listpack up to 128 members of at most 64 bytes.
inline constexpr std::uint64_t listpack_max_entries = 128;
inline constexpr std::uint64_t listpack_max_value = 64;

// A sorted set of n members of member_len bytes (skiplist + dict encoding above the listpack
// limits; one sds shared by both). The key's own small objects are left out.
constexpr double zset_bytes(std::uint64_t n, std::uint64_t member_len) {
  if (n <= listpack_max_entries && member_len <= listpack_max_value) {
    // listpack: each member and score an entry (length byte, bytes, back-length byte).
    return static_cast<double>(jemalloc_class(7 + n * (member_len + 2 + 10)));
  }
  return static_cast<double>(n) * (skiplist_node_expected_bytes +
                                   static_cast<double>(sds_bytes(member_len) + dict_entry_bytes)) +
         static_cast<double>(dict_bytes_grown(n, 2));
}

// A set (SADD) of n string members (hashtable encoding in Redis 7.0: integers-only sets
// would be an intset, which tokens in hex never are).
constexpr double set_bytes(std::uint64_t n, std::uint64_t member_len) {
  return static_cast<double>(n) * static_cast<double>(sds_bytes(member_len) + dict_entry_bytes) +
         static_cast<double>(dict_bytes_grown(n, 1));
}

// Member sizes: a hex token, or a signed one (hex, '.', 64 hex digits of HMAC-SHA256).
inline constexpr std::uint64_t hex_member_len = 16;
inline constexpr std::uint64_t signed_member_len = 16 + 1 + 64;

}  // namespace waitroom::models::redis_memory
