#pragma once
// Refuses, before anything is allocated, a run whose estimated memory exceeds the machine's
// (exit 2 with the estimate and what to change): see models/room/memory_estimate.hpp.
#include <cstdint>
#include <string>

#include "models/scenario/scenario.hpp"

namespace waitroom::cli {

// Physical memory, or WAITROOM_MEMORY_LIMIT (bytes) when set.
double memory_limit_bytes();
// One replication's peak (an unstable queue, a huge backlog); `file` names the scenario.
void check_run_memory(const models::scenario& s, const std::string& file);
// `replications` replications on `threads` threads, each keeping its summary.
void check_replications_memory(const models::scenario& s, std::uint64_t replications,
                               unsigned threads, const std::string& flag);

}  // namespace waitroom::cli
