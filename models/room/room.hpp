#pragma once
// The waiting room: arrivals enter a Redis-style sorted set scored by the ordering policy,
// and a release mechanism moves them to the backend. One object is one replication.
#include <cstdint>
#include <string>
#include <vector>

#include "models/scenario/scenario.hpp"
#include "models/zset/zset.hpp"
#include "sim/core/histogram.hpp"
#include "sim/core/moments.hpp"
#include "sim/core/random.hpp"
#include "sim/core/serial_table.hpp"
#include "sim/core/simulator.hpp"

namespace waitroom::models {

struct wait_stats {
  std::uint64_t arrived = 0;
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
};

struct room_result {
  std::uint64_t seed = 0;
  std::uint64_t replication = 0;
  std::vector<std::string> class_names;
  std::vector<wait_stats> by_class;
  wait_stats overall;
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

  // The engine's interface.
  void handle(const sim::event& e);
  bool done() const;

  std::size_t memory_bytes() const;

  // The queue's view of a user (see derived_store). Users are indexed by their visit
  // serial; the token is computed from it (no memory access on score ties) and the score is
  // a pure function of entry time, class and serial, so neither is stored.
  std::uint64_t token_of(std::uint32_t user) const { return sim::mix64(user ^ token_salt_); }
  double score_of(std::uint32_t user) const {
    double u = static_cast<double>(sim::mix64(user ^ noise_salt_) >> 11) * 0x1.0p-53;
    return sc_.policy.score(sim::sim_time::from_ns(entry_ns_[user]), class_of_[user], u);
  }
  bool is_queued(std::uint32_t user) const { return queued_[user]; }
  void set_queued(std::uint32_t user, bool q) { queued_[user] = q; }

 private:
  enum kind : std::uint32_t { k_arrival, k_backlog, k_tick, k_session_end, k_sample };
  // At equal times: arrivals first, then releases, then the sampler sees the result.
  enum phase : std::uint8_t { p_arrival = 0, p_release = 1, p_sample = 2 };

  void on_arrival();
  void enter(std::uint32_t user_class);
  void on_tick();
  void on_session_end();
  void on_sample();
  void admit(std::uint32_t user);
  void free_block(std::size_t b);
  void account_queue_change();

  const scenario& sc_;
  sim::simulator sim_;
  // Streams: the same seed gives the same customers whatever the policy (common random numbers).
  sim::rng arrival_rng_, class_rng_, service_rng_;
  std::uint64_t token_salt_, noise_salt_;  // per (seed, replication): tokens and score noise
  sim::arrival_process arrivals_;
  sim::class_mix mix_;
  bool arrivals_open_ = true;
  bool backlog_pending_ = false;
  std::uint32_t next_user_ = 0;  // the next visit's serial

  zset<derived_store<room>> queue_;
  // Per user (by serial): entry time, class, whether queued. Blocks of users who have all
  // left are freed.
  sim::serial_table<std::int64_t> entry_ns_;
  sim::serial_table<std::uint8_t> class_of_;
  sim::serial_table<bool> queued_;
  sim::block_liveness liveness_;

  std::uint32_t free_servers_ = 0;
  std::vector<std::uint64_t> waiting_by_class_;
  std::uint64_t released_since_sample_ = 0;
  std::int64_t last_change_ns_ = 0;
  std::uint64_t peak_memory_ = 0;

  room_result result_;
};

// Runs one replication of a scenario.
room_result run_scenario(const scenario& s, std::uint64_t seed, std::uint64_t replication = 0);

}  // namespace waitroom::models
