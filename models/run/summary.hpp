#pragma once
// What a replication keeps once it has run: the summary that replications' reports, `check`
// and shard files read (per-class and whole-room statistics, histograms reduced to their
// non-empty buckets), without the time series of a single run. A 25-user replication kept
// ~200 KB (three dense 64 KiB histograms); its summary keeps a few KB.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "models/results/result.hpp"
#include "models/spec/scenario.hpp"

namespace waitroom::models {

void keep_summary_only(room_result& r);

// Bytes a summary holds beyond sizeof(room_result): for the up-front memory estimate of
// replications (an upper bound given the number of non-empty histogram buckets).
std::size_t summary_heap_bytes(const room_result& r);

// Tail probabilities of one replication's waits, over the users it released and counts (the
// wait histogram, as the percentiles): nullopt when it released none. P(wait > 0) is exact
// (a wait of 0 ns has its own bucket); P(wait > t) counts the buckets above t exactly and the
// share of t's own bucket above t as if its waits were spread evenly over the bucket (exact
// below 256 ns; the bucket spans < 0.79% of t, so the error is at most that bucket's share).
std::optional<double> waited_share(const wait_stats& w);
std::optional<double> wait_above_share(const wait_stats& w, double t_s);
// The same share of any histogram of waits in ns (e.g. the abandoners' abandon_ns).
std::optional<double> share_above(const sim::log_histogram& h, double t_s);

// The waits t at which replications report P(wait > t) for class c (-1: everyone): the limits
// of the scenario's SLA targets on waits (mean, percentiles, max) of that class or of everyone
// (for everyone: of any class), or, when there are none, fixed points: 10 s, 1 min, 5 min,
// 15 min and 1 h. Sorted, without repeats.
struct tail_point {
  double t_s;
  bool from_sla;
};
std::vector<tail_point> tail_points(const scenario& s, std::int32_t user_class);

}  // namespace waitroom::models
