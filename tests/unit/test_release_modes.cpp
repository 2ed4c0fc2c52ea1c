// The release modes by hand: the tick's schedule and batch, concurrency slots and sessions,
// the serving counter moved by its periodic inlet or by exits, and the active-user gate's
// verdicts on arrivals.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "models/events.hpp"
#include "models/release/controller.hpp"
#include "models/release/release_modes.hpp"
#include "sim/simulator.hpp"
#include "support/test_support.hpp"

using namespace waitroom;
using models::release_modes;
using way = models::release_modes::way;

namespace {

constexpr std::int64_t s_ns = 1'000'000'000;

// One class, arrivals irrelevant; `release` is the scenario's release block.
models::scenario with_release(const std::string& release, const std::string& extra = "") {
  return testing_support::scenario_from(R"({"name": "modes", "classes": [{"name": "all"}],
    "arrivals": {"process": "poisson", "rate_per_s": 1}, "queue": {"policy": "fifo"},
    "run": {"horizon_s": 1000}, )" + extra +
                                        R"( "release": )" + release + "}");
}

struct rig {
  explicit rig(const std::string& release, const std::string& extra = "")
      : sc(with_release(release, extra)),
        rates(sc.release.controller, sc.release.batch),
        modes(sc.release, sim, 1, 0) {}
  // The events scheduled so far, as (time in s, kind), in time order; the queue is emptied.
  std::vector<std::pair<double, std::uint32_t>> scheduled() {
    std::vector<std::pair<double, std::uint32_t>> out;
    while (!sim.queue().empty()) {
      const auto e = sim.queue().pop();
      out.emplace_back(static_cast<double>(e.time_ns) * 1e-9, e.kind);
    }
    return out;
  }

  models::scenario sc;
  sim::simulator sim;
  models::rate_controller rates;
  release_modes modes;
};

using events = std::vector<std::pair<double, std::uint32_t>>;

}  // namespace

TEST(ReleaseModes, TicksComeEveryIntervalWithTheControllersBatch) {
  rig r(R"({"mode": "tick", "interval_ms": 200, "batch": 7})");
  EXPECT_TRUE(r.modes.ticks());
  r.modes.start();
  EXPECT_EQ(r.scheduled(), (events{{0.2, models::k_tick}}));
  EXPECT_EQ(r.modes.tick_batch(0, r.rates, 0), 7u);
  EXPECT_EQ(r.modes.tick_batch(0, r.rates, 3), 10u);  // releases taken back come on top
  r.modes.next_tick();
  EXPECT_EQ(r.scheduled(), (events{{0.2, models::k_tick}}));  // now + interval (now = 0)
  // Every arrival queues: no slot, no gate, no counter.
  EXPECT_EQ(r.modes.arrive(true, 0), way::queue);
  EXPECT_EQ(r.modes.entered(0), 0u);
  EXPECT_FALSE(r.modes.counts_exits());
}

TEST(ReleaseModes, TheFirstTickMayComeLater) {
  rig r(R"({"mode": "tick", "interval_ms": 200, "batch": 1, "first_tick_s": 5})");
  r.modes.start();
  EXPECT_EQ(r.scheduled(), (events{{5.0, models::k_tick}}));
}

TEST(ReleaseModes, ConcurrencySlotsTakeArrivalsAtOnceUntilFull) {
  rig r(R"({"mode": "concurrency", "slots": 2,
            "session_s": {"dist": "deterministic", "value": 3}})");
  EXPECT_FALSE(r.modes.ticks());
  r.modes.start();
  EXPECT_TRUE(r.scheduled().empty());  // no ticks
  EXPECT_EQ(r.modes.arrive(true, 0), way::direct);
  EXPECT_EQ(r.modes.arrive(true, 0), way::direct);
  EXPECT_EQ(r.modes.arrive(true, 0), way::queue);
  r.modes.free_slot();
  EXPECT_EQ(r.modes.arrive(false, 0), way::direct);
  EXPECT_EQ(r.modes.arrive(false, 0), way::queue);
  r.modes.start_session();
  EXPECT_EQ(r.scheduled(), (events{{3.0, models::k_session_end}}));
}

// Increment 2 every second: numbers 0 and 1 are served at the first tick; number 2 gave up,
// so the second tick's move serves nobody; number 3, entering after the counter passed it,
// is served at once.
TEST(ReleaseModes, ThePeriodicInletServesTheNumbersItPasses) {
  rig r(R"({"mode": "serving_counter", "inlet": "periodic", "increment": 2,
            "inlet_interval_s": 1})");
  EXPECT_TRUE(r.modes.ticks());
  r.modes.start();
  EXPECT_EQ(r.scheduled(), (events{{1.0, models::k_tick}}));
  for (std::uint32_t user = 0; user < 3; ++user) EXPECT_EQ(r.modes.entered(user), 0u);
  EXPECT_EQ(r.modes.tick_batch(1 * s_ns, r.rates, 0), 2u);
  r.modes.gave_up(2);
  EXPECT_EQ(r.modes.tick_batch(2 * s_ns, r.rates, 0), 0u);
  EXPECT_EQ(r.modes.entered(3), 1u);
}

TEST(ReleaseModes, ThePeriodicInletWaitsForItsStart) {
  rig r(R"({"mode": "serving_counter", "inlet": "periodic", "increment": 5, "start_s": 10,
            "inlet_interval_s": 1})");
  for (std::uint32_t user = 0; user < 8; ++user) r.modes.entered(user);
  EXPECT_EQ(r.modes.tick_batch(9 * s_ns, r.rates, 0), 0u);
  EXPECT_EQ(r.modes.tick_batch(10 * s_ns, r.rates, 0), 5u);
}

// Max size 2: the first two numbers are served on entry, the third waits for an exit.
TEST(ReleaseModes, TheMaxSizeInletServesOnePerExit) {
  rig r(R"({"mode": "serving_counter", "inlet": "max_size", "max_size": 2})",
        R"("backend": {"workers": 2, "service_s": {"dist": "exponential", "mean": 1}},)");
  EXPECT_FALSE(r.modes.ticks());
  EXPECT_TRUE(r.modes.counts_exits());
  r.modes.start();
  EXPECT_TRUE(r.scheduled().empty());
  EXPECT_EQ(r.modes.entered(0), 1u);
  EXPECT_EQ(r.modes.entered(1), 1u);
  EXPECT_EQ(r.modes.entered(2), 0u);
  EXPECT_EQ(r.modes.entered(3), 0u);
  EXPECT_EQ(r.modes.exits(1), 1u);
  EXPECT_EQ(r.modes.exits(5), 1u);  // only one more is waiting
}

// One active user at a time (fifo): the first arrival is let in; while its session lasts the
// next one queues, and its end makes room. `reject` refuses everyone, room or not
// (docs/scenarios.md: Cloudflare's reject page).
TEST(ReleaseModes, TheGateLetsInQueuesOrRefuses) {
  const std::string active = R"({"mode": "active_users", "total_active_users": 1,
      "new_users_per_minute": 100, "session_duration_min": 1, "disable_session_renewal": true,
      "queueing_method": ")";
  rig r(active + R"(fifo"})");
  EXPECT_FALSE(r.modes.ticks());
  EXPECT_EQ(r.modes.arrive(true, 0), way::let_in);
  r.modes.admitted(0);
  EXPECT_EQ(r.modes.arrive(true, s_ns), way::queue);
  EXPECT_EQ(r.modes.gate_room(s_ns), 0u);
  r.modes.session_ended();
  EXPECT_EQ(r.modes.gate_room(2 * s_ns), 1u);

  rig reject(active + R"(reject"})");
  EXPECT_EQ(reject.modes.arrive(true, 0), way::refuse);
  EXPECT_EQ(reject.modes.arrive(false, s_ns), way::refuse);
}
