#pragma once
// How users leave the waiting room for the backend.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "sim/distribution.hpp"
#include "sim/time.hpp"

namespace waitroom::models {

enum class release_mode {
  tick,             // every interval, atomically take the first `batch` (ZRANGE + ZREM in Lua)
  concurrency,      // at most `slots` users in the backend; a finished session admits the next
  active_users,     // Cloudflare-style: total active users and new users per minute (products.md)
  serving_counter,  // AWS-style: queue numbers and a serving counter moved by an inlet
};

// AWS Virtual Waiting Room's inlet strategies (docs/products.md).
enum class inlet_kind { periodic, max_size };

struct serving_counter_spec {
  inlet_kind inlet = inlet_kind::periodic;
  // periodic: every inlet_interval_s (first at t = interval), the counter moves up by
  // `increment` while start_s <= t < end_s and the alarm is OK.
  std::uint32_t increment = 1;
  double start_s = 0;
  std::optional<double> end_s;
  std::optional<double> alarm_rt_ms;       // in ALARM while the last interval's mean RT is >= it
  std::optional<double> alarm_error_rate;  // ... or its share of timed-out responses is >= it
  // max_size: the counter starts at max_size and moves up by one per exit (a backend
  // response, or a release taken back), so at most max_size are on the site.
  std::uint32_t max_size = 1;
};

// Active-user admission (Cloudflare Waiting Room's knobs; docs/products.md has the sources).
enum class queueing_method { fifo, random, passthrough, reject };
// How new_users_per_minute counts: per clock minute from t = 0, or in any trailing 60 s.
enum class rate_window { fixed, sliding };

struct active_users_spec {
  std::uint32_t total_active_users = 1;
  std::uint32_t new_users_per_minute = 1;
  rate_window window = rate_window::fixed;
  double session_duration_s = 300;  // the key is session_duration_min
  bool disable_session_renewal = false;
  bool revoke_on_exit = false;  // the origin revokes the session on the visit's last request
  queueing_method method = queueing_method::fifo;
  double queue_all_until_s = 0;         // queue_all on from the start until then
  std::optional<double> event_start_s;  // arrivals before it wait in the prequeue
  bool shuffle_at_event_start = false;  // the prequeue in random order at event start
  sim::distribution requests = sim::distribution::constant(1);  // per visit, rounded, >= 1
  sim::distribution think_s = sim::distribution::constant(0);   // between a visit's requests
  // No one is admitted before this time (queue_all or the prequeue).
  double hold_until_s() const { return std::max(queue_all_until_s, event_start_s.value_or(0.0)); }
};

// Which list the next released user comes from when a scenario has several lists.
enum class selection_kind {
  strict,  // the first non-empty list, like BRPOP high medium low (the request-priority article)
  ratio,   // lists share each release by weight, e.g. 7 VIP : 3 normal (the Redis ZSet VIP article
           // layer 2)
  probabilistic,  // start the scan at list i with probability p_i (the request-priority article)
  lottery,  // draw waiting users at random, weighted by class (the Redis ZSet VIP article layer 3)
  scheduler,  // the list with the oldest head and the most users first (the flash-sale article)
  deadline,   // the list whose head is closest to its class's wait target (sla block)
  guarded,    // strict, but a list whose head has waited its bound goes first
};
// Every kind, in the enum's order (checked below): the policy table is built from it, and
// selection_policy_of's switch names a kind that has no row.
inline constexpr std::array all_selection_kinds{
    selection_kind::strict,  selection_kind::ratio,     selection_kind::probabilistic,
    selection_kind::lottery, selection_kind::scheduler, selection_kind::deadline,
    selection_kind::guarded,
};
static_assert([] {
  for (std::size_t i = 0; i < all_selection_kinds.size(); ++i)
    if (static_cast<std::size_t>(all_selection_kinds[i]) != i) return false;
  return true;
}());

struct weight_change {
  double at_s;
  std::vector<double> weights;
};

struct selection_spec {
  selection_kind kind = selection_kind::strict;
  std::vector<double> weights;              // ratio: one per list
  bool work_conserving = true;              // ratio: an empty list's share passes on
  std::vector<weight_change> schedule;      // ratio: weights changed during the run
  std::vector<double> start_probabilities;  // probabilistic: one per list
  std::vector<double> class_weights;        // lottery: one per class
  // lottery: a user's weight is its class weight x (1 + waited / wait_scale_s); 0: class
  // weight alone.
  double wait_scale_s = 0.0;
  double age_weight = 1.0;         // scheduler: per second the head has waited
  double length_weight = 0.0;      // scheduler: per user in the list
  std::vector<double> deadline_s;  // deadline: per class, its wait target (from the sla block)
  std::vector<double> max_head_wait_s = {};  // guarded: per list, its head's bound (inf: none)
};

// Release-rate controllers (the Redis ZSet VIP article §2.3, §4.2): the tick batch follows the
// backend's response time.
enum class controller_kind { fixed, tiered, window };

struct controller_spec {
  controller_kind kind = controller_kind::fixed;
  // tiered: per tick, target = base x factor of the RT tier (RT of the last round's
  // completions); move at most max_step of the rate per tick; after a cut, hold_rounds
  // ticks before the next cut.
  std::vector<double> tiers_ms{200, 500, 1000};
  std::vector<double> factors{1.2, 1.0, 0.7, 0.4};
  double max_step = 0.1;
  std::uint32_t hold_rounds = 2;
  // window: every every_s, the mean RT over the last window_s: below low_ms +up, above
  // high_ms -down.
  double every_s = 5, window_s = 60, low_ms = 200, high_ms = 500, up = 0.1, down = 0.2;
  double floor = 1;  // never release fewer per tick (the articles' frozen-queue fix)
  // window: never release more per tick (0: twice the batch). Without it, +10% per quiet
  // look grows the rate without bound and the next slowdown floods the backend.
  double ceiling = 0;
};

struct release_spec {
  release_mode mode = release_mode::tick;
  sim::sim_time interval = sim::sim_time::from_ms(200);
  std::optional<double>
      first_tick_s;  // tick: the first tick (default: one interval); a drop's start
  std::uint32_t batch = 1;
  std::uint32_t slots = 1;
  sim::distribution session = sim::distribution::exponential(1.0);  // seconds
  selection_spec selection;
  controller_spec controller;    // tick mode; fixed: `batch` every tick
  active_users_spec active;      // active_users mode
  serving_counter_spec counter;  // serving_counter mode (its interval is `interval`)
  // Live Redis only (`--redis`, docs/redis.md): how many gateway instances release at once,
  // and whether each release is the atomic Lua script or the articles' ZRANGE-then-ZREM.
  // The in-memory model releases exactly as without them.
  std::uint32_t consumers = 1;
  bool atomic = true;
};

const char* to_string(release_mode m);
const char* to_string(selection_kind k);
const char* to_string(queueing_method m);

}  // namespace waitroom::models
