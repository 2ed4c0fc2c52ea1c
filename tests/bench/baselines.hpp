#pragma once
// The in-run baselines of scripts/bench: the two reference workloads written the plain way,
// so that waitroom's speed is quoted as a ratio measured on the same machine in the same
// invocation (absolute rates do not carry between machines).
#include <cstdint>

namespace waitroom::bench {

struct baseline_result {
  std::uint64_t customers = 0;     // arrivals served (a) or released (b)
  std::uint64_t events = 0;        // events handled by the loop
  std::uint64_t peak_waiting = 0;  // largest number of users waiting at once
  double mean_wait_s[2] = {0, 0};  // per class, so the work cannot be optimised away
};

// (a) Two-class non-preemptive priority M/M/1 (lambda 0.2 + 0.6, mu 1): a binary heap of
// events, two FIFO queues, exponential draws as waitroom draws them (xoshiro256**,
// -mean * log(u)). Arrivals until `duration_s`.
baseline_result plain_priority_mm1(double duration_s, std::uint64_t seed);

// (b) The flash crowd on a GNU pb_ds red-black order-statistics tree: `users` Poisson
// arrivals within 60 s, 20% VIP scored 10 s earlier, integer-millisecond scores with ties
// broken by arrival, `batch` users released from the head every 200 ms until empty.
baseline_result pbds_flash_crowd(std::uint64_t users, std::uint64_t batch, std::uint64_t seed);

}  // namespace waitroom::bench
