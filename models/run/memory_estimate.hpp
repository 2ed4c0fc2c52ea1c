#pragma once
// Memory a run will need, estimated from the scenario before anything is allocated, so that
// a run that cannot fit is refused with the figure instead of dying with bad_alloc after a
// minute (an unstable queue) or after thousands of replications.
#include <cstdint>
#include <string>

#include "models/spec/scenario.hpp"

namespace waitroom::models {

// Max RSS per waiting user: what the scenario's queue holds for each user who waits, a tenth
// or more above what scripts/bench measures at 1M and 10M users (docs/perf.md, "Memory per
// waiting user"). A sorted set (every ordering policy) measures 23.6-27 B; a list that ages
// users keeps each arrival's serial and moves users between trees (35.3 B in all); a
// lottery's sets 12 B besides the tables (lottery_table_bytes).
double bytes_per_waiting_user(const scenario& s);

// A lottery's per-user tables (entry time, class, list: 10 B and their blocks' rounding),
// counted for every user who came: released in no order of entry, nearly no block empties.
inline constexpr double lottery_table_bytes = 11.0;
inline constexpr double lottery_set_bytes = 12.0;
// An event scheduled far ahead (a patience, a return visit) is 24 B in the calendar's
// bucket vectors, which grow by doubling: 66 B of RSS each while pending (10M pending), and
// an emptied bucket keeps its room for a turn of the ring (about 30 B for each event of the
// last 1,100 s).
inline constexpr double far_event_pending_bytes = 70.0;
inline constexpr double far_event_kept_bytes = 30.0;
// A followed poller (polling.hpp): its record, hash node and recent lookups, and a 20-byte
// prediction per poll in a vector that grows by doubling (716 B of RSS each at 2M users,
// 12 polls on average).
inline constexpr double follower_bytes = 400.0;
inline constexpr double follower_poll_bytes = 40.0;

// What a run holds however few wait: the blocks allocated whole (3 MiB of leaves for each
// sorted set in use, the per-user tables' first blocks) and the program itself; 4-8 MB of
// RSS in docs/perf.md's runs at 1M and 10M users.
inline constexpr double run_fixed_bytes = 8e6;

struct memory_estimate {
  double peak_waiting = 0;    // users waiting at the worst moment
  double bytes_per_user = 0;  // bytes_per_waiting_user(s)
  double far_bytes = 0;       // what grows with the users who came (far events, tables)
  double run_bytes = 0;       // one replication while it runs
  double summary_bytes = 0;   // what one finished replication keeps (upper bound)
  std::string peak_reason;    // how peak_waiting came about, for the message
  // The work, for refusing a run that would take hours (cli/memory_check.hpp): the events
  // one replication executes, estimated as users x 3 (arrival, release or give-up, a return
  // or a backend visit) + release ticks + queue samples + status polls over the estimated run
  // (to the horizon, or the last arrival plus the time to release the peak at the most the
  // room can release); and the queue samples the run wants over its certain part alone (up
  // to the last arrival, or the horizon), for the cap on a series.
  double events = 0;
  double certain_samples = 0;
};

memory_estimate estimate_memory(const scenario& s);

// Bytes of replications run on `threads` threads, each keeping its summary.
double replications_bytes(const memory_estimate& m, std::uint64_t replications, unsigned threads);

}  // namespace waitroom::models
