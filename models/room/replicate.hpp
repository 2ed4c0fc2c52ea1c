#pragma once
// Independent replications of one scenario: replication r draws from streams keyed by
// (seed, r), so the results do not depend on how many threads ran them.
#include <cstdint>
#include <functional>
#include <vector>

#include "models/room/room.hpp"
#include "models/room/series_bands.hpp"

namespace waitroom::models {

// on_done (optional) is called after each replication finishes, from the thread that ran it.
// bands (optional, empty) receives every replication's queue samples before they are dropped.
std::vector<room_result> replicate(const scenario& s, std::uint64_t seed,
                                   std::uint32_t replications, unsigned threads,
                                   const std::function<void()>& on_done = {},
                                   series_bands* bands = nullptr);

}  // namespace waitroom::models
