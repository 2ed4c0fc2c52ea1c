#pragma once
// The kinds and phases of a room's events. Components schedule their own kinds; the room
// dispatches each kind to one component.
#include <cstdint>

namespace waitroom::models {

enum event_kind : std::uint32_t {
  k_arrival,      // arg: the class, or draw_class
  k_backlog,      // the users already there at opening
  k_tick,         // the periodic release
  k_session_end,  // concurrency release: a session ended
  k_sample,       // the sampler
  k_weights,      // arg: index into the ratio schedule
  k_aging,        // arg: list index
  k_cancel,       // an order is cancelled: its stock comes back
  k_return,       // arg: index into the pending returns
  k_compensate,   // in-place compensation: re-score users who passed the threshold
  k_abandon,      // arg: a user whose patience ran out
  k_service_end,  // arg: a backend job
  k_capacity,     // arg: index into the backend's capacity schedule
  k_control,      // the window controller's periodic look
  k_suggest,      // the server refreshes its suggested poll interval
  k_poll,         // arg: a followed user's first poll
  k_poll_queue,   // arg: a poll queue whose head is due
  k_reach,        // arg: a released user who reaches the backend
  k_reclaim,      // arg: a user whose unused release is taken back
  k_ps_done,      // arg: a generation; processor sharing's next completion
  k_active_end,   // active-user admission: a session ends (expires or is revoked)
  k_admit_check,  // active-user admission: the rate window or the hold may admit more
};

// The kind's name, for messages (the engine's livelock error names the kind it saw).
inline const char* to_string(event_kind k) {
  switch (k) {  // no default: -Wswitch names a kind left out
    case k_arrival:
      return "arrival";
    case k_backlog:
      return "backlog";
    case k_tick:
      return "tick";
    case k_session_end:
      return "session_end";
    case k_sample:
      return "sample";
    case k_weights:
      return "weights";
    case k_aging:
      return "aging";
    case k_cancel:
      return "cancel";
    case k_return:
      return "return";
    case k_compensate:
      return "compensate";
    case k_abandon:
      return "abandon";
    case k_service_end:
      return "service_end";
    case k_capacity:
      return "capacity";
    case k_control:
      return "control";
    case k_suggest:
      return "suggest";
    case k_poll:
      return "poll";
    case k_poll_queue:
      return "poll_queue";
    case k_reach:
      return "reach";
    case k_reclaim:
      return "reclaim";
    case k_ps_done:
      return "ps_done";
    case k_active_end:
      return "active_end";
    case k_admit_check:
      return "admit_check";
  }
  return "unknown";
}

// An arrival event's argument when the arrival process leaves the class to the class mix.
inline constexpr std::uint32_t draw_class = 0xffffffffu;

// At equal times: arrivals first, then aging, weight changes and the backend, then releases,
// then the sampler and polls see the result.
enum event_phase : std::uint8_t { p_arrival = 0, p_control = 1, p_release = 2, p_sample = 3 };

}  // namespace waitroom::models
