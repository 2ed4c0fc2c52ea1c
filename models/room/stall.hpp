#pragma once
// A run without a horizon in which nothing can ever leave: found while running (the room
// asks at a sample when nobody was released since the last one) and reported as bad input
// with the reason, instead of sampling forever.
#include <cstdint>
#include <string>

#include "models/spec/scenario.hpp"
#include "sim/event_queue.hpp"
#include "sim/input_error.hpp"

namespace waitroom::models {

// Exit 2, like any other bad input: the scenario, not the program, is at fault.
class stall_error : public sim::input_error {
 public:
  using sim::input_error::input_error;
};

// What the verdict needs from the room, by value (it runs off the hot path).
struct stall_view {
  const sim::event_queue& pending;  // every event still to come
  bool returns_in_flight = false;   // a visit will come back
  bool backend_busy = false;        // the backend holds jobs (only when there is one)
  std::uint64_t waiting = 0;        // users in the lists
  release_mode mode = release_mode::tick;
  bool controller_frozen = false;  // the rate controller's batch is stuck at 0
  bool selector_starves = false;   // every list with users has ratio weight 0
};

// Why nothing can leave, now or later; empty when the run can still progress.
std::string stall_reason(const stall_view& v);

}  // namespace waitroom::models
