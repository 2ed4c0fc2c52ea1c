#include "models/room/stall.hpp"

#include "models/events.hpp"

namespace waitroom::models {

// Nothing can leave: no pending event other than the periodic ones (tick, sample, control
// look, the waiting page's refreshes and polls) could change the state, and the state itself
// releases nobody.
std::string stall_reason(const stall_view& v) {
  if (v.returns_in_flight) return {};
  const bool changing = v.pending.any_of([](const sim::event& e) {
    switch (static_cast<event_kind>(e.kind)) {
      case k_tick:
      case k_sample:
      case k_control:
      case k_suggest:
      case k_poll:
      case k_poll_queue:
        return false;
      default:
        return true;
    }
  });
  if (changing) return {};
  if (v.backend_busy)
    return "the backend has jobs and no worker to serve them, and no capacity change is "
           "scheduled (/backend/capacity)";
  if (v.waiting == 0) return {};
  if (v.mode == release_mode::concurrency)
    return "no session is in progress to end and free a slot";
  if (v.controller_frozen)
    return "the rate controller's batch is 0 and no backend response can raise it "
           "(/release/controller: factors and floor)";
  if (v.selector_starves)
    return "every list with users waiting has ratio weight 0 (/release/selection/weights)";
  return {};
}

}  // namespace waitroom::models
