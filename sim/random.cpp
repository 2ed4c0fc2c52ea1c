#include "sim/random.hpp"

namespace waitroom::sim {

// __extension__ keeps -Wpedantic quiet about the GCC/Clang 128-bit type.
__extension__ using u128 = unsigned __int128;

rng::rng(std::uint64_t seed, std::uint64_t replication, std::string_view stream) {
  std::uint64_t z = mix64(seed ^ 0x6a09e667f3bcc909ULL) ^
                    mix64(replication + 0x9e3779b97f4a7c15ULL) ^ stable_hash(stream);
  for (auto& s : s_) {
    z += 0x9e3779b97f4a7c15ULL;
    s = mix64(z);
  }
}

std::uint64_t rng::below(std::uint64_t n) {
  if (n == 0) return 0;
  u128 m = static_cast<u128>(next()) * n;
  auto low = static_cast<std::uint64_t>(m);
  if (low < n) {
    const std::uint64_t threshold = (0 - n) % n;
    while (low < threshold) {
      m = static_cast<u128>(next()) * n;
      low = static_cast<std::uint64_t>(m);
    }
  }
  return static_cast<std::uint64_t>(m >> 64);
}

}  // namespace waitroom::sim
