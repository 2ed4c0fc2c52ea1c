#pragma once
// What replications report, taken in replication by replication (in their order) and
// reduced as they come: the per-replication metrics' running moments, the shares' running
// moments, the pooled waits, a short row per replication and what the censoring warnings
// need. The intervals are those of every replication kept (sim::mean_interval adds values in
// order by Welford's updates, as here), in memory that does not grow with the count beyond
// the row (40 bytes) the JSON result lists.
#include <cstdint>
#include <optional>
#include <vector>

#include "models/results/result.hpp"
#include "models/run/summary.hpp"
#include "models/sla/sla.hpp"
#include "models/spec/scenario.hpp"
#include "sim/confidence.hpp"
#include "sim/moments.hpp"

namespace waitroom::models {

class replication_digest {
 public:
  struct row {
    std::uint64_t replication;
    double mean_wait_s;
    std::uint64_t released;
    double end_time_s;
    std::uint64_t events;
  };
  // Per class: users still waiting at the end (censored), released and arrived, and the
  // longest censored wait, summed over replications.
  struct censoring {
    std::uint64_t censored = 0, released = 0, arrived = 0;
    double longest_s = 0;
  };

  // keep_rows: keep each replication's row (rows()), which the JSON result lists; a table
  // needs none, and then nothing grows with the count.
  explicit replication_digest(const scenario& s, bool keep_rows = true);

  // The next replication: its metric table and its waits (everyone first, then each class).
  void add(std::uint64_t replication, double end_time_s, std::uint64_t events,
           const metric_table& table, const std::vector<const wait_stats*>& waits);
  void add(const room_result& r);

  std::size_t count() const { return count_; }
  // The t interval of a metric over replications, class c (-1: everyone).
  sim::interval metric(std::int32_t c, sla_metric m, double level) const;
  // P(wait > 0) and P(wait > t) at tail_points(s, c)[k]: nullopt when a replication released
  // nobody of the class (no share to average).
  std::optional<sim::interval> waited(std::int32_t c, double level) const;
  std::optional<sim::interval> above(std::int32_t c, std::size_t k, double level) const;
  const std::vector<tail_point>& tails(std::int32_t c) const { return tails_[index(c)]; }
  // Every replication's waits merged, in replication order.
  const wait_stats& pooled(std::int32_t c) const { return pooled_[index(c)]; }
  const std::vector<row>& rows() const { return rows_; }
  const std::vector<censoring>& censored_by_class() const { return censoring_; }

 private:
  struct share {
    sim::running_moments moments;
    bool missing = false;
  };
  static std::size_t index(std::int32_t c) { return static_cast<std::size_t>(c + 1); }
  static void put(share& into, std::optional<double> x);
  static std::optional<sim::interval> interval_of(const share& s, double level);

  std::vector<std::vector<sim::running_moments>> metrics_;  // [class + 1][metric]
  std::vector<std::vector<tail_point>> tails_;              // [class + 1]
  std::vector<share> waited_;                               // [class + 1]
  std::vector<std::vector<share>> above_;                   // [class + 1][tail]
  std::vector<wait_stats> pooled_;                          // [class + 1]
  std::vector<row> rows_;
  bool keep_rows_;
  std::size_t count_ = 0;
  std::vector<censoring> censoring_;  // [class]
};

}  // namespace waitroom::models
