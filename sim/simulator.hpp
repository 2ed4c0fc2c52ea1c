#pragma once
// The run loop. The model is a template parameter, so dispatch is a direct call the
// compiler can inline: no virtual call and no allocation per event.
#include <cstdint>
#include <limits>

#include "sim/event_queue.hpp"

namespace waitroom::sim {

struct stop_conditions {
  sim_time horizon = sim_time::max();  // events after this time are not executed
  std::uint64_t max_events = std::numeric_limits<std::uint64_t>::max();
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

  void schedule(sim_time t, std::uint8_t phase, std::uint32_t kind, std::uint32_t arg = 0) {
    queue_.push(t, phase, kind, arg);
  }

  // Model must provide `void handle(const event&)` and `bool done() const` (true stops the
  // run before the queue empties, e.g. when only self-rescheduling ticks remain).
  template <class Model>
  stop_reason run(Model& model, const stop_conditions& stop) {
    while (!queue_.empty()) {
      if (model.done()) return stop_reason::drained;
      if (queue_.top().time_ns > stop.horizon.ns()) {
        now_ = stop.horizon;
        return stop_reason::horizon;
      }
      if (executed_ >= stop.max_events) return stop_reason::max_events;
      event e = queue_.pop();
      now_ = e.time();
      ++executed_;
      model.handle(e);
    }
    return stop_reason::drained;
  }

 private:
  event_queue queue_;
  sim_time now_;
  std::uint64_t executed_ = 0;
};

}  // namespace waitroom::sim
