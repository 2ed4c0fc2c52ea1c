#pragma once
// The waiting room: arrivals enter Redis-style sorted sets (one per list) scored by the
// ordering policy, and a release mechanism moves them to the backend, choosing among lists
// by the selection policy. One object is one replication.
#include <cmath>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "models/admission/stock_gate.hpp"
#include "models/release/selector.hpp"
#include "models/room/polling.hpp"
#include "models/room/trace.hpp"
#include "models/scenario/scenario.hpp"
#include "models/zset/zset.hpp"
#include "sim/histogram.hpp"
#include "sim/moments.hpp"
#include "sim/random.hpp"
#include "sim/serial_table.hpp"
#include "sim/simulator.hpp"

namespace waitroom::models {

struct wait_stats {
  std::uint64_t arrived = 0;       // = refused + released + abandoned + waiting_at_end
  std::uint64_t refused = 0;       // sold out when they came (stock-capped admission)
  std::uint64_t abandoned = 0;     // gave up waiting
  std::uint64_t paid_later = 0;    // of those, paid later from "orders to pay"
  sim::running_moments abandon_s;  // how long those who gave up had waited
  std::uint64_t released = 0;
  std::uint64_t waiting_at_end = 0;
  sim::running_moments wait_s;  // entry -> release, seconds
  sim::log_histogram wait_ns;   // the same waits, for quantiles

  void merge(const wait_stats& o);
};

struct queue_sample {
  double t_s;
  std::uint64_t length;
  std::vector<std::uint64_t> by_class;
  std::uint64_t released_in_interval;
  // Lottery only: a waiting user has no position; this is the expected number of users now
  // waiting who will be drawn before a user of each class, sum over the others of
  // w_j / (w_i + w_j) (sequential weighted draws; later arrivals not counted).
  std::vector<double> expected_rank_by_class;
};

struct list_stats {
  std::uint64_t released = 0;
  std::uint64_t aged_in = 0;  // users who moved up into this list
  std::uint64_t peak_length = 0;
};

struct admission_result {
  std::uint64_t stock = 0, refused = 0, orders = 0, order_failures = 0, cancellations = 0;
  std::uint64_t reopenings = 0, max_outstanding_orders = 0, available_at_end = 0;
  std::optional<double> sold_out_at_s;
};

struct compensation_result {
  std::uint64_t granted = 0;        // credits earned (a wait over the threshold)
  std::uint64_t used = 0;           // next visits that entered with a credit
  std::uint64_t used_in_place = 0;  // waiting users re-scored at the threshold
  std::uint64_t expired = 0;        // holders who came back after their day ended
  std::uint64_t unused = 0;         // holders who had not come back by the end of the run
  wait_stats credited;              // waits of the visits that used a credit (or were re-scored)
};

struct backend_result {
  std::uint64_t completed = 0;
  std::uint64_t timeouts = 0;  // responses slower than timeout_s
  std::uint64_t peak_queue = 0;
  sim::running_moments rt_s;  // response time: release -> done (queueing + service)
  sim::log_histogram rt_ns;
  // The controller's trace, at each sample: users per tick, and the RT it last saw.
  std::vector<double> t_s, rate_per_tick, rt_ms;
  // Released users who never came, who came after reclaim_s (their release was lost), and
  // the releases taken back (each gave one more user to a later tick).
  std::uint64_t no_shows = 0, late = 0, reclaimed = 0;
  sim::running_moments arrival_delay_s;             // release -> reaching the backend
  double busy_worker_s = 0, capacity_worker_s = 0;  // utilisation = busy / capacity
  struct window {
    double t_s;  // start
    std::uint64_t completed, timeouts;
    double p50_ms, p95_ms;  // NaN when nothing completed
    double utilisation;     // NaN when no worker was there
  };
  std::vector<window> windows;
};

struct room_result {
  std::uint64_t seed = 0;
  std::uint64_t replication = 0;
  std::vector<std::string> class_names;
  std::vector<wait_stats> by_class;
  wait_stats overall;
  std::vector<std::string> list_names;
  std::vector<list_stats> by_list;
  // Ratio without work conservation: release units that fell to an empty list's share.
  std::uint64_t lost_release_units = 0;
  std::optional<admission_result> admission;
  std::optional<compensation_result> compensation;
  std::optional<backend_result> backend;
  std::optional<polling_result> polling;
  std::uint64_t returning_visits = 0;
  std::uint64_t warmup_dropped = 0;              // waits not recorded (warm-up deletion)
  std::optional<std::uint64_t> mser_truncation;  // customers MSER-5 chose to drop
  std::vector<queue_sample> samples;
  std::string stop_reason;
  double end_time_s = 0;
  std::uint64_t events = 0;
  std::uint64_t peak_queue_length = 0;
  double queue_length_area = 0;  // integral of queue length over time, user-seconds
  double censored_wait_s = 0;    // time already waited by users still queued at the end
  std::uint64_t peak_memory_bytes = 0;

  double mean_queue_length() const { return end_time_s > 0 ? queue_length_area / end_time_s : 0.0; }
};

class room {
 public:
  room(const scenario& s, std::uint64_t seed, std::uint64_t replication = 0);
  room_result run();
  // Follow state changes (see trace.hpp); the sink must outlive run().
  void set_trace(trace_sink* sink, trace_filter filter) {
    trace_ = sink;
    trace_filter_ = std::move(filter);
  }

  // The engine's interface.
  void handle(const sim::event& e);
  bool done() const;

  std::size_t memory_bytes() const;
  const std::vector<double>& batch_means() const { return batch_means_; }

  // The queue's view of a user (see derived_store). Users are indexed by their visit
  // serial; the token is computed from it (no memory access on score ties) and the score is
  // a pure function of entry time, class and serial, so neither is stored.
  std::uint64_t token_of(std::uint32_t user) const { return sim::mix64(user ^ token_salt_); }
  double score_of(std::uint32_t user) const {
    double u = static_cast<double>(sim::mix64(user ^ noise_salt_) >> 11) * 0x1.0p-53;
    // A credited (temporary VIP) visit scores as the extra class after the real ones.
    std::uint32_t c = boosted(user) ? static_cast<std::uint32_t>(sc_.classes.size()) : cls(user);
    return sc_.policy.score(sim::sim_time::from_ns(entry_ns_[user]), c, u);
  }
  std::uint32_t cls(std::uint32_t user) const { return class_of_[user] & class_mask; }
  bool boosted(std::uint32_t user) const { return (class_of_[user] & boosted_bit) != 0; }
  std::uint8_t list_of(std::uint32_t user) const { return list_of_[user]; }
  void set_list(std::uint32_t user, std::uint8_t list) { list_of_[user] = list; }

 private:
  using list_zset = zset<derived_store<room>>;
  enum kind : std::uint32_t {
    k_arrival,
    k_backlog,
    k_tick,
    k_session_end,
    k_sample,
    k_weights,      // arg: index into the ratio schedule
    k_aging,        // arg: list index
    k_cancel,       // an order is cancelled: its stock comes back
    k_return,       // arg: index into pending_returns_
    k_compensate,   // in-place compensation: re-score users who passed the threshold
    k_abandon,      // arg: a user whose patience ran out
    k_service_end,  // arg: a backend job
    k_capacity,     // arg: index into the backend's capacity schedule
    k_control,      // the window controller's periodic look
    k_suggest,      // the server refreshes its suggested poll interval
    k_poll,         // arg: a followed user's first poll
    k_poll_queue,   // arg: a poll queue whose head is due
    k_reach,        // a released user reaches the backend
    k_reclaim,      // an unused release is taken back
    k_ps_done,      // arg: a generation; processor sharing's next completion
  };
  static constexpr std::uint8_t boosted_bit = 0x80;
  static constexpr std::uint8_t class_mask = 0x7f;
  // At equal times: arrivals first, then aging and weight changes, then releases, then the
  // sampler sees the result.
  enum phase : std::uint8_t { p_arrival = 0, p_control = 1, p_release = 2, p_sample = 3 };

  void on_arrival();
  // A visit: `boost` enters with a compensation credit; `credit_day` is the day the person
  // last used one (-1: never), carried across its visits.
  void enter(std::uint32_t user_class, bool boost = false, std::int64_t credit_day = -1);
  void on_return(std::uint32_t pending);
  void on_compensate();
  void on_abandon(std::uint32_t user);
  // Backend and controllers.
  void backend_arrive();
  void backend_start(std::uint32_t job);
  void on_service_end(std::uint32_t job);
  void on_capacity(std::uint32_t index);
  void on_control();
  void on_poll(std::uint32_t user);
  // A released user learns of it at told_ns, then reaches the backend (or not).
  void to_backend(std::uint32_t user, std::uint32_t user_class, std::int64_t told_ns);
  void backend_advance(std::int64_t now_ns);  // utilisation and per-window percentiles
  void backend_done(std::uint32_t job);       // a response: RT, timeouts, controllers
  void ps_advance(std::int64_t now_ns);
  void ps_reschedule();
  void on_ps_done(std::uint32_t generation);
  void close_window();
  std::uint64_t tick_batch();  // the controller's (or the fixed) batch for this tick
  // A visit ended (released): earn a credit, schedule the person's return.
  void after_visit(std::uint32_t c, std::int64_t wait_ns, bool was_boosted,
                   std::int64_t credit_day);
  std::int64_t day_of(std::int64_t ns) const { return ns / day_ns; }
  static constexpr std::int64_t day_ns = 86'400'000'000'000;
  void on_tick();
  void on_session_end();
  void on_sample();
  void on_aging(std::uint32_t list);
  // Releases up to n users by the selection policy; returns how many left the queue.
  std::uint64_t release(std::uint64_t n);
  void admit(std::uint32_t user, std::uint32_t list);
  void account_queue_change();
  void free_block(std::size_t b);
  bool user_alive(std::uint32_t user) const { return entry_ns_.has(user); }
  void schedule_session_end();
  void after_release();  // the released user orders (stock-capped admission)

  const scenario& sc_;
  sim::simulator sim_;
  // Streams: the same seed gives the same customers whatever the policy (common random numbers).
  sim::rng arrival_rng_, class_rng_, service_rng_, select_rng_;
  std::uint64_t token_salt_, noise_salt_;  // per (seed, replication): tokens and score noise
  sim::arrival_process arrivals_;
  sim::class_mix mix_;
  bool arrivals_open_ = true;
  bool backlog_pending_ = false;
  std::uint32_t next_user_ = 0;  // the next visit's serial

  // A lottery keeps its users in one unordered set per class, as Redis SETs drawn with SPOP:
  // a release draws a class with probability weight x size, then a member uniformly.
  bool lottery_;
  std::vector<std::vector<std::uint32_t>> lottery_sets_;
  sim::serial_table<std::uint32_t> set_pos_;  // each user's index in its class's set
  void lottery_draw();
  void lottery_draw_by_wait();
  std::vector<long double> lottery_entry_sum_;             // per class, seconds
  std::vector<std::deque<std::uint32_t>> lottery_by_age_;  // per class, in entry order
  void lottery_remove(std::size_t user_class, std::uint32_t index);

  // One sorted set per list.
  std::vector<std::unique_ptr<list_zset>> lists_;
  sim::class_mix sku_mix_;
  sim::rng sku_rng_;
  std::uint32_t draw_sku() { return sc_.skus.size() > 1 ? sku_mix_.draw(sku_rng_) : 0; }
  int pick_scheduled() const;  // the scheduler's list: oldest head and longest list first
  std::vector<std::uint64_t> list_sizes_;
  list_selector selector_;
  std::uint64_t queued_ = 0;
  // Aging: per list, users in the order they entered it. Those who entered on arrival are
  // kept as bare serials (their entry time is in entry_ns_); those who moved in keep the
  // time they moved.
  struct aging_entry {
    std::uint32_t user;
    std::int64_t since_ns;
  };
  struct aging_queue {
    std::deque<std::uint32_t> arrived;
    std::deque<aging_entry> moved;
  };
  std::vector<aging_queue> aging_;
  // The earliest time a user in list l is due to move up, if any.
  std::optional<std::int64_t> next_aging_ns(std::uint32_t l) const;
  void age_user(std::uint32_t user, std::uint32_t l);
  void schedule_aging(std::uint32_t l);
  std::vector<bool> aging_scheduled_;

  // Per user (by serial): entry time, class, which list holds it. Blocks of users who have
  // all left are freed.
  sim::serial_table<std::int64_t> entry_ns_;
  sim::serial_table<std::uint8_t> class_of_;
  sim::serial_table<std::uint8_t> list_of_;
  sim::block_liveness liveness_;

  // Returning users and compensation credits. Only returning visits and users who used a
  // credit have an entry in credit_day_ (sparse), so a first visit costs nothing.
  struct pending_return {
    std::uint8_t user_class;
    std::int64_t credit_expires_ns;  // -1: no credit
    std::int64_t credit_day;         // -1: no credit used yet
  };
  std::vector<pending_return> pending_returns_;
  std::vector<std::uint32_t> free_returns_;
  std::uint64_t returns_in_flight_ = 0;
  std::unordered_map<std::uint32_t, std::int64_t> credit_day_;  // user -> day a credit was used
  std::deque<std::uint32_t> compensation_due_;                  // in place: users by entry time
  bool compensation_scheduled_ = false;
  sim::rng return_rng_;
  sim::rng patience_rng_;
  std::uint64_t pay_later_salt_;

  std::vector<std::int64_t> job_released_ns_;
  std::vector<std::uint32_t> free_jobs_;
  std::deque<std::uint32_t> backend_queue_;
  std::uint32_t backend_workers_ = 0, backend_busy_ = 0;
  double rate_ = 0;              // controller: users per tick
  std::uint32_t since_cut_ = 0;  // ticks since the last cut (tiered)
  double round_rt_sum_ = 0;      // RT of this round's completions (tiered)
  std::uint64_t round_rt_n_ = 0;
  double last_rt_ms_ = 0;                                  // the RT the controller last saw
  std::deque<std::pair<std::int64_t, double>> rt_window_;  // (time, RT ms), window controller
  double rt_window_sum_ = 0;
  sim::rng backend_rng_, reach_rng_;
  std::uint64_t reach_in_flight_ = 0;  // released users on their way to the backend
  std::uint64_t reclaim_credit_ = 0;   // taken-back releases the next tick adds
  std::int64_t window_ns_ = 0, window_start_ns_ = 0, window_last_ns_ = 0;
  double window_busy_ = 0, window_capacity_ = 0;
  std::uint64_t window_completed_ = 0, window_timeouts_ = 0;
  std::vector<double> window_rt_ms_;
  // Processor sharing: (virtual finish, job) in a min-heap; backend_busy_ counts the jobs.
  std::vector<std::pair<double, std::uint32_t>> ps_jobs_;
  double ps_v_ = 0;
  std::int64_t ps_last_ns_ = 0;
  std::uint32_t ps_generation_ = 0;

  // Polling (see polling.hpp): exact command counts for everyone, events for followed users.
  std::optional<poll_counter> polls_;
  std::optional<eta_board> board_;
  std::optional<poll_follower> follower_;
  std::int64_t suggest_refreshes_ = 0;
  struct poll_queue {
    std::int64_t interval_ns;
    std::deque<std::pair<std::int64_t, std::uint32_t>> users;  // (due, user), in time order
  };
  std::vector<poll_queue> poll_queues_;

  std::optional<stock_gate> gate_;
  sim::rng order_rng_;

  std::uint32_t free_servers_ = 0;
  std::vector<std::uint64_t> waiting_by_class_;
  std::uint64_t released_since_sample_ = 0;
  std::int64_t last_change_ns_ = 0;
  std::uint64_t peak_memory_ = 0;

  // Warm-up: customers released so far, and (for MSER-5) batch means of 5 waits in
  // release order.
  std::uint64_t released_count_ = 0;
  std::vector<double> batch_means_;
  double batch_sum_ = 0;
  bool record_wait(std::int64_t entry_ns, std::int64_t wait_ns);

  trace_sink* trace_ = nullptr;
  trace_filter trace_filter_;
  void trace(std::uint32_t user, std::uint32_t user_class, const char* action, std::int32_t list) {
    if (!trace_ || !trace_filter_.accepts(sim_.now().ns(), user)) return;
    trace_->write({sim_.now().ns(), user, token_of(user), user_class, action, list, queued_});
  }

  // A trace line for a released user, whose class was kept at the release.
  std::unordered_map<std::uint32_t, std::uint8_t> traced_class_;
  void trace_later(std::uint32_t user, const char* action) {
    if (!trace_) return;
    auto it = traced_class_.find(user);
    if (it == traced_class_.end()) return;
    trace(user, it->second, action, -1);
    traced_class_.erase(it);
  }

  room_result result_;
};

// MSER-5: the number of batches of 5 to drop, minimising the squared standard error of the
// remaining batch means, searched over the first half.
std::size_t mser_truncation(const std::vector<double>& batch_means);

// Runs one replication of a scenario.
room_result run_scenario(const scenario& s, std::uint64_t seed, std::uint64_t replication = 0);

}  // namespace waitroom::models
