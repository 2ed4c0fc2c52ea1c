#pragma once
// The tick's batch: fixed, or moved by the backend's response time (the Redis ZSet VIP article
// §2.3, §4.2; see docs/references.md). Tiered: per tick, the last round's RT picks a factor of the
// base batch, approached by at most max_step a tick, cuts held for hold_rounds. Window: every
// every_s, the mean RT over the last window_s moves the rate up or down, within a floor and
// a ceiling.
#include <cstdint>
#include <deque>
#include <utility>

#include "models/spec/release_spec.hpp"

namespace waitroom::models {

class rate_controller {
 public:
  rate_controller(const controller_spec& spec, std::uint32_t base_batch)
      : spec_(spec), base_(base_batch), users_per_tick_(static_cast<double>(base_batch)) {}

  // The batch for this tick (and the end of the round whose RTs the tiered form reads).
  std::uint64_t tick_batch();
  // A backend response of rt_ms completed now (an error: it timed out).
  void observe(std::int64_t now_ns, double rt_ms, bool error = false) {
    round_rt_sum_ += rt_ms;
    ++round_rt_n_;
    round_errors_ += error ? 1 : 0;
    if (spec_.kind == controller_kind::window) {
      rt_window_.emplace_back(now_ns, rt_ms);
      rt_window_sum_ += rt_ms;
    }
  }
  // Without another response observed, every later tick's batch stays 0 (a tiered factor 0
  // with floor 0, a window floor 0 with no response in the window).
  bool frozen_at_zero() const;
  // The window form's periodic look.
  void look(std::int64_t now_ns);

  double users_per_tick() const { return users_per_tick_; }
  double last_rt_ms() const { return last_rt_ms_; }
  // The share of timed-out responses in the last round that had any (the periodic inlet's alarm).
  double last_error_rate() const { return last_error_rate_; }
  std::uint64_t last_round_responses() const { return last_round_n_; }

 private:
  const controller_spec& spec_;
  std::uint32_t base_;
  double users_per_tick_;
  std::uint32_t since_cut_ = 0;  // ticks since the last cut (tiered)
  double round_rt_sum_ = 0;      // RT of this round's completions (tiered)
  std::uint64_t round_rt_n_ = 0;
  std::uint64_t round_errors_ = 0;
  double last_error_rate_ = 0;
  std::uint64_t last_round_n_ = 0;
  double last_rt_ms_ = 0;                                  // the RT last seen
  std::deque<std::pair<std::int64_t, double>> rt_window_;  // (time, RT ms), window form
  double rt_window_sum_ = 0;
};

}  // namespace waitroom::models
