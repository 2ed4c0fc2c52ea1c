#pragma once
// Memory a run will need, estimated from the scenario before anything is allocated, so that
// a run that cannot fit is refused with the figure instead of dying with bad_alloc after a
// minute (an unstable queue) or after thousands of replications.
#include <cstdint>
#include <string>

#include "models/scenario/scenario.hpp"

namespace waitroom::models {

// Measured model bytes per waiting user are 25-26 B, RSS 30-31 B (docs/perf.md, section
// "memory"); the estimate uses the RSS figure.
inline constexpr double bytes_per_waiting_user = 31.0;

struct memory_estimate {
  double peak_waiting = 0;   // users waiting at the worst moment (abandonment ignored)
  double run_bytes = 0;      // one replication while it runs
  double summary_bytes = 0;  // what one finished replication keeps (upper bound)
  std::string peak_reason;   // how peak_waiting came about, for the message
};

memory_estimate estimate_memory(const scenario& s);

// Bytes of replications run on `threads` threads, each keeping its summary.
double replications_bytes(const memory_estimate& m, std::uint64_t replications, unsigned threads);

}  // namespace waitroom::models
