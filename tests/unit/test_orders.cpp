// The stock gate's slot arithmetic and the orders placed through it, step by step.
#include <gtest/gtest.h>

#include <functional>
#include <stdexcept>
#include <vector>

#include "models/admission/orders.hpp"
#include "models/admission/stock_gate.hpp"
#include "models/events.hpp"
#include "sim/simulator.hpp"

using namespace waitroom;
using models::stock_gate;

namespace {

// Runs the simulator, handing each event to f (the orders' own kinds, and the test's).
struct driver {
  std::function<void(const sim::event&)> f;
  void handle(const sim::event& e) { f(e); }
  bool done() const { return false; }
};

constexpr std::uint32_t k_test = 1000;  // a kind no component uses: the test's own step

}  // namespace

TEST(StockGate, SlotsRunOutThenRefuseAndTheFirstSellOutIsKept) {
  stock_gate g(2);
  EXPECT_EQ(g.stock(), 2u);
  EXPECT_EQ(g.available(), 2u);
  EXPECT_TRUE(g.try_enter(5));
  EXPECT_FALSE(g.sold_out_at_ns().has_value());
  EXPECT_TRUE(g.try_enter(7));
  EXPECT_EQ(g.available(), 0u);
  ASSERT_TRUE(g.sold_out_at_ns().has_value());
  EXPECT_EQ(*g.sold_out_at_ns(), 7);
  EXPECT_FALSE(g.try_enter(9));
  EXPECT_FALSE(g.try_enter(10));
  EXPECT_EQ(g.refused(), 2u);
  EXPECT_EQ(g.available(), 0u);

  // A placed order keeps its slot; a failed one gives it back and reopens the queue.
  g.order_placed();
  EXPECT_EQ(g.orders(), 1u);
  EXPECT_EQ(g.outstanding_orders(), 1u);
  g.order_failed();
  EXPECT_EQ(g.failures(), 1u);
  EXPECT_EQ(g.available(), 1u);
  EXPECT_EQ(g.reopenings(), 1u);
  // A cancellation gives the slot back; the queue was open already, so no reopening.
  g.order_cancelled();
  EXPECT_EQ(g.cancellations(), 1u);
  EXPECT_EQ(g.outstanding_orders(), 0u);
  EXPECT_EQ(g.available(), 2u);
  EXPECT_EQ(g.reopenings(), 1u);
  EXPECT_EQ(g.max_outstanding_orders(), 1u);

  // Selling out again does not move the first sell-out time.
  EXPECT_TRUE(g.try_enter(20));
  EXPECT_TRUE(g.try_enter(21));
  EXPECT_EQ(*g.sold_out_at_ns(), 7);
  EXPECT_EQ(g.refused(), 2u);
}

TEST(StockGate, MaxOutstandingIsThePeak) {
  stock_gate g(3);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(g.try_enter(i));
  g.order_placed();
  g.order_placed();
  g.order_cancelled();  // 1 outstanding, 1 available
  EXPECT_EQ(g.reopenings(), 1u);
  g.order_placed();  // the third admitted user: 2 outstanding
  EXPECT_EQ(g.outstanding_orders(), 2u);
  EXPECT_EQ(g.max_outstanding_orders(), 2u);
  EXPECT_EQ(g.orders(), 3u);
  EXPECT_EQ(g.available(), 1u);  // the cancelled slot
  ASSERT_TRUE(g.try_enter(9));   // a fourth user takes it and orders: the whole stock
  g.order_placed();
  EXPECT_EQ(g.outstanding_orders(), 3u);
  EXPECT_EQ(g.max_outstanding_orders(), 3u);
  EXPECT_EQ(g.available(), 0u);
  EXPECT_EQ(g.orders(), 4u);
}

TEST(StockGate, MoreSlotsOrOrdersThanStockIsALogicError) {
  stock_gate a(1);
  EXPECT_THROW(a.give_back(), std::logic_error);  // nothing was taken
  stock_gate b(1);
  ASSERT_TRUE(b.try_enter(0));
  b.order_placed();
  EXPECT_THROW(b.order_placed(), std::logic_error);  // two orders on a stock of one
  stock_gate c(1);
  ASSERT_TRUE(c.try_enter(0));
  c.order_placed();
  EXPECT_THROW(c.order_failed(), std::logic_error);  // the slot is held by the order
}

TEST(StockGate, NoStockRefusesEveryone) {
  stock_gate g(0);
  EXPECT_FALSE(g.try_enter(0));
  EXPECT_FALSE(g.try_enter(1));
  EXPECT_EQ(g.refused(), 2u);
  EXPECT_EQ(g.available(), 0u);
}

TEST(Orders, ACertainCancellationIsScheduledAfterItsDelayAndGivesTheSlotBack) {
  models::admission_spec spec;
  spec.stock = 1;
  spec.cancel_probability = 1.0;
  spec.cancel_delay_s = sim::distribution::constant(3.0);
  sim::simulator s;
  models::orders o(spec, s, 1, 0);
  std::vector<std::pair<std::int64_t, std::uint32_t>> seen;  // (time, kind)
  driver d{[&](const sim::event& e) {
    seen.emplace_back(e.time_ns, e.kind);
    if (e.kind == k_test && e.arg == 0) {
      EXPECT_TRUE(o.try_enter());
      o.place();
    } else if (e.kind == k_test && e.arg == 1) {
      EXPECT_FALSE(o.try_enter());  // sold out until the cancellation
    } else if (e.kind == models::k_cancel) {
      o.on_cancel();
    } else if (e.kind == k_test && e.arg == 2) {
      EXPECT_TRUE(o.try_enter());  // the cancelled slot
    }
  }};
  s.schedule(sim::sim_time::from_seconds(2.0), models::p_arrival, k_test, 0);
  s.schedule(sim::sim_time::from_seconds(4.0), models::p_arrival, k_test, 1);
  s.schedule(sim::sim_time::from_seconds(6.0), models::p_arrival, k_test, 2);
  // The report's stock over time: a sample between the events.
  for (double t : {1.0, 3.0, 4.5, 5.5, 7.0})
    s.schedule(sim::sim_time::from_seconds(t), models::p_arrival, k_test, 100);
  auto inner = d.f;
  d.f = [&](const sim::event& e) {
    if (e.kind == k_test && e.arg == 100) {
      o.sample(static_cast<double>(e.time_ns) * 1e-9);
      return;
    }
    inner(e);
  };
  s.run(d, {});
  const std::vector<std::pair<std::int64_t, std::uint32_t>> want{
      {2'000'000'000, k_test},
      {4'000'000'000, k_test},
      {5'000'000'000, models::k_cancel},  // placed at 2 s, cancelled 3 s later
      {6'000'000'000, k_test}};
  EXPECT_EQ(seen, want);
  const auto r = o.result();
  EXPECT_EQ(r.stock, 1u);
  // (t, available, orders, refused): taken at 2 s, a refusal at 4 s, back at 5 s, taken at 6 s.
  ASSERT_EQ(r.over_time.size(), 5u);
  const std::uint64_t want_points[5][3] = {{1, 0, 0}, {0, 1, 0}, {0, 1, 1}, {1, 1, 1}, {0, 1, 1}};
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(r.over_time[i].available, want_points[i][0]) << i;
    EXPECT_EQ(r.over_time[i].orders, want_points[i][1]) << i;
    EXPECT_EQ(r.over_time[i].refused, want_points[i][2]) << i;
  }
  EXPECT_DOUBLE_EQ(r.over_time[2].t_s, 4.5);
  EXPECT_EQ(r.orders, 1u);
  EXPECT_EQ(r.cancellations, 1u);
  EXPECT_EQ(r.order_failures, 0u);
  EXPECT_EQ(r.refused, 1u);
  EXPECT_EQ(r.reopenings, 1u);
  EXPECT_EQ(r.max_outstanding_orders, 1u);
  EXPECT_EQ(r.available_at_end, 0u);
  ASSERT_TRUE(r.sold_out_at_s.has_value());
  EXPECT_DOUBLE_EQ(*r.sold_out_at_s, 2.0);
}

TEST(Orders, ACertainFailureGivesTheSlotBackAtOnceAndSchedulesNothing) {
  models::admission_spec spec;
  spec.stock = 2;
  spec.order_failure_probability = 1.0;
  spec.cancel_probability = 1.0;  // never reached: a failed order is not placed
  sim::simulator s;
  models::orders o(spec, s, 1, 0);
  ASSERT_TRUE(o.try_enter());
  o.place();
  EXPECT_TRUE(s.queue().empty());
  const auto r = o.result();
  EXPECT_EQ(r.orders, 0u);
  EXPECT_EQ(r.order_failures, 1u);
  EXPECT_EQ(r.available_at_end, 2u);
  EXPECT_EQ(r.reopenings, 0u);  // it never sold out
  EXPECT_FALSE(r.sold_out_at_s.has_value());
}

TEST(Orders, NoCancellationProbabilityNoEvent) {
  models::admission_spec spec;
  spec.stock = 1;
  sim::simulator s;
  models::orders o(spec, s, 1, 0);
  ASSERT_TRUE(o.try_enter());
  o.place();
  EXPECT_TRUE(s.queue().empty());
  EXPECT_EQ(o.result().orders, 1u);
  // A release taken back returns its slot (it was admitted but never ordered).
  models::orders o2(spec, s, 1, 0);
  ASSERT_TRUE(o2.try_enter());
  o2.give_back();
  EXPECT_EQ(o2.result().available_at_end, 1u);
  EXPECT_EQ(o2.result().reopenings, 1u);
}
