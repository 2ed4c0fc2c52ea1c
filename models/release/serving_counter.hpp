#pragma once
// The serving counter of AWS's Virtual Waiting Room (docs/products.md): each user entering
// takes the next queue number; users whose number is below the counter are served. The
// counter counts numbers, not people: numbers of users who gave up are passed over, and
// an increment spent on them serves nobody. The room asks how many waiting users a move of
// the counter (or an arrival it already covers) serves and releases that many from the head.
#include <algorithm>
#include <cstdint>
#include <set>

#include "models/release/controller.hpp"
#include "models/spec/release_spec.hpp"
#include "sim/time.hpp"

namespace waitroom::models {

class serving_counter {
 public:
  explicit serving_counter(std::uint64_t initial) : counter_(initial) {}

  // A user entered with queue number `number` (numbers are given in entry order): how many
  // waiting users are now served (1 when the counter had already passed it, else 0).
  std::uint64_t entered(std::uint64_t number) {
    issued_ = std::max(issued_, number + 1);
    return advance(0);
  }
  // A waiting user gave up: the counter will pass its number without serving anyone. A user
  // whose number was covered but who tied with a later one (same entry time, later in token
  // order) is still waiting: it takes the first uncovered number instead, a relabelling of
  // two users with equal entry times that keeps every count.
  void gave_up(std::uint64_t number) {
    if (number < covered_) {
      number = covered_;
      while (gone_.count(number) != 0) ++number;
    }
    gone_.insert(number);
  }
  // The counter moves up by k: how many waiting users it now serves.
  std::uint64_t advance(std::uint64_t k) {
    counter_ += k;
    const std::uint64_t upto = std::min(counter_, issued_);
    if (upto <= covered_) return 0;
    std::uint64_t served = upto - covered_;
    while (!gone_.empty() && *gone_.begin() < upto) {
      gone_.erase(gone_.begin());
      --served;
    }
    covered_ = upto;
    return served;
  }
  std::uint64_t value() const { return counter_; }

 private:
  std::uint64_t counter_;
  std::uint64_t issued_ = 0;      // queue numbers given so far
  std::uint64_t covered_ = 0;     // numbers below this were served (or passed over)
  std::set<std::uint64_t> gone_;  // numbers of users who gave up, not yet passed over
};

// The periodic inlet's move at a tick at `now`: the increment between start and end while
// the alarm is OK. The alarm reads the controller's last round (the responses since the
// previous tick: a CloudWatch alarm over the inlet's period). A round without responses is
// OK (CloudWatch's "notBreaching"): otherwise a paused inlet, releasing nobody, would never
// see a response again and stay paused.
inline std::uint64_t periodic_increment(const serving_counter_spec& spec, std::int64_t now,
                                        const rate_controller& rates) {
  if (now < sim::sim_time::from_seconds(spec.start_s).ns()) return 0;
  if (spec.end_s && now >= sim::sim_time::from_seconds(*spec.end_s).ns()) return 0;
  if (rates.last_round_responses() == 0) return spec.increment;
  if (spec.alarm_rt_ms && rates.last_rt_ms() >= *spec.alarm_rt_ms) return 0;
  if (spec.alarm_error_rate && rates.last_error_rate() >= *spec.alarm_error_rate) return 0;
  return spec.increment;
}

}  // namespace waitroom::models
