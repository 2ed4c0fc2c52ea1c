#pragma once
// A scenario: everything one run needs, validated. Loaded from JSON (units in key names)
// and written back as the canonical "effective scenario" echoed in every result by
// models/scenario/scenario.hpp; these are the types every model reads.
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "models/scores/score_policy.hpp"
#include "models/spec/release_spec.hpp"
#include "models/spec/sla_spec.hpp"
#include "sim/arrivals.hpp"
#include "sim/distribution.hpp"

namespace waitroom::models {

struct user_class {
  std::string name;
  double share = 0.0;
  double level = 0.0;
  double offset_ms = 0.0;
  // Abandonment: how long a user of this class waits before giving up (none: forever), and
  // the chance that one who gives up pays later from "orders to pay" (the flash-sale article).
  std::optional<sim::distribution> patience_s;
  double pay_later_probability = 0.0;
};

enum class arrival_kind { poisson, piecewise, trace, renewal, surge };
// Each kind's name in the scenario, in the enum's order (the reader lists them in this order).
inline constexpr std::array<std::pair<arrival_kind, std::string_view>, 5> arrival_kind_names{
    {{arrival_kind::poisson, "poisson"},
     {arrival_kind::piecewise, "piecewise"},
     {arrival_kind::trace, "trace"},
     {arrival_kind::renewal, "renewal"},
     {arrival_kind::surge, "surge"}}};

struct arrival_spec {
  arrival_kind kind = arrival_kind::poisson;
  double rate_per_s = 0.0;
  std::vector<sim::rate_segment> segments;
  std::string trace_file;                // as written in the scenario
  std::vector<sim::trace_record> trace;  // loaded records
  sim::distribution interarrival_s = sim::distribution::exponential(1.0);  // renewal
  sim::surge_shape surge;
  std::uint64_t backlog_users = 0;

  // What every reader of a scenario asks of its arrivals (the scenario reader and writer, the
  // room, the memory estimate, the analytic module): each kind answers in a switch without
  // `default:` in models/spec/arrival_spec.cpp, so a new kind that does not answer is a
  // compile error there, and no other file switches on the kind.
  // Arrivals that never end by themselves: a run of them needs a horizon.
  bool open_ended() const;
  // The rate at which arrivals go on past the schedule's end (0 when they stop).
  double final_rate_per_s() const;
  // The most users a second that arrive (a trace: the most in any one second of it).
  double max_rate_per_s() const;
  // A Poisson process, of constant or varying rate (memoryless: a patience bounds the queue).
  bool poisson() const;
  // Nobody ever arrives (the backlog aside).
  bool none() const;
  // Each arrival draws its class by the classes' shares (a trace's records name theirs).
  bool classes_by_share() const;
  // Every rate times `factor` (> 0), the backlog too (rounded): "what if F x the traffic".
  // False for a trace, which replays recorded times and has no rate to scale.
  bool scale(double factor);
  // Closed forms (models/analytic): the rate of a Poisson process that keeps one rate for
  // ever (M/...), or none.
  std::optional<double> steady_poisson_rate_per_s() const;
  // Closed forms: the interarrival time of a renewal process that is not Poisson (G/...), or
  // null.
  const sim::distribution* renewal_interarrival_s() const;
  // The memory estimate's queue, backlog + arrivals(t) - release_per_s t, is longest at one
  // of the moments this gives: at(t, the expected arrivals in [0, t]) for each moment of
  // [0, horizon_s] where it can peak, in time order. The last is where arrivals end within
  // the horizon, when they do (a surge without a duration or base rate: where fewer than one
  // more user is expected).
  void peak_candidates(double horizon_s, double release_per_s,
                       const std::function<void(double t_s, double arrived)>& at) const;
  // The scenario's `arrivals` block, as the writer echoes it.
  nlohmann::json to_json() const;
};

// The arrival process an arrivals section describes (the room's and load mode's).
sim::arrival_process make_arrival_process(const arrival_spec& a);

// A list is one sorted set (one Redis key): the classes it holds and, for aging, how long a
// user may wait in it before moving up to the list before it.
struct list_spec {
  std::string name;
  std::vector<std::uint32_t> classes;  // empty: any class
  std::vector<std::uint32_t> skus;     // empty: any SKU
  std::optional<double> max_wait_s;
};

// What users came to buy (the flash-sale article: one queue per SKU). Each arrival draws one by
// share.
struct sku_spec {
  std::string name;
  double share = 1.0;
};

// Stock-capped admission (the flash-sale article). Absent: admission is not capped.
struct admission_spec {
  std::uint64_t stock = 0;
  double order_failure_probability = 0.0;  // a released user's order fails: the slot returns
  double cancel_probability = 0.0;         // a placed order is cancelled after cancel_delay_s
  sim::distribution cancel_delay_s = sim::distribution::constant(0.0);
};

// Temporary-VIP compensation (the Redis ZSet VIP article §4.3): a user of an eligible class whose
// wait exceeded threshold_s earns one credit, valid until the end of the simulated day (days start
// at t = 0); the next visit that day enters with offset_ms. In place: the waiting user is
// re-scored as soon as the threshold passes instead. At most one credit a person a day.
struct compensation_spec {
  double threshold_s = 120.0;
  double offset_ms = 10000.0;
  std::vector<bool> eligible;  // per class
  bool in_place = false;
};

// Users come back: after each visit, with `probability`, the same person (same class)
// enters again after a delay_s draw.
struct returns_spec {
  double probability = 0.0;
  sim::distribution delay_s = sim::distribution::exponential(60.0);
};

// Warm-up deletion for steady-state statistics: waits of users who entered before
// warmup_s, or of the first warmup_customers released, are not recorded; "mser5" finds the
// truncation point from the run itself (White's MSER on batch means of 5).
enum class warmup_kind { none, time, customers, mser5 };

// The backend behind the waiting room (tick mode): released users are served by `workers`
// in parallel (FIFO), each for a service_s draw; response time = queueing + service, and a
// response slower than timeout_s counts as an error. Capacity can change during the run
// (a degraded period, an outage with 0 workers).
struct capacity_change {
  double at_s;
  std::uint32_t workers;
};
struct backend_spec {
  std::uint32_t workers = 1;
  sim::distribution service_s = sim::distribution::exponential(1.0);
  std::vector<capacity_change> capacity;
  std::optional<double> timeout_s;
  // Processor sharing instead of FIFO: every job in the backend is served at once, each at
  // min(1, workers / jobs) of a worker (a web server's threads, a database's connections).
  bool processor_sharing = false;
  // Released users reach the backend after arrival_delay_s (after learning of their release
  // at a poll, when users poll); a no_show_probability share never come. A release not used
  // within reclaim_s is taken back and its slot returns to the queue (the Redis ZSet VIP article
  // §4.1): the next tick releases one more.
  sim::distribution arrival_delay_s = sim::distribution::constant(0.0);
  double no_show_probability = 0.0;
  double reclaim_s = 60.0;
  double window_s = 10.0;  // response-time percentiles and utilisation per window
};

// The waiting page polls the status endpoint (the Redis ZSet VIP article §3.2, §4.4): every
// interval_s, or at the interval the server suggests by total queue length (the step with the
// largest `above` not exceeding it, refreshed every suggest_every_s). A status answer is cached per
// user for cache_s. Users in follow_share (by a hash of their serial; 1 = everyone) are
// followed through every poll for the shown-rank and ETA metrics; Redis command counts always
// cover every user.
struct suggest_step {
  std::uint64_t above = 0;
  double interval_s = 3.0;
};
struct polling_spec {
  double interval_s = 3.0;
  std::vector<suggest_step> suggest;  // empty: a fixed interval
  double suggest_every_s = 1.0;
  double cache_s = 0.0;
  // Each user's first poll comes one interval after entry plus a uniform share of this (a
  // per-user phase: pages load and timers start at different moments). 0: users who
  // entered together poll together.
  double start_jitter_s = 0.0;
  double smooth_rank_s = 10.0;  // shown rank: the minimum over this window
  double follow_share = 0.01;
  std::uint32_t eta_rounds = 5;        // the Redis ZSet VIP article's smoothing of the last rounds
  double eta_recent_s = 10.0;          // the recent leave rate's window
  std::uint32_t eta_fit_samples = 50;  // the linear fit's points (one per round)
};

struct run_spec {
  std::optional<double> horizon_s;  // none: run until drained
  std::uint64_t max_events = 0;     // 0: unlimited
  double sample_interval_s = 1.0;
  warmup_kind warmup = warmup_kind::none;
  double warmup_s = 0.0;
  std::uint64_t warmup_customers = 0;
};

// How the room would hold its queue in a live Redis (`run --redis`, `load`): the members'
// bytes. The in-memory model's order does not depend on it (signed members start with the
// hex token), only Redis's memory and the lookups' verification do.
enum class token_format : std::uint8_t { hex, signed_hmac };
struct redis_spec {
  token_format tokens = token_format::hex;
};

struct scenario {
  std::string name;
  std::string description;
  std::uint64_t seed = 1;
  std::vector<user_class> classes;
  arrival_spec arrivals;
  score_policy policy;
  std::vector<sku_spec> skus;                     // none: SKUs are not modelled
  std::vector<list_spec> lists;                   // at least one; by default one for everyone
  std::vector<std::vector<std::uint32_t>> route;  // [class][sku] -> list: the first that matches
  release_spec release;
  std::optional<admission_spec> admission;
  std::optional<backend_spec> backend;
  std::optional<compensation_spec> compensation;
  std::optional<returns_spec> returns;
  std::optional<polling_spec> polling;
  run_spec run;
  std::optional<sla_spec> sla;
  redis_spec redis;
  // What the scenario says that a user may not mean (a class that never arrives, a key its
  // policy ignores), for the CLI to print; not part of the scenario (never written back).
  std::vector<std::string> warnings;

  std::vector<std::string> class_names() const;
};

// The largest seed (exact in a double, so the echoed scenario reads back the same).
inline constexpr std::uint64_t max_seed = std::uint64_t{1} << 53;

}  // namespace waitroom::models
