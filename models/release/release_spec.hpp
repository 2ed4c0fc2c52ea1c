#pragma once
// How users leave the waiting room for the backend.
#include <cstdint>

#include "sim/core/distribution.hpp"
#include "sim/core/time.hpp"

namespace waitroom::models {

enum class release_mode {
  tick,         // every interval, atomically take the first `batch` (ZRANGE + ZREM in Lua)
  concurrency,  // at most `slots` users in the backend; a finished session admits the next
};

struct release_spec {
  release_mode mode = release_mode::tick;
  sim::sim_time interval = sim::sim_time::from_ms(200);
  std::uint32_t batch = 1;
  std::uint32_t slots = 1;
  sim::distribution session = sim::distribution::exponential(1.0);  // seconds
};

const char* to_string(release_mode m);

}  // namespace waitroom::models
