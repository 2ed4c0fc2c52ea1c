#pragma once
// The run loop. The model is a template parameter, so dispatch is a direct call the
// compiler can inline: no virtual call and no allocation per event.
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include "sim/event_queue.hpp"
#include "sim/input_error.hpp"

namespace waitroom::sim {

struct stop_conditions {
  sim_time horizon = sim_time::max();  // events after this time are not executed
  std::uint64_t max_events = std::numeric_limits<std::uint64_t>::max();
  // Livelock guard: at most this many events run at one instant; the next one stops the run
  // with a livelock_error. Legitimate instants stay well below 2^27 (134M): a backlog is one
  // event whatever its size, and the rest are a few events per user at most (patience, poll,
  // reach, session end), so reaching it takes over 10^7 users all due at the same
  // nanosecond (the benchmarks' largest crowd is 10M users over 60 s). A model event that
  // reschedules itself at the same instant reaches it after 2 to 25 s of CPU (15 to 185 ns
  // an event), well inside a test's timeout.
  std::uint64_t max_same_instant = std::uint64_t{1} << 27;
};

// A model bug, not bad input: events kept coming at one instant without time advancing.
class livelock_error : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

enum class stop_reason { drained, horizon, max_events };

inline const char* to_string(stop_reason r) {
  switch (r) {
    case stop_reason::drained:
      return "drained";
    case stop_reason::horizon:
      return "horizon";
    case stop_reason::max_events:
      return "max_events";
  }
  return "unknown";
}

class simulator {
 public:
  sim_time now() const { return now_; }
  std::uint64_t events_executed() const { return executed_; }
  event_queue& queue() { return queue_; }
  const event_queue& queue() const { return queue_; }

  [[gnu::always_inline]] void schedule(sim_time t, std::uint8_t phase, std::uint32_t kind,
                                       std::uint32_t arg = 0) {
    queue_.push(t, phase, kind, arg);
  }
  // For events scheduled in large numbers far ahead (one per waiting user): kept apart from
  // the near ones, executed in the same order (event_queue).
  void schedule_far(sim_time t, std::uint8_t phase, std::uint32_t kind, std::uint32_t arg = 0) {
    queue_.push_far(t, phase, kind, arg);
  }

  // Model must provide `void handle(const event&)` and `bool done() const` (true stops the
  // run before the queue empties, e.g. when only self-rescheduling ticks remain). It may
  // provide `const char* event_name(std::uint32_t kind) const` for the livelock message.
  template <class Model>
  stop_reason run(Model& model, const stop_conditions& stop) {
    for (;;) {
      const bool far = queue_.far_first();  // which heap holds the next event, asked once
      if (!far && queue_.near_empty()) break;
      if (model.done()) return stop_reason::drained;
      if (queue_.top(far).time_ns > stop.horizon.ns()) {
        now_ = stop.horizon;
        return stop_reason::horizon;
      }
      if (executed_ >= stop.max_events) return stop_reason::max_events;
      event e = queue_.pop(far);
      // The livelock guard costs a compare and an increment per event; the clock's end is
      // checked only when time advances (an event at max() first advances to it).
      if (e.time_ns != now_.ns()) {
        if (e.time_ns == sim_time::max().ns()) [[unlikely]]
          beyond_clock(model, e);
        now_ = e.time();
        same_instant_ = 0;
      } else if (++same_instant_ >= stop.max_same_instant) {
        livelock(model, e);
      }
      ++executed_;
      model.handle(e);
    }
    return stop_reason::drained;
  }

 private:
  // An event whose time saturated the clock (durations adding up past about 292 years):
  // bad input, since only a horizon could have stopped the run before it.
  template <class Model>
  [[noreturn, gnu::noinline, gnu::cold]] void beyond_clock(const Model& model, const event& e) {
    std::string kind = std::to_string(e.kind);
    if constexpr (requires { model.event_name(e.kind); }) kind = model.event_name(e.kind);
    throw input_error(
        "simulated time",
        "a run that ends within the clock's range (about 292 years of simulated "
        "time, int64 nanoseconds)",
        "an event (" + kind + ") due beyond it, after t = " + std::to_string(now_.seconds()) + " s",
        "shorter durations (release interval, sessions, patience, polling) or "
        "/run/horizon_s");
  }

  template <class Model>
  [[noreturn, gnu::noinline, gnu::cold]] void livelock(const Model& model, const event& e) {
    std::string kind = std::to_string(e.kind);
    if constexpr (requires { model.event_name(e.kind); })
      kind += std::string(" (") + model.event_name(e.kind) + ")";
    throw livelock_error("livelock: more than " + std::to_string(same_instant_) +
                         " events at t = " + std::to_string(e.time_ns) + " ns (" +
                         std::to_string(e.time().seconds()) +
                         " s) without time advancing, the last of event kind " + kind + ", phase " +
                         std::to_string(e.phase()) +
                         "; a model event keeps rescheduling itself at the same instant");
  }

  event_queue queue_;
  sim_time now_;
  std::uint64_t executed_ = 0;
  std::uint64_t same_instant_ = 0;  // events since time last advanced
};

}  // namespace waitroom::sim
