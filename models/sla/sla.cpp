#include "models/sla/sla.hpp"

#include <cmath>
#include <limits>
#include <utility>

#include <fmt/format.h>

#include "models/results/censoring.hpp"

namespace waitroom::models {

const std::vector<std::string>& sla_metric_names() {
  static const std::vector<std::string> names = {
      "mean_wait_s",          "p50_wait_s",       "p90_wait_s",         "p95_wait_s",
      "p99_wait_s",           "p999_wait_s",      "max_wait_s",         "refused_share",
      "waiting_at_end_share", "abandoned_share",  "eta_mae_s",          "rank_moved_back_share",
      "redis_peak_per_s",     "backend_p95_rt_s", "backend_error_rate", "redis_memory_mb"};
  return names;
}

bool needs_polling(sla_metric m) {
  return m == sla_metric::eta_mae_s || m == sla_metric::rank_moved_back_share ||
         m == sla_metric::redis_peak_per_s;
}
bool needs_backend(sla_metric m) {
  return m == sla_metric::backend_p95_rt_s || m == sla_metric::backend_error_rate;
}

std::optional<double> quantile_of(sla_metric m) {
  switch (m) {
    case sla_metric::p50_wait_s:
      return 0.5;
    case sla_metric::p90_wait_s:
      return 0.9;
    case sla_metric::p95_wait_s:
      return 0.95;
    case sla_metric::p99_wait_s:
      return 0.99;
    case sla_metric::p999_wait_s:
      return 0.999;
    default:
      return std::nullopt;
  }
}

bool is_share(sla_metric m) {
  switch (m) {
    case sla_metric::refused_share:
    case sla_metric::waiting_at_end_share:
    case sla_metric::abandoned_share:
    case sla_metric::rank_moved_back_share:
    case sla_metric::backend_error_rate:
      return true;
    case sla_metric::mean_wait_s:
    case sla_metric::p50_wait_s:
    case sla_metric::p90_wait_s:
    case sla_metric::p95_wait_s:
    case sla_metric::p99_wait_s:
    case sla_metric::p999_wait_s:
    case sla_metric::max_wait_s:
    case sla_metric::eta_mae_s:
    case sla_metric::redis_peak_per_s:
    case sla_metric::backend_p95_rt_s:
    case sla_metric::redis_memory_mb:
      return false;
  }
  return false;
}

const char* to_string(sla_metric m) {
  return sla_metric_names()[static_cast<std::size_t>(m)].c_str();
}

namespace {

constexpr double none = std::numeric_limits<double>::quiet_NaN();
constexpr double unbounded = std::numeric_limits<double>::infinity();

const wait_stats& waits_of(const room_result& r, std::int32_t user_class) {
  return user_class < 0 ? r.overall : r.by_class[static_cast<std::size_t>(user_class)];
}

// A share of the users the statistics count (after warm-up); none when there are none.
double share_of(const wait_stats& w, std::uint64_t part) {
  const std::uint64_t n = w.counted();
  return n ? static_cast<double>(part) / static_cast<double>(n) : none;
}

}  // namespace

bool is_wait_metric(sla_metric m) {
  return m == sla_metric::mean_wait_s || m == sla_metric::max_wait_s || quantile_of(m);
}

std::size_t metric_row_width() {
  return 3 * sla_metric_names().size() + aux_count;
}

double metric_value(const room_result& r, std::int32_t user_class, sla_metric m) {
  const wait_stats& w = waits_of(r, user_class);
  // A class without a released (counted) user has no wait to report: never a 0.
  if (is_wait_metric(m) && w.wait_s.count() == 0) return none;
  if (const auto q = quantile_of(m)) return w.wait_ns.quantile(*q) * 1e-9;
  switch (m) {
    case sla_metric::mean_wait_s:
      return w.wait_s.mean();
    case sla_metric::max_wait_s:
      return w.wait_s.max();
    case sla_metric::refused_share:
      return share_of(w, w.refused_counted);
    case sla_metric::waiting_at_end_share:
      return share_of(w, w.censored_s.count());
    case sla_metric::abandoned_share:
      return share_of(w, w.abandon_s.count());
    case sla_metric::redis_memory_mb:
      return r.redis_memory_bytes / 1e6;
    default:
      break;
  }
  if (needs_polling(m) && !r.polling) return none;
  if (needs_backend(m) && !r.backend) return none;
  // A followed-user figure for the class, or for everyone merged.
  auto followed = [&] {
    follow_class_result f;
    f.eta.resize(eta_estimator_count);
    for (std::size_t c = 0; c < r.polling->by_class.size(); ++c)
      if (user_class < 0 || static_cast<std::size_t>(user_class) == c)
        f.merge(r.polling->by_class[c]);
    return f;
  };
  switch (m) {
    case sla_metric::eta_mae_s: {
      const auto f = followed();
      const auto& a = f.eta[1];  // smoothed_rounds: the Redis ZSet VIP article's estimator
      return a.predictions ? a.abs_error_s.mean() : none;
    }
    case sla_metric::rank_moved_back_share: {
      const auto f = followed();
      return f.users
                 ? static_cast<double>(f.users_backwards_smoothed) / static_cast<double>(f.users)
                 : none;
    }
    case sla_metric::redis_peak_per_s:
      return static_cast<double>(r.polling->peak_commands_per_second());
    case sla_metric::backend_p95_rt_s:
      return r.backend->rt_ns.quantile(0.95) * 1e-9;
    case sla_metric::backend_error_rate:
      return r.backend->completed ? static_cast<double>(r.backend->timeouts) /
                                        static_cast<double>(r.backend->completed)
                                  : 0.0;
    default:
      break;
  }
  return 0.0;
}

sim::interval metric_interval(const std::vector<room_result>& rs, std::int32_t user_class,
                              sla_metric m, double confidence) {
  std::vector<double> xs;
  for (const auto& r : rs) xs.push_back(metric_value(r, user_class, m));
  return sim::mean_interval(xs, confidence);
}

std::pair<double, double> metric_bounds(const room_result& r, std::int32_t user_class,
                                        sla_metric m) {
  const wait_stats& w = waits_of(r, user_class);
  auto pair_of = [](const stat_bounds& b) {
    return std::pair{b.lower, b.upper.value_or(std::isnan(b.lower) ? none : unbounded)};
  };
  if (const auto q = quantile_of(m)) return pair_of(quantile_bounds(w, *q));
  // The mean and the maximum have no upper bound while anyone is still waiting. For a
  // verdict we assume what the run supports: a user still waiting waits at most as much
  // longer as the longest wait the run saw completed (stated with every such verdict). An
  // overloaded run, where that wait grows with the run, never passes; a stable run with a
  // handful of users in the queue at its horizon is not held up by them.
  if (m == sla_metric::mean_wait_s || m == sla_metric::max_wait_s) {
    const auto b = pair_of(m == sla_metric::mean_wait_s ? mean_bounds(w) : max_bounds(w));
    const std::uint64_t n = w.wait_s.count(), c = w.censored_s.count();
    if (c == 0 || n == 0) return b;
    const double longest = w.wait_s.max();
    if (m == sla_metric::max_wait_s)
      return {b.first, std::max(longest, w.censored_s.max() + longest)};
    const double sum = w.wait_s.mean() * static_cast<double>(n) +
                       (w.censored_s.mean() + longest) * static_cast<double>(c);
    return {b.first, sum / static_cast<double>(n + c)};
  }
  // Users still waiting may give up later: between none of them and all of them.
  if (m == sla_metric::abandoned_share)
    return {share_of(w, w.abandon_s.count()),
            share_of(w, w.abandon_s.count() + w.censored_s.count())};
  const double v = metric_value(r, user_class, m);
  return {v, v};
}

metric_table tabulate(const room_result& r) {
  metric_table t;
  const auto n = static_cast<std::int32_t>(r.by_class.size());
  const std::size_t metrics = sla_metric_names().size();
  for (std::int32_t c = -1; c < n; ++c) {
    metric_row row(metric_row_width(), 0.0);
    for (std::size_t m = 0; m < metrics; ++m) {
      const auto metric = static_cast<sla_metric>(m);
      row[m] = metric_value(r, c, metric);
      const auto [lo, hi] = metric_bounds(r, c, metric);
      row[metrics + m] = lo;
      row[2 * metrics + m] = hi;
    }
    const wait_stats& w = waits_of(r, c);
    row[3 * metrics + aux_released] = static_cast<double>(w.wait_s.count());
    row[3 * metrics + aux_censored] = static_cast<double>(w.censored_s.count());
    row[3 * metrics + aux_counted] = static_cast<double>(w.counted());
    t.push_back(std::move(row));
  }
  return t;
}

sim::interval table_interval(const std::vector<metric_table>& ts, std::int32_t user_class,
                             sla_metric m, double confidence) {
  std::vector<double> xs;
  for (const auto& t : ts)
    // at(): a table of the wrong shape is a bug (readers check shapes), never a wild read.
    xs.push_back(t.at(static_cast<std::size_t>(user_class + 1)).at(static_cast<std::size_t>(m)));
  return sim::mean_interval(xs, confidence);
}

namespace {

// The t interval's bounds over every set of replication values x with lo <= x <= hi (each
// replication's true value lies there when users are censored). With k = t / sqrt(R), the
// interval is mean(x) +- k sd(x); mean(x) lies in [mean(lo), mean(hi)], and sd is a
// seminorm, so |sd(x) - sd(y)| <= D = |hi - lo|_2 / sqrt(R - 1) for any corner y: cheap
// rigorous bounds without visiting the 2^R corners.
struct box_interval {
  double lowest_lo, highest_hi;  // how far the interval can reach
  double highest_lo, lowest_hi;  // how far in its ends must stay
};

double sd_of(const std::vector<double>& x) {
  double mean = 0;
  for (double v : x) mean += v;
  mean /= static_cast<double>(x.size());
  double ss = 0;
  for (double v : x) ss += (v - mean) * (v - mean);
  return std::sqrt(ss / static_cast<double>(x.size() - 1));
}

double mean_of(const std::vector<double>& x) {
  double sum = 0;
  for (double v : x) sum += v;
  return sum / static_cast<double>(x.size());
}

box_interval interval_over_box(const std::vector<double>& lo, const std::vector<double>& hi,
                               double confidence) {
  constexpr double inf = unbounded;
  if (lo.size() < 2) return {-inf, inf, -inf, inf};  // no interval from one replication
  const auto r = static_cast<double>(lo.size());
  const double k = sim::student_t_quantile(0.5 + 0.5 * confidence, r - 1.0) / std::sqrt(r);
  double spread = 0;
  bool infinite = false;
  for (std::size_t i = 0; i < lo.size(); ++i) {
    if (std::isinf(hi[i]))
      infinite = true;
    else
      spread += (hi[i] - lo[i]) * (hi[i] - lo[i]);
  }
  const double m_lo = mean_of(lo), s_lo = sd_of(lo);
  if (infinite)  // some value can be anything above its lower bound
    return {-inf, inf, inf, m_lo};
  const double d = std::sqrt(spread / (r - 1.0));
  const double m_hi = mean_of(hi), s_hi = sd_of(hi);
  return {m_lo - k * (s_lo + d), m_hi + k * (s_hi + d), m_hi - k * std::max(0.0, s_hi - d),
          m_lo + k * std::max(0.0, s_lo - d)};
}

std::string count_text(double total, std::size_t reps) {
  return fmt::format("{:.0f} in {} replication{}", total, reps, reps == 1 ? "" : "s");
}

}  // namespace

const char* to_string(sla_verdict v) {
  switch (v) {
    case sla_verdict::pass:
      return "pass";
    case sla_verdict::fail:
      return "fail";
    case sla_verdict::undecided:
      return "undecided";
  }
  return "undecided";
}

std::vector<sla_outcome> evaluate(const sla_spec& spec, const std::vector<metric_table>& ts) {
  std::vector<sla_outcome> out;
  const std::size_t metrics = sla_metric_names().size();
  for (const auto& t : spec.targets) {
    const auto row = static_cast<std::size_t>(t.user_class + 1);
    const auto m = static_cast<std::size_t>(t.metric);
    sla_outcome o;
    o.target = t;
    o.estimate = table_interval(ts, t.user_class, t.metric, spec.confidence);
    std::vector<double> lo, hi;
    std::size_t empty = 0;
    for (const auto& tb : ts) {
      const auto& x = tb[row];
      o.censored += x[3 * metrics + aux_censored];
      o.released += x[3 * metrics + aux_released];
      if (std::isnan(x[m]) || std::isnan(x[metrics + m])) ++empty;
      lo.push_back(x[metrics + m]);
      // An unbounded upper bound travels through shard files as null (JSON has no infinity)
      // and comes back NaN: it is still unbounded, so merged verdicts read as unsharded ones.
      const double upper = x[2 * metrics + m];
      hi.push_back(std::isnan(upper) ? std::numeric_limits<double>::infinity() : upper);
    }
    const bool censored = lo != hi;
    // A metric with no data in some replication (a class nobody of which was released, a
    // figure the run could not measure) cannot be judged: never a pass, never a quiet 0.
    if (ts.empty() || empty > 0) {
      o.verdict = sla_verdict::undecided;
      o.bounds = {std::numeric_limits<double>::quiet_NaN(), unbounded};
      o.reason = is_wait_metric(t.metric)
                     ? fmt::format("no released user to measure in {} of {} replications", empty,
                                   ts.size())
                     : fmt::format("no data in {} of {} replications", empty, ts.size());
      out.push_back(std::move(o));
      continue;
    }
    const bool pass_plain =
        (!t.max || o.estimate.hi() <= *t.max) && (!t.min || o.estimate.lo() >= *t.min);
    if (!censored) {
      o.verdict = pass_plain ? sla_verdict::pass : sla_verdict::fail;
      o.bounds = {o.estimate.lo(), o.estimate.hi()};
      o.pass = pass_plain;
      out.push_back(std::move(o));
      continue;
    }
    // Censored users: the verdict must hold whatever their waits turn out to be.
    const auto b = interval_over_box(lo, hi, spec.confidence);
    o.bounds = {b.lowest_lo, b.highest_hi};
    const bool surely_pass =
        (!t.max || b.highest_hi <= *t.max) && (!t.min || b.lowest_lo >= *t.min);
    const bool surely_fail = (t.max && b.lowest_hi > *t.max) || (t.min && b.highest_lo < *t.min);
    const std::string who =
        fmt::format("{} still waiting at the end", count_text(o.censored, ts.size()));
    if (surely_pass) {
      o.verdict = sla_verdict::pass;
      o.pass = true;
    } else if (surely_fail) {
      o.verdict = sla_verdict::fail;
      o.reason = who + "; counting them at their time so far already breaks the limit";
    } else {
      o.verdict = sla_verdict::undecided;
      const double at_least = mean_of(lo);
      o.reason = std::isinf(b.highest_hi)
                     ? fmt::format(
                           "{}; counting them at their time so far it is at least {:.4g}, and "
                           "they could put it anywhere above (not decidable)",
                           who, at_least)
                     : fmt::format(
                           "{}; their waits could change the verdict: counting them from their "
                           "time so far to that plus the longest completed wait, the estimate is "
                           "{:.4g} to {:.4g} and the interval could reach [{:.4g}, {:.4g}]",
                           who, at_least, mean_of(hi), b.lowest_lo, b.highest_hi);
    }
    out.push_back(std::move(o));
  }
  return out;
}

std::vector<sla_outcome> evaluate(const sla_spec& spec, const std::vector<room_result>& rs) {
  std::vector<metric_table> ts;
  for (const auto& r : rs) ts.push_back(tabulate(r));
  return evaluate(spec, ts);
}

}  // namespace waitroom::models
