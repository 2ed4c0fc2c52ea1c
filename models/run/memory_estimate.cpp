#include "models/run/memory_estimate.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include <fmt/format.h>

#include "models/results/result.hpp"
#include "sim/event_queue.hpp"
#include "sim/histogram.hpp"

namespace waitroom::models {

namespace {
// The most users a second the room can release: an upper bound, so the queue's estimate is a
// lower bound of what the run will see (no run is refused on an overestimate of its queue).
double max_release_rate(const release_spec& r) {
  if (r.mode == release_mode::concurrency) {
    const double m = r.session.mean();
    return m > 0 ? static_cast<double>(r.slots) / m : std::numeric_limits<double>::infinity();
  }
  const double interval = r.interval.seconds();
  if (interval <= 0) return std::numeric_limits<double>::infinity();
  double batch = static_cast<double>(r.batch);
  const auto& c = r.controller;
  if (c.kind == controller_kind::tiered) {
    double f = 0;
    for (double x : c.factors) f = std::max(f, x);
    batch = std::max(batch * f, c.floor);
  } else if (c.kind == controller_kind::window) {
    batch = std::max(c.ceiling > 0 ? c.ceiling : 2.0 * batch, c.floor);
  }
  return batch / interval;
}

// The mean of max(0, X): a patience or a delay is drawn from d and cut at 0 when negative.
// Infinite or NaN when the doubles cannot hold it (a lognormal of a huge sigma); the callers
// then assume the worst.
double mean_cut_at_zero(const sim::distribution& d) {
  switch (d.kind) {
    case sim::dist_kind::normal: {
      if (!(d.b > 0)) return std::max(0.0, d.a);
      const double z = d.a / d.b;  // E[max(0, X)] = mu Phi(z) + sigma phi(z)
      return d.a * 0.5 * std::erfc(-z / std::sqrt(2.0)) +
             d.b * std::exp(-0.5 * z * z) / std::sqrt(2.0 * std::numbers::pi);
    }
    case sim::dist_kind::uniform: {
      if (!(d.b > d.a)) return std::max(0.0, d.a);
      const double lo = std::max(0.0, d.a), hi = std::max(0.0, d.b);
      return 0.5 * (hi * hi - lo * lo) / (d.b - d.a);
    }
    case sim::dist_kind::deterministic:
      return std::max(0.0, d.a);
    case sim::dist_kind::empirical: {
      double sum = 0;
      for (double x : d.samples) sum += std::max(0.0, x);
      return d.samples.empty() ? 0.0 : sum / static_cast<double>(d.samples.size());
    }
    default:  // exponential, lognormal, gamma, erlang: never negative
      return d.mean();
  }
}

// Bytes of the events scheduled far ahead (sim/event_queue.hpp): those pending, and the room
// the calendar's emptied buckets keep until the ring comes round. At most `rate` events a
// second, `total` in the whole run (infinite when open-ended) of `run_s`, each pending for
// `pending_s` on average (NaN or infinite: until the run ends).
double far_event_bytes(double rate, double total, double run_s, double pending_s) {
  const double pending = std::isfinite(pending_s) ? std::min(total, rate * pending_s) : total;
  const double kept = std::min(total, rate * std::min(run_s, sim::far_events::ring_span_s()));
  const double b =
      far_event_pending_bytes * pending + far_event_kept_bytes * std::max(0.0, kept - pending);
  return std::isfinite(b) ? b : 0.0;  // an open-ended run with no rate to go by: not counted
}
}  // namespace

double bytes_per_waiting_user(const scenario& s) {
  const bool lottery = s.release.selection.kind == selection_kind::lottery;
  double b = lottery ? lottery_set_bytes : 30.0;
  if (std::any_of(s.lists.begin(), s.lists.end(),
                  [](const list_spec& l) { return l.max_wait_s.has_value(); }))
    b += 12.0;
  return b;
}

memory_estimate estimate_memory(const scenario& s) {
  memory_estimate m;
  const auto& a = s.arrivals;
  const double mu = max_release_rate(s.release);
  const double horizon =
      s.run.horizon_s ? *s.run.horizon_s : std::numeric_limits<double>::infinity();
  const double backlog = static_cast<double>(a.backlog_users);
  // Queue length q(t) = backlog + arrivals(t) - mu t at most; the arrivals name the moments
  // where it can peak, the last where they end.
  double peak = backlog, peak_t = 0, users = backlog, end_t = 0;
  a.peak_candidates(horizon, mu, [&](double t, double arrived) {
    const double q = backlog + arrived - mu * t;
    if (q > peak) {
      peak = q;
      peak_t = t;
    }
    users = backlog + arrived;
    end_t = t;
  });
  // A stock cap: each user who waits holds a unit of stock (admission/stock_gate.hpp).
  if (s.admission) peak = std::min(peak, static_cast<double>(s.admission->stock));
  // Patience bounds the queue: at most the users whose patience has not yet run out wait,
  // on average (the highest arrival rate) x (the longest mean patience) besides the backlog
  // (Little's law for the patience clocks). Only for Poisson and piecewise arrivals, whose
  // rate bounds any window's average: a trace or a renewal can come in bursts above their
  // rate, and returning users arrive on top of it. A class without patience waits as long
  // as it takes.
  double patience_s = 0;  // the longest mean patience; NaN when one is not known
  bool all_patient = true, any_patient = false;
  for (const auto& c : s.classes) {
    all_patient = all_patient && c.patience_s.has_value();
    if (!c.patience_s) continue;
    any_patient = true;
    const double p = mean_cut_at_zero(*c.patience_s);
    patience_s = std::isnan(p) || std::isnan(patience_s) ? std::numeric_limits<double>::quiet_NaN()
                                                         : std::max(patience_s, p);
  }
  const double rate_in = a.max_rate_per_s();
  bool patience_bound = false;
  if (all_patient && !s.returns && std::isfinite(patience_s) && a.poisson()) {
    const double bound = backlog + rate_in * patience_s;
    if (bound < peak) {
      peak = bound;
      patience_bound = true;
    }
  }
  m.peak_waiting = std::max(0.0, std::floor(peak));
  m.bytes_per_user = bytes_per_waiting_user(s);
  m.peak_reason =
      patience_bound
          ? fmt::format(
                "{:.3g} users waiting: arrivals up to {:.3g} users/s, each waiting up to "
                "{:.3g} s on average before it gives up",
                m.peak_waiting, rate_in, patience_s)
      : m.peak_waiting <= backlog
          ? fmt::format("{:.0f} backlog users waiting at the start", backlog)
          : fmt::format(
                "{:.3g} users waiting at {:.0f} s: arrivals outpace the most the room "
                "can release ({:.3g} users/s)",
                m.peak_waiting, peak_t, mu);
  // Samples of the queue length, one per sample_interval_s until the end (the horizon, or
  // the last arrival plus the time to release the peak).
  const double drain_end = std::isfinite(mu) && mu > 0 ? end_t + m.peak_waiting / mu : end_t;
  const double run_end = std::min(horizon, drain_end);
  const double samples = std::min(1e7, run_end / s.run.sample_interval_s + 2);
  const double classes = static_cast<double>(s.classes.size());
  constexpr double all_buckets = static_cast<double>(sim::log_histogram::bucket_count);
  const double sample_bytes = static_cast<double>(sizeof(queue_sample)) + 16.0 * classes;
  // With patience, a histogram of the abandoners' waits per class and overall too.
  const double wait_kinds = any_patient ? 2.0 : 1.0;
  m.run_bytes = run_fixed_bytes + m.peak_waiting * m.bytes_per_user + samples * sample_bytes +
                (2.0 + wait_kinds) * all_buckets * 8.0 * (classes + 1);
  // What grows with the users who came rather than with those waiting. An open-ended
  // Poisson or renewal stream has no total: its rate bounds what is pending.
  const bool open_ended = !std::isfinite(horizon) && a.open_ended();
  const double came = open_ended ? std::numeric_limits<double>::infinity() : users;
  // Each patient user's abandonment stays scheduled until its patience runs out, released
  // or not.
  if (any_patient) m.far_bytes += far_event_bytes(rate_in, came, run_end, patience_s);
  // Each visit may bring a return visit, scheduled when it ends, and returns return too: at
  // most p / (1 - p) of them per user. Visits end when released (no faster than the room
  // releases) or when patience runs out; a crowd shorter than the delay never reaches the
  // rate of p / (1 - p) returns per arrival, so this is an upper bound.
  if (s.returns && s.returns->probability > 0) {
    const double p = s.returns->probability;
    const double delay_s = mean_cut_at_zero(s.returns->delay_s);
    // Returns of returns, p^k for the k-th: only the generations that fit in the run.
    const double generations =
        std::isfinite(run_end) && delay_s > 0 ? std::floor(run_end / delay_s) + 1 : 0;
    const double more = generations > 0
                            ? (p < 1 ? p * (1 - std::pow(p, generations)) / (1 - p) : generations)
                        : p < 1 ? p / (1 - p)
                                : std::numeric_limits<double>::infinity();
    const double visits = rate_in * (1 + more);
    const double ends = std::min(visits, mu + (any_patient ? visits : 0.0));
    m.far_bytes += far_event_bytes(ends * p, came * more, run_end, delay_s);
  }
  // A lottery releases users in no order of entry, so the tables' blocks (freed when all
  // their users have left) stay for nearly every user who came.
  if (s.release.selection.kind == selection_kind::lottery && std::isfinite(came))
    m.far_bytes += lottery_table_bytes * came;
  // A followed poller's record (polling.hpp) holds a prediction per poll while it waits: at
  // the worst moment the waiting have waited about half the run on average.
  if (s.polling && s.polling->follow_share > 0) {
    double interval = s.polling->interval_s;
    for (const auto& step : s.polling->suggest) interval = std::min(interval, step.interval_s);
    const double polls = interval > 0 ? 0.5 * run_end / interval : 0.0;
    const double b =
        s.polling->follow_share * m.peak_waiting * (follower_bytes + follower_poll_bytes * polls);
    if (std::isfinite(b)) m.far_bytes += b;
  }
  m.run_bytes += m.far_bytes;
  // The work. A tick and a serving counter look every interval, whether anyone waits or not.
  const bool ticking =
      s.release.mode == release_mode::tick || s.release.mode == release_mode::serving_counter;
  const double interval_s = s.release.interval.seconds();
  const double ticks = ticking && interval_s > 0 ? run_end / interval_s : 0.0;
  double polls = 0;
  if (s.polling && s.polling->interval_s > 0)  // the waiting poll, half the peak on average
    polls = 0.5 * m.peak_waiting * run_end / s.polling->interval_s;
  m.events = 3.0 * users + ticks + run_end / s.run.sample_interval_s + polls;
  if (!std::isfinite(m.events)) m.events = 0;  // no end to go by: the horizon check applies
  const double certain_end = std::isfinite(horizon) ? std::min(horizon, end_t) : end_t;
  m.certain_samples = certain_end / s.run.sample_interval_s;
  // A finished replication: the result itself and one 16-byte entry per non-empty histogram
  // bucket (at most one per user, at most all of them): per class and overall, the
  // backend's response times, the waiting page's four ETA estimators per class.
  const double one = std::min(users + 1, all_buckets);
  double buckets = std::min(users + 1, wait_kinds * classes * all_buckets) + wait_kinds * one;
  if (s.backend) buckets += one;
  if (s.compensation) buckets += one;
  if (s.polling) buckets += 4.0 * std::min(users + 1, classes * all_buckets);
  m.summary_bytes = static_cast<double>(sizeof(room_result)) +
                    (classes + 1) * static_cast<double>(sizeof(wait_stats) + 64) + 16.0 * buckets;
  if (s.polling)  // eight per-second command counters over the run
    m.summary_bytes +=
        64.0 * std::min(run_end, 1e6) + classes * 4.0 * static_cast<double>(sizeof(eta_accuracy));
  return m;
}

double replications_bytes(const memory_estimate& m, std::uint64_t replications, unsigned threads) {
  const double running = std::min<double>(threads, static_cast<double>(replications));
  return running * m.run_bytes + static_cast<double>(replications) * m.summary_bytes;
}

}  // namespace waitroom::models
