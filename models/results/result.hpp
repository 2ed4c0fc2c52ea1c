#pragma once
// What one replication of a room reports: per class, per list, and per component that the
// scenario turned on. sla/ and reports/ read this, never the room itself.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/polling/polling.hpp"
#include "sim/histogram.hpp"
#include "sim/moments.hpp"

namespace waitroom::models {

struct wait_stats {
  std::uint64_t arrived = 0;       // = refused + released + abandoned + waiting_at_end
  std::uint64_t refused = 0;       // sold out when they came (stock-capped admission)
  std::uint64_t abandoned = 0;     // gave up waiting
  std::uint64_t paid_later = 0;    // of those, paid later from "orders to pay"
  sim::running_moments abandon_s;  // how long those who gave up had waited
  // The same waits as a histogram (counted users, as abandon_s), absent while nobody gave up.
  std::optional<sim::log_histogram> abandon_ns;
  std::uint64_t released = 0;
  std::uint64_t waiting_at_end = 0;
  sim::running_moments wait_s;  // entry -> release, seconds
  sim::log_histogram wait_ns;   // the same waits, for quantiles
  // The warm-up rule applies to every statistic: wait_s and abandon_s hold only users it
  // counts; of the refused, these many; and of those still waiting at the end, the time each
  // had waited (censored waits: a lower bound of its wait), as moments and, when there are
  // any, a histogram (kept absent otherwise: a histogram is 64 KiB).
  std::uint64_t refused_counted = 0;
  sim::running_moments censored_s;
  std::optional<sim::log_histogram> censored_ns;

  // Users the statistics count: refused, released, gave up or still waiting, after warm-up.
  std::uint64_t counted() const {
    return refused_counted + wait_s.count() + abandon_s.count() + censored_s.count();
  }
  void merge(const wait_stats& o);
};

// The most queue-length samples a run records (a run without a horizon could sample without
// end): the series stops there, and the CLI warns.
inline constexpr std::size_t max_queue_samples = 10'000'000;

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
  // At every queue sample: slots available, orders placed and users refused so far.
  struct point {
    double t_s;
    std::uint64_t available, orders, refused;
  };
  std::vector<point> over_time;
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
  // Little's law over the counted part of the run: from the end of the warm-up (0 without
  // one; the end time when it never ended) and the queue-length integral after it.
  double counted_from_s = 0;
  double queue_length_area_counted = 0;
  std::uint64_t peak_memory_bytes = 0;
  // The peak Redis memory of the room's sets, estimated (models/queues/redis_memory_peak.hpp).
  double redis_memory_bytes = 0;

  double mean_queue_length() const { return end_time_s > 0 ? queue_length_area / end_time_s : 0.0; }
};

}  // namespace waitroom::models
