// The backend by hand: FIFO with constant service, processor sharing, capacity changes,
// reach / no-show / late / reclaim, and the per-window percentiles and utilisation. A tiny
// model dispatches the backend's own event kinds; the test's kind makes a job arrive.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "models/backend/backend.hpp"
#include "models/events.hpp"
#include "models/queues/queues.hpp"
#include "models/release/controller.hpp"
#include "models/trace/trace.hpp"
#include "models/users/users.hpp"
#include "sim/simulator.hpp"
#include "support/test_support.hpp"

using namespace waitroom;
using models::backend_spec;

namespace {

constexpr std::int64_t s_ns = 1'000'000'000;
constexpr std::uint32_t k_job = 1000;   // the test's kind: a job arrives now
constexpr std::uint32_t k_send = 1001;  // the test's kind: user `arg` is released now

// The backend and what it needs (a tracer without a sink), driven through the simulator.
struct rig {
  explicit rig(const backend_spec& b)
      : spec(b),
        sc(testing_support::scenario_from(R"({"name": "b", "classes": [{"name": "all"}],
          "arrivals": {"process": "poisson", "rate_per_s": 1},
          "release": {"mode": "tick", "interval_ms": 200, "batch": 1}, "run": {"horizon_s": 1}})")),
        u(sc.policy, 1, 1, 2),
        q(sc, u),
        trace(sim, u, q),
        controller(ctl, 10),
        be(spec, sim, controller, trace, 1, 0) {
    for (std::uint32_t i = 0; i < spec.capacity.size(); ++i)
      sim.schedule(sim::sim_time::from_seconds(spec.capacity[i].at_s), models::p_control,
                   models::k_capacity, i);
  }
  void job_at(double t_s) { sim.schedule(sim::sim_time::from_seconds(t_s), 0, k_job); }
  void send_at(double t_s, std::uint32_t user) {
    sim.schedule(sim::sim_time::from_seconds(t_s), models::p_release, k_send, user);
  }

  // The room's dispatch of the backend's kinds.
  void handle(const sim::event& e) {
    log.emplace_back(e.time_ns, e.kind);
    switch (e.kind) {
      case k_job:
        be.arrive(e.arg);
        break;
      case k_send:
        if (be.send(e.arg, 0, told_delay_ns + sim.now().ns())) be.arrive(e.arg);
        break;
      case models::k_service_end:
        be.on_service_end(e.arg);
        break;
      case models::k_ps_done:
        be.on_ps_done(e.arg);
        break;
      case models::k_capacity:
        be.on_capacity(e.arg);
        break;
      case models::k_reach:
        be.reached(e.arg);
        be.arrive(e.arg);
        break;
      case models::k_reclaim:
        be.reclaim(e.arg);
        break;
    }
  }
  bool done() const { return false; }
  void run() { sim.run(*this, {}); }
  // The times (s) of the events of one kind.
  std::vector<double> times_of(std::uint32_t kind) const {
    std::vector<double> out;
    for (const auto& [t, k] : log)
      if (k == kind) out.push_back(static_cast<double>(t) * 1e-9);
    return out;
  }

  backend_spec spec;
  models::scenario sc;
  sim::simulator sim;
  models::users u;
  models::queues q;
  models::tracer trace;
  models::controller_spec ctl;
  models::rate_controller controller;
  models::backend be;
  std::int64_t told_delay_ns = 0;
  std::vector<std::pair<std::int64_t, std::uint32_t>> log;
};

backend_spec fifo(double service_s, std::uint32_t workers = 1) {
  backend_spec b;
  b.workers = workers;
  b.service_s = sim::distribution::constant(service_s);
  b.window_s = 4;
  return b;
}

}  // namespace

TEST(Backend, FifoOneWorkerConstantServiceByHand) {
  auto spec = fifo(2.0);
  spec.timeout_s = 3.0;
  rig r(spec);
  r.job_at(0);
  r.job_at(1);    // waits for the first: 2 -> 4, RT 3 (not over the 3 s timeout)
  r.job_at(1.5);  // 4 -> 6, RT 4.5 (a timeout)
  r.run();
  EXPECT_EQ(r.times_of(models::k_service_end), (std::vector<double>{2, 4, 6}));
  EXPECT_TRUE(r.be.idle());
  r.be.finish(9 * s_ns);
  const auto res = r.be.take_result();
  EXPECT_EQ(res.completed, 3u);
  EXPECT_EQ(res.timeouts, 1u);
  EXPECT_EQ(res.peak_queue, 2u);  // at 1.5 s two wait behind the first
  EXPECT_DOUBLE_EQ(res.rt_s.min(), 2.0);
  EXPECT_DOUBLE_EQ(res.rt_s.max(), 4.5);
  EXPECT_NEAR(res.rt_s.mean(), 9.5 / 3, 1e-12);
  // Windows of 4 s: [0,4) busy throughout, one response (2 s; the 4 s one ends on the edge
  // and belongs to the next); [4,8) busy half, responses of 3 and 4.5 s; [8,9) idle.
  ASSERT_EQ(res.windows.size(), 3u);
  EXPECT_DOUBLE_EQ(res.windows[0].t_s, 0.0);
  EXPECT_EQ(res.windows[0].completed, 1u);
  EXPECT_DOUBLE_EQ(res.windows[0].p50_ms, 2000.0);
  EXPECT_DOUBLE_EQ(res.windows[0].p95_ms, 2000.0);
  EXPECT_DOUBLE_EQ(res.windows[0].utilisation, 1.0);
  EXPECT_EQ(res.windows[0].timeouts, 0u);
  EXPECT_DOUBLE_EQ(res.windows[1].t_s, 4.0);
  EXPECT_EQ(res.windows[1].completed, 2u);
  EXPECT_EQ(res.windows[1].timeouts, 1u);
  EXPECT_DOUBLE_EQ(res.windows[1].p50_ms, 3000.0);  // nearest rank: ceil(0.5 x 2) = 1st
  EXPECT_DOUBLE_EQ(res.windows[1].p95_ms, 4500.0);  // ceil(0.95 x 2) = 2nd
  EXPECT_DOUBLE_EQ(res.windows[1].utilisation, 0.5);
  EXPECT_DOUBLE_EQ(res.windows[2].t_s, 8.0);
  EXPECT_EQ(res.windows[2].completed, 0u);
  EXPECT_TRUE(std::isnan(res.windows[2].p50_ms));
  EXPECT_DOUBLE_EQ(res.windows[2].utilisation, 0.0);
  EXPECT_DOUBLE_EQ(res.busy_worker_s, 6.0);
  EXPECT_DOUBLE_EQ(res.capacity_worker_s, 9.0);
  // The controller saw every response: the round's mean RT.
  r.controller.tick_batch();
  EXPECT_NEAR(r.controller.last_rt_ms(), 9500.0 / 3, 1e-9);
}

TEST(Backend, AWindowEndingExactlyAtTheEndIsNotRepeated) {
  rig r(fifo(2.0));
  r.job_at(0);
  r.run();
  r.be.finish(8 * s_ns);
  const auto res = r.be.take_result();
  ASSERT_EQ(res.windows.size(), 2u);
  EXPECT_DOUBLE_EQ(res.windows[0].utilisation, 0.5);
  EXPECT_DOUBLE_EQ(res.windows[1].utilisation, 0.0);
  EXPECT_DOUBLE_EQ(res.busy_worker_s / res.capacity_worker_s, 0.25);
}

TEST(Backend, MoreWorkersFromACapacityChangeStartTheQueue) {
  auto spec = fifo(2.0);
  spec.window_s = 10;
  spec.capacity = {{1.0, 2}};
  rig r(spec);
  r.job_at(0);
  r.job_at(0);  // queued until the second worker comes at 1 s
  r.run();
  EXPECT_EQ(r.times_of(models::k_service_end), (std::vector<double>{2, 3}));
  r.be.finish(3 * s_ns);
  const auto res = r.be.take_result();
  EXPECT_EQ(res.peak_queue, 1u);
  EXPECT_DOUBLE_EQ(res.rt_s.max(), 3.0);
  // busy 1 + 2 + 1 worker-seconds of 1 + 2 + 2 available
  ASSERT_EQ(res.windows.size(), 1u);
  EXPECT_DOUBLE_EQ(res.windows[0].utilisation, 0.8);
}

TEST(Backend, ProcessorSharingTwoJobsOfOneSecondOnOneWorkerBothEndAtTwo) {
  auto spec = fifo(1.0);
  spec.processor_sharing = true;
  spec.window_s = 10;
  rig r(spec);
  r.job_at(0);
  r.job_at(0);
  r.run();
  // The completion first planned at 1 s (one job alone) is stale once the second arrives.
  EXPECT_EQ(r.times_of(models::k_ps_done), (std::vector<double>{1, 2}));
  EXPECT_TRUE(r.be.idle());
  r.be.finish(2 * s_ns);
  const auto res = r.be.take_result();
  EXPECT_EQ(res.completed, 2u);
  EXPECT_DOUBLE_EQ(res.rt_s.min(), 2.0);
  EXPECT_DOUBLE_EQ(res.rt_s.max(), 2.0);
  EXPECT_EQ(res.peak_queue, 1u);  // jobs beyond one per worker
  EXPECT_DOUBLE_EQ(res.windows.at(0).utilisation, 1.0);
}

TEST(Backend, ProcessorSharingStaggeredJobsByHand) {
  // A (1 s of work) alone from 0 to 0.5 gets 0.5; with B both run at half speed, so A's
  // other 0.5 takes until 1.5; B has 0.5 by then and ends alone at 2.0. Both RTs 1.5 s.
  auto spec = fifo(1.0);
  spec.processor_sharing = true;
  rig r(spec);
  r.job_at(0);
  r.job_at(0.5);
  r.run();
  const auto res = r.be.take_result();
  EXPECT_EQ(res.completed, 2u);
  EXPECT_DOUBLE_EQ(res.rt_s.min(), 1.5);
  EXPECT_DOUBLE_EQ(res.rt_s.max(), 1.5);
  const auto ends = r.times_of(models::k_ps_done);
  EXPECT_DOUBLE_EQ(ends.back(), 2.0);
  EXPECT_NE(std::find(ends.begin(), ends.end(), 1.5), ends.end());
}

TEST(Backend, ProcessorSharingOnTwoWorkersIsFullSpeedForTwo) {
  auto spec = fifo(1.0, 2);
  spec.processor_sharing = true;
  rig r(spec);
  r.job_at(0);
  r.job_at(0);
  r.job_at(0);  // three on two workers: each at 2/3 speed, all done at 1.5 s
  r.run();
  const auto res = r.be.take_result();
  EXPECT_EQ(res.completed, 3u);
  // 1 / (2/3) is a hair over 1.5 in doubles, and the completion is rounded up to the next ns.
  EXPECT_NEAR(res.rt_s.min(), 1.5, 1.5e-9);
  EXPECT_NEAR(res.rt_s.max(), 1.5, 1.5e-9);
  EXPECT_EQ(r.times_of(models::k_ps_done).size(), 3u);  // two stale, one that ends all three
}

TEST(Backend, ANoShowsReleaseIsTakenBackAfterReclaimS) {
  auto spec = fifo(1.0);
  spec.no_show_probability = 1.0;
  spec.reclaim_s = 5;
  rig r(spec);
  r.send_at(1.0, 7);
  r.run();
  EXPECT_EQ(r.times_of(models::k_reclaim), (std::vector<double>{6}));
  EXPECT_TRUE(r.times_of(models::k_service_end).empty());
  EXPECT_EQ(r.be.take_reclaimed(), 1u);  // the next tick releases one more
  EXPECT_EQ(r.be.take_reclaimed(), 0u);
  const auto res = r.be.take_result();
  EXPECT_EQ(res.no_shows, 1u);
  EXPECT_EQ(res.late, 0u);
  EXPECT_EQ(res.reclaimed, 1u);
  EXPECT_EQ(res.completed, 0u);
  EXPECT_EQ(res.arrival_delay_s.count(), 0u);
}

TEST(Backend, ALateUserIsReclaimedAtTheDeadlineNotWhenItComes) {
  auto spec = fifo(1.0);
  spec.arrival_delay_s = sim::distribution::constant(10.0);
  spec.reclaim_s = 5;
  rig r(spec);
  r.send_at(1.0, 3);
  r.run();
  EXPECT_EQ(r.times_of(models::k_reclaim), (std::vector<double>{6}));
  EXPECT_TRUE(r.times_of(models::k_reach).empty());
  const auto res = r.be.take_result();
  EXPECT_EQ(res.late, 1u);
  EXPECT_EQ(res.no_shows, 0u);
  EXPECT_EQ(res.reclaimed, 1u);
}

TEST(Backend, AUserReachesAfterLearningOfItsReleaseAndTheDelay) {
  auto spec = fifo(1.0);
  spec.arrival_delay_s = sim::distribution::constant(2.0);
  rig r(spec);
  r.told_delay_ns = 3 * s_ns;  // learns of it at its next lookup, 3 s later
  r.send_at(1.0, 4);
  EXPECT_TRUE(r.be.idle());
  r.sim.run(r, {sim::sim_time::from_seconds(1.5), ~std::uint64_t{0}});
  EXPECT_FALSE(r.be.idle());  // on its way
  r.run();
  EXPECT_EQ(r.times_of(models::k_reach), (std::vector<double>{6}));  // 1 + 3 + 2
  EXPECT_EQ(r.times_of(models::k_service_end), (std::vector<double>{7}));
  EXPECT_TRUE(r.be.idle());
  const auto res = r.be.take_result();
  EXPECT_DOUBLE_EQ(res.arrival_delay_s.mean(), 5.0);  // release -> reaching the backend
  EXPECT_DOUBLE_EQ(res.rt_s.mean(), 1.0);             // from reaching it
  EXPECT_EQ(res.reclaimed, 0u);
}

TEST(Backend, AUserWhoReachesAtOnceIsHandedBackToTheCaller) {
  rig r(fifo(1.0));
  r.send_at(1.0, 4);  // no delay, told now: send() returns true and the rig calls arrive()
  r.run();
  EXPECT_TRUE(r.times_of(models::k_reach).empty());
  EXPECT_EQ(r.times_of(models::k_service_end), (std::vector<double>{2}));
  EXPECT_EQ(r.be.take_result().arrival_delay_s.count(), 1u);
}

TEST(Backend, RecordControllerKeepsTheControllersState) {
  rig r(fifo(1.0));
  r.be.record_controller(1.0);
  r.be.record_controller(2.0);
  const auto res = r.be.take_result();
  EXPECT_EQ(res.t_s, (std::vector<double>{1.0, 2.0}));
  EXPECT_EQ(res.rate_per_tick, (std::vector<double>{10.0, 10.0}));
  EXPECT_EQ(res.rt_ms, (std::vector<double>{0.0, 0.0}));
}
