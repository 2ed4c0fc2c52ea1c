#include "models/run/summary.hpp"

#include <algorithm>
#include <cmath>

namespace waitroom::models {

namespace {
void compact(wait_stats& w) {
  w.wait_ns.compact();
  if (w.abandon_ns) w.abandon_ns->compact();
}

template <class T>
void drop(std::vector<T>& v) {
  std::vector<T>().swap(v);
}

std::size_t heap(const wait_stats& w) {
  return w.wait_ns.memory_bytes() + (w.abandon_ns ? w.abandon_ns->memory_bytes() : 0);
}
}  // namespace

void keep_summary_only(room_result& r) {
  for (auto& w : r.by_class) compact(w);
  compact(r.overall);
  if (r.compensation) compact(r.compensation->credited);
  if (r.backend) {
    r.backend->rt_ns.compact();
    drop(r.backend->t_s);
    drop(r.backend->rate_per_tick);
    drop(r.backend->rt_ms);
    drop(r.backend->windows);
  }
  if (r.polling)
    for (auto& c : r.polling->by_class) {
      for (auto& e : c.eta) e.abs_error_ns.compact();
      drop(c.trails);  // a single run's chart of a few users' shown rank
    }
  if (r.admission) drop(r.admission->over_time);  // a single run's stock chart
  drop(r.samples);  // a single run's time series (--series, the JSON of `run`)
}

std::size_t summary_heap_bytes(const room_result& r) {
  std::size_t n = 0;
  for (const auto& w : r.by_class) n += heap(w) + sizeof(w);
  n += heap(r.overall);
  if (r.compensation) n += heap(r.compensation->credited);
  if (r.backend) n += r.backend->rt_ns.memory_bytes();
  if (r.polling) {
    for (const auto& c : r.polling->by_class)
      for (const auto& e : c.eta) n += e.abs_error_ns.memory_bytes() + sizeof(e);
    const auto& s = r.polling->per_second;
    for (const auto* v : {&s.enter, &s.remove, &s.release, &s.waiting_polls, &s.lookups,
                          &s.discoveries, &s.post_release_polls, &s.uncached_discoveries})
      n += v->capacity() * sizeof(std::uint64_t);
  }
  for (const auto& c : r.class_names) n += c.capacity() + sizeof(c);
  for (const auto& l : r.list_names) n += l.capacity() + sizeof(l);
  n += r.by_list.capacity() * sizeof(list_stats);
  return n;
}

std::optional<double> waited_share(const wait_stats& w) {
  const std::uint64_t n = w.wait_ns.count();
  if (n == 0) return std::nullopt;
  return 1.0 - static_cast<double>(w.wait_ns.bucket(0)) / static_cast<double>(n);
}

std::optional<double> wait_above_share(const wait_stats& w, double t_s) {
  return share_above(w.wait_ns, t_s);
}

std::optional<double> share_above(const sim::log_histogram& h, double t_s) {
  const std::uint64_t n = h.count();
  if (n == 0) return std::nullopt;
  const double v = std::round(t_s * 1e9);
  double above = 0;
  for (const auto& b : h.nonzero_buckets()) {
    const auto lower = static_cast<double>(b.lower), upper = static_cast<double>(b.upper);
    if (lower > v)
      above += static_cast<double>(b.count);
    else if (upper - 1 > v)  // the bucket's integer values v+1 .. upper-1 are above t
      above += static_cast<double>(b.count) * (upper - 1 - v) / (upper - lower);
  }
  return above / static_cast<double>(n);
}

std::vector<tail_point> tail_points(const scenario& s, std::int32_t user_class) {
  std::vector<tail_point> out;
  if (s.sla)
    for (const auto& t : s.sla->targets) {
      const bool wait = t.metric == sla_metric::mean_wait_s || t.metric == sla_metric::p50_wait_s ||
                        t.metric == sla_metric::p90_wait_s || t.metric == sla_metric::p95_wait_s ||
                        t.metric == sla_metric::p99_wait_s || t.metric == sla_metric::p999_wait_s ||
                        t.metric == sla_metric::max_wait_s;
      const bool mine = user_class < 0 || t.user_class < 0 || t.user_class == user_class;
      if (wait && mine && t.max && std::isfinite(*t.max) && *t.max > 0)
        out.push_back({*t.max, true});
    }
  if (out.empty())
    for (double t : {10.0, 60.0, 300.0, 900.0, 3600.0}) out.push_back({t, false});
  std::sort(out.begin(), out.end(),
            [](const tail_point& a, const tail_point& b) { return a.t_s < b.t_s; });
  out.erase(std::unique(out.begin(), out.end(),
                        [](const tail_point& a, const tail_point& b) { return a.t_s == b.t_s; }),
            out.end());
  return out;
}

}  // namespace waitroom::models
