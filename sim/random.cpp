#include "sim/random.hpp"

namespace waitroom::sim {

rng::rng(std::uint64_t seed, std::uint64_t replication, std::string_view stream) {
  std::uint64_t z = mix64(seed ^ 0x6a09e667f3bcc909ULL) ^
                    mix64(replication + 0x9e3779b97f4a7c15ULL) ^ stable_hash(stream);
  for (auto& s : s_) {
    z += 0x9e3779b97f4a7c15ULL;
    s = mix64(z);
  }
}

std::uint64_t rng::below_rejecting(std::uint64_t n, u128 m) {
  const std::uint64_t threshold = (0 - n) % n;
  while (static_cast<std::uint64_t>(m) < threshold) m = static_cast<u128>(next()) * n;
  return static_cast<std::uint64_t>(m >> 64);
}

}  // namespace waitroom::sim
