#pragma once
// Random streams: one xoshiro256** generator per (seed, replication, stream name), so two
// configurations run on one seed draw the same arrivals, class mix, patience ... (common
// random numbers). All arithmetic is integer or IEEE basic operations: portable.
#include <cstdint>
#include <string_view>

namespace waitroom::sim {

// splitmix64's finaliser: a bijection on 64-bit integers (used for seeding and tokens).
constexpr std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// A uniform double in [0, 1) from the top 53 bits of a 64-bit value (a generator's output or
// a hash: counter-based draws such as a user's score noise or pay-later choice).
constexpr double unit_from_hash(std::uint64_t h) {
  return static_cast<double>(h >> 11) * 0x1.0p-53;
}

// FNV-1a: a stable hash of a stream name (std::hash is not stable across libraries).
constexpr std::uint64_t stable_hash(std::string_view s) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

class rng {
  // __extension__ keeps -Wpedantic quiet about the GCC/Clang 128-bit type.
  __extension__ typedef unsigned __int128 u128;

 public:
  rng(std::uint64_t seed, std::uint64_t replication, std::string_view stream);
  explicit rng(std::uint64_t seed) : rng(seed, 0, "") {}

  std::uint64_t next() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  // Uniform on [0, 1) with 53 random bits.
  double uniform01() { return unit_from_hash(next()); }
  // Uniform on (0, 1]: safe to take the logarithm of.
  double uniform_open0() { return static_cast<double>((next() >> 11) + 1) * 0x1.0p-53; }
  // Unbiased integer in [0, n) (Lemire's multiply-and-reject). Inline, its rare rejections
  // out of line: a lottery's draw makes up to three of these.
  std::uint64_t below(std::uint64_t n) {
    if (n == 0) return 0;
    const u128 m = static_cast<u128>(next()) * n;
    if (static_cast<std::uint64_t>(m) < n) [[unlikely]]
      return below_rejecting(n, m);
    return static_cast<std::uint64_t>(m >> 64);
  }

  // Same state: the same draws from here on.
  friend bool operator==(const rng&, const rng&) = default;

 private:
  // below()'s tail when the product's low word falls under n (probability n / 2^64).
  std::uint64_t below_rejecting(std::uint64_t n, u128 m);
  static constexpr std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t s_[4];
};

}  // namespace waitroom::sim
