// The stalled-run verdict: a run without a horizon is refused only when no pending event but
// the periodic ones could change the state and the state itself releases nobody; each reason
// names what to change.
#include <gtest/gtest.h>

#include <string>

#include "models/events.hpp"
#include "models/room/stall.hpp"
#include "sim/event_queue.hpp"

using namespace waitroom;
using models::stall_reason;
using models::stall_view;

namespace {
sim::event_queue periodic_only() {
  sim::event_queue q;
  for (auto k : {models::k_tick, models::k_sample, models::k_control, models::k_suggest,
                 models::k_poll, models::k_poll_queue})
    q.push(sim::sim_time::from_seconds(1), 0, k, 0);
  return q;
}
bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}
}  // namespace

TEST(Stall, PeriodicEventsAloneWithUsersWaitingAndNothingToReleaseThemIsAStall) {
  const auto q = periodic_only();
  stall_view v{q};
  v.waiting = 3;
  v.mode = models::release_mode::concurrency;
  EXPECT_TRUE(has(stall_reason(v), "no session is in progress")) << stall_reason(v);
  v.mode = models::release_mode::tick;
  v.controller_frozen = true;
  EXPECT_TRUE(has(stall_reason(v), "/release/controller")) << stall_reason(v);
  v.controller_frozen = false;
  v.selector_starves = true;
  EXPECT_TRUE(has(stall_reason(v), "/release/selection/weights")) << stall_reason(v);
  // A tick-mode room with a working controller and selector releases at its next tick.
  v.selector_starves = false;
  EXPECT_EQ(stall_reason(v), "");
}

TEST(Stall, AnyEventThatCanChangeTheStateMeansNoStall) {
  for (auto k : {models::k_arrival, models::k_session_end, models::k_abandon, models::k_service_end,
                 models::k_capacity, models::k_return}) {
    auto q = periodic_only();
    q.push(sim::sim_time::from_seconds(2), 0, k, 0);
    stall_view v{q};
    v.waiting = 3;
    v.mode = models::release_mode::concurrency;
    EXPECT_EQ(stall_reason(v), "") << models::to_string(static_cast<models::event_kind>(k));
  }
}

TEST(Stall, ReturnsInFlightOrAnEmptyRoomAreNoStall) {
  const auto q = periodic_only();
  stall_view v{q};
  v.waiting = 3;
  v.mode = models::release_mode::concurrency;
  v.returns_in_flight = true;
  EXPECT_EQ(stall_reason(v), "");
  v.returns_in_flight = false;
  v.waiting = 0;
  EXPECT_EQ(stall_reason(v), "");
}

TEST(Stall, ABusyBackendWithNothingScheduledIsAStallEvenWithNobodyWaiting) {
  const auto q = periodic_only();
  stall_view v{q};
  v.backend_busy = true;
  EXPECT_TRUE(has(stall_reason(v), "/backend/capacity")) << stall_reason(v);
}
