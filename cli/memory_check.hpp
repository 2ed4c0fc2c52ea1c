#pragma once
// Refuses, before anything is allocated, a run whose estimated memory exceeds the machine's
// (exit 2 with the estimate and what to change): see models/run/memory_estimate.hpp.
#include <cstdint>
#include <string>

#include "models/scenario/scenario.hpp"

namespace waitroom::cli {

// Physical memory, or WAITROOM_MEMORY_LIMIT (bytes) when set.
double memory_limit_bytes();
// One replication's peak (an unstable queue, a huge backlog); `file` names the scenario.
void check_run_memory(const models::scenario& s, const std::string& file);
// The events a run may execute unless --max-events says otherwise: at the 5-20 million
// events a second docs/perf.md measures, from about 10 minutes to half an hour.
inline constexpr double default_max_events = 1e10;
// Refuses a run whose estimated events exceed `max_events` (a release interval of a
// nanosecond: hours of ticks), or whose queue series would be cut at the cap of samples a
// run records, before it starts; `file` names the scenario.
void check_run_work(const models::scenario& s, const std::string& file, double max_events);
// `replications` replications on `threads` threads, each keeping its summary.
// `streamed`: each replication is reduced as it finishes (run --replications), keeping
// streamed_replication_bytes (its 40-byte row and that row in the JSON result).
inline constexpr double streamed_replication_bytes = 400;
void check_replications_memory(const models::scenario& s, std::uint64_t replications,
                               unsigned threads, const std::string& flag, bool streamed = false);

}  // namespace waitroom::cli
