#pragma once
// Ordering policies: how a user's queue score is computed from entry time and class, with
// the timestamp precision and random suffix modelled, as in the articles. Lower score is
// released first; equal scores fall back to the token bytes (Redis's tie-break).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "sim/random.hpp"
#include "sim/time.hpp"

namespace waitroom::models {

enum class ordering { fifo, offset, level };
// min: Cloudflare's FIFO cookie holds the minute a user entered (docs/products.md).
enum class time_unit { s, ms, us, min };

inline constexpr double level_multiplier =
    1e13;  // the Redis ZSet VIP article §2.2: level x 10^13 + time

struct score_policy {
  ordering order = ordering::offset;
  time_unit unit = time_unit::ms;
  double noise = 0.0;                // random suffix in [0, noise) time units
  std::vector<double> offset_units;  // per class, already in time units
  std::vector<double> level;         // per class
  // Entry times before this count as this (a shuffled prequeue: its users tie and fall back
  // to the token bytes, a random order). The minimum leaves every score unchanged.
  std::int64_t floor_ns = std::numeric_limits<std::int64_t>::min();

  // Nanoseconds per unit, indexed by time_unit (a table: the score is computed per entry).
  static constexpr std::int64_t per_unit_ns[] = {1'000'000'000, 1'000'000, 1'000, 60'000'000'000};
  static double unit_ns(time_unit u) {
    return static_cast<double>(per_unit_ns[static_cast<std::size_t>(u)]);
  }

  // Truncated timestamp, as `System.currentTimeMillis()/1000` would give.
  double timestamp(sim::sim_time t) const {
    return static_cast<double>(std::max(t.ns(), floor_ns) /
                               per_unit_ns[static_cast<std::size_t>(unit)]);
  }

  // `u` in [0, 1) is the user's own uniform draw for the random suffix; it is derived from
  // the user's token serial, so the score can be recomputed rather than stored.
  double score(sim::sim_time arrival, std::uint32_t user_class, double u) const {
    double s = timestamp(arrival);
    if (noise > 0.0) s += noise * u;
    switch (order) {
      case ordering::fifo:
        return s;
      case ordering::offset:
        return s - offset_units[user_class];
      case ordering::level:
        return level[user_class] * level_multiplier + s;
    }
    return s;
  }
};

const char* to_string(ordering o);
const char* to_string(time_unit u);

}  // namespace waitroom::models
