#pragma once
// Independent replications of one scenario: replication r draws from streams keyed by
// (seed, r), so the results do not depend on how many threads ran them.
#include <cstdint>
#include <vector>

#include "models/room/room.hpp"

namespace waitroom::models {

std::vector<room_result> replicate(const scenario& s, std::uint64_t seed,
                                   std::uint32_t replications, unsigned threads);

}  // namespace waitroom::models
