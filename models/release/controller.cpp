#include "models/release/controller.hpp"

#include <algorithm>
#include <cmath>

#include "sim/time.hpp"

namespace waitroom::models {

std::uint64_t rate_controller::tick_batch() {
  const auto& c = spec_;
  // The RT of this round's completions (or the last one seen), for every kind's trace.
  if (round_rt_n_ > 0 && c.kind != controller_kind::window)
    last_rt_ms_ = round_rt_sum_ / static_cast<double>(round_rt_n_);
  if (round_rt_n_ > 0)
    last_error_rate_ = static_cast<double>(round_errors_) / static_cast<double>(round_rt_n_);
  last_round_n_ = round_rt_n_;
  round_rt_sum_ = 0;
  round_rt_n_ = 0;
  round_errors_ = 0;
  if (c.kind == controller_kind::fixed) return base_;
  if (c.kind == controller_kind::tiered) {
    // The round's RT picks a tier; the rate moves towards base x factor by at most
    // max_step, and cuts wait hold_rounds ticks.
    std::size_t tier = 0;
    while (tier < c.tiers_ms.size() && last_rt_ms_ >= c.tiers_ms[tier]) ++tier;
    const double target = static_cast<double>(base_) * c.factors[tier];
    const double step = c.max_step * std::max(users_per_tick_, 1.0);
    ++since_cut_;
    if (target > users_per_tick_) {
      users_per_tick_ = std::min(target, users_per_tick_ + step);
    } else if (target < users_per_tick_ && since_cut_ > c.hold_rounds) {
      users_per_tick_ = std::max(target, users_per_tick_ - step);
      since_cut_ = 0;
    }
  }
  users_per_tick_ = std::max(users_per_tick_, c.floor);
  return static_cast<std::uint64_t>(std::llround(users_per_tick_));
}

bool rate_controller::frozen_at_zero() const {
  const auto& c = spec_;
  if (std::llround(std::max(users_per_tick_, c.floor)) > 0) return false;
  if (c.kind == controller_kind::fixed) return base_ == 0;
  if (c.kind == controller_kind::window) return rt_window_.empty();
  if (round_rt_n_ > 0) return false;  // this round's responses move the next tick's rate
  // Tiered: the tier of the last RT seen stays; the rate only moves towards its target.
  std::size_t tier = 0;
  while (tier < c.tiers_ms.size() && last_rt_ms_ >= c.tiers_ms[tier]) ++tier;
  return static_cast<double>(base_) * c.factors[tier] <= users_per_tick_;
}

void rate_controller::look(std::int64_t now) {
  const auto& c = spec_;
  const std::int64_t window = sim::sim_time::from_seconds(c.window_s).ns();
  while (!rt_window_.empty() && rt_window_.front().first < now - window) {
    rt_window_sum_ -= rt_window_.front().second;
    rt_window_.pop_front();
  }
  if (!rt_window_.empty()) {
    last_rt_ms_ = rt_window_sum_ / static_cast<double>(rt_window_.size());
    if (last_rt_ms_ < c.low_ms) users_per_tick_ *= 1.0 + c.up;
    if (last_rt_ms_ > c.high_ms) users_per_tick_ *= 1.0 - c.down;
  }
  const double ceiling = c.ceiling > 0 ? c.ceiling : 2.0 * static_cast<double>(base_);
  users_per_tick_ = std::max(std::min(users_per_tick_, ceiling), c.floor);
}

}  // namespace waitroom::models
