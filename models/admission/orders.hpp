#pragma once
// Stock-capped admission with its orders: the stock gate, and what a released user does
// when it gets through (orders; the order may fail, or be cancelled later, and the slot
// comes back either way).
#include <algorithm>
#include <cstdint>

#include "models/admission/stock_gate.hpp"
#include "models/events.hpp"
#include "models/results/result.hpp"
#include "models/spec/scenario.hpp"
#include "sim/random.hpp"
#include "sim/simulator.hpp"

namespace waitroom::models {

class orders {
 public:
  orders(const admission_spec& spec, sim::simulator& sim, std::uint64_t seed,
         std::uint64_t replication)
      : spec_(spec), sim_(sim), gate_(spec.stock), rng_(seed, replication, "orders") {}

  // A user arrives: false when sold out (refused at once).
  bool try_enter() { return gate_.try_enter(sim_.now().ns()); }
  // A released user orders.
  void place() {
    if (rng_.uniform01() < spec_.order_failure_probability) {
      gate_.order_failed();
      return;
    }
    gate_.order_placed();
    if (spec_.cancel_probability > 0 && rng_.uniform01() < spec_.cancel_probability) {
      const double d = std::max(0.0, spec_.cancel_delay_s.sample(rng_));
      sim_.schedule(sim_.now() + sim::sim_time::from_seconds(d), p_control, k_cancel);
    }
  }
  void on_cancel() { gate_.order_cancelled(); }
  // A release nobody used was taken back: its slot comes back too (it was never ordered).
  void give_back() { gate_.give_back(); }
  // The stock at a queue sample (the report's stock-over-time chart).
  void sample(double t_s) {
    over_time_.push_back({t_s, gate_.available(), gate_.orders(), gate_.refused()});
  }

  admission_result result() const {
    admission_result ar;
    ar.stock = gate_.stock();
    ar.refused = gate_.refused();
    ar.orders = gate_.orders();
    ar.order_failures = gate_.failures();
    ar.cancellations = gate_.cancellations();
    ar.reopenings = gate_.reopenings();
    ar.max_outstanding_orders = gate_.max_outstanding_orders();
    ar.available_at_end = gate_.available();
    if (auto t = gate_.sold_out_at_ns()) ar.sold_out_at_s = static_cast<double>(*t) / 1e9;
    ar.over_time = over_time_;
    return ar;
  }

 private:
  const admission_spec& spec_;
  sim::simulator& sim_;
  stock_gate gate_;
  sim::rng rng_;
  std::vector<admission_result::point> over_time_;
};

}  // namespace waitroom::models
