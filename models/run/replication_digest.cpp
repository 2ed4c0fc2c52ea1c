#include "models/run/replication_digest.hpp"

#include <algorithm>

namespace waitroom::models {

replication_digest::replication_digest(const scenario& s, bool keep_rows)
    : metrics_(s.classes.size() + 1),
      waited_(s.classes.size() + 1),
      above_(s.classes.size() + 1),
      pooled_(s.classes.size() + 1),
      keep_rows_(keep_rows),
      censoring_(s.classes.size()) {
  for (std::int32_t c = -1; c < static_cast<std::int32_t>(s.classes.size()); ++c) {
    tails_.push_back(tail_points(s, c));
    above_[index(c)].resize(tails_.back().size());
  }
}

void replication_digest::put(share& into, std::optional<double> x) {
  if (x)
    into.moments.add(*x);
  else
    into.missing = true;
}

std::optional<sim::interval> replication_digest::interval_of(const share& s, double level) {
  if (s.missing) return std::nullopt;
  return sim::mean_interval(s.moments, level);
}

void replication_digest::add(std::uint64_t replication, double end_time_s, std::uint64_t events,
                             const metric_table& table,
                             const std::vector<const wait_stats*>& waits) {
  for (std::size_t c = 0; c < metrics_.size(); ++c) {
    // at(): a table of the wrong shape is a bug (readers check shapes), never a wild read.
    const metric_row& r = table.at(c);
    auto& ms = metrics_[c];
    if (ms.empty()) ms.resize(r.size());
    for (std::size_t m = 0; m < ms.size(); ++m) ms[m].add(r.at(m));
    const wait_stats& w = *waits.at(c);
    put(waited_[c], waited_share(w));
    for (std::size_t k = 0; k < tails_[c].size(); ++k)
      put(above_[c][k], wait_above_share(w, tails_[c][k].t_s));
    pooled_[c].merge(w);
    if (c == 0) continue;
    auto& z = censoring_[c - 1];
    z.censored += w.censored_s.count();
    z.released += w.wait_s.count();
    z.arrived += w.arrived;
    if (w.censored_s.count()) z.longest_s = std::max(z.longest_s, w.censored_s.max());
  }
  const wait_stats& all = *waits.at(0);
  ++count_;
  if (keep_rows_)
    rows_.push_back({replication, all.wait_s.mean(), all.released, end_time_s, events});
}

void replication_digest::add(const room_result& r) {
  std::vector<const wait_stats*> waits{&r.overall};
  for (const auto& w : r.by_class) waits.push_back(&w);
  add(r.replication, r.end_time_s, r.events, tabulate(r), waits);
}

sim::interval replication_digest::metric(std::int32_t c, sla_metric m, double level) const {
  return sim::mean_interval(metrics_.at(index(c)).at(static_cast<std::size_t>(m)), level);
}

std::optional<sim::interval> replication_digest::waited(std::int32_t c, double level) const {
  return interval_of(waited_.at(index(c)), level);
}

std::optional<sim::interval> replication_digest::above(std::int32_t c, std::size_t k,
                                                       double level) const {
  return interval_of(above_.at(index(c)).at(k), level);
}

}  // namespace waitroom::models
