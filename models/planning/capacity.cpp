#include "models/planning/capacity.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "models/spec/sla_spec.hpp"
#include "sim/sample_quantile.hpp"

namespace waitroom::models::planning {

namespace {

// Multiples of 10^exponent, written so that they print short (0.01 * 3 prints 0.03).
struct decimal_step {
  int exponent = 0;
  double size() const { return std::pow(10.0, exponent); }
  double value(double multiple) const {
    return exponent < 0 ? multiple / std::pow(10.0, -exponent) : multiple * size();
  }
  double multiple_at_most(double v) const { return std::floor(v / size() + 1e-9); }
};

}  // namespace

std::optional<std::string> capacity_unit(const std::string& pointer) {
  if (pointer == "/release/rate_per_s") return "users/s";
  if (pointer == "/release/batch") return "users a tick";
  if (pointer == "/release/slots") return "slots";
  if (pointer == "/release/total_active_users") return "active users";
  if (pointer == "/release/new_users_per_minute") return "users a minute";
  return std::nullopt;
}

capacity_outcome least_capacity(double top, bool integer, const std::function<bool(double)>& holds,
                                int max_doublings) {
  decimal_step step{top > 0 ? static_cast<int>(std::floor(std::log10(top))) - 2 : 0};
  if (integer) step.exponent = std::max(step.exponent, 0);
  capacity_outcome out;
  out.step = step.size();
  out.fails_at = top;
  // Doubling: the first value that holds bounds the answer from above.
  double bad = step.multiple_at_most(top), good = 0;
  for (int k = 0; k < max_doublings && !out.found; ++k) {
    const double m = std::max(bad + 1, 2 * bad);
    out.tried.push_back(step.value(m));
    if (holds(step.value(m))) {
      out.found = true;
      good = m;
    } else {
      bad = m;
      out.fails_at = step.value(m);
    }
  }
  if (!out.found) return out;
  // Bisection on whole steps between the last failing value and the first holding one.
  while (good - bad > 1) {
    const double mid = std::floor((bad + good) / 2);
    out.tried.push_back(step.value(mid));
    if (holds(step.value(mid))) {
      good = mid;
    } else {
      bad = mid;
      out.fails_at = step.value(mid);
    }
  }
  out.holds_at = step.value(good);
  return out;
}

fluid_waits fluid_wait(const std::vector<sim::rate_segment>& segments, double share, double start_s,
                       double rate, double q) {
  double total = 0;
  for (const auto& g : segments) total += share * g.rate_per_s * g.duration_s;
  if (!(total > 0) || !std::isfinite(total)) return {};
  // User x (of `total`, sampled at evenly spaced points) arrives at a(x) and leaves at
  // d(x) = x / rate + max(start, sup over y <= x of a(y) - y / rate): a fluid queue first come
  // first served. a(y) - y / rate is linear within a segment, so its supremum is at a
  // segment's start or at x itself.
  constexpr std::size_t samples = 20000;
  std::vector<double> waits;
  waits.reserve(samples);
  double best = start_s, seg_t0 = 0, seg_x0 = 0, sum = 0;
  std::size_t seg = 0;
  for (std::size_t j = 0; j < samples; ++j) {
    const double x = (static_cast<double>(j) + 0.5) / samples * total;
    while (seg < segments.size() &&
           x > seg_x0 + share * segments[seg].rate_per_s * segments[seg].duration_s) {
      seg_x0 += share * segments[seg].rate_per_s * segments[seg].duration_s;
      seg_t0 += segments[seg].duration_s;
      ++seg;
      best = std::max(best, seg_t0 - seg_x0 / rate);
    }
    if (seg == segments.size()) break;  // rounding at the very end
    const double a = seg_t0 + (x - seg_x0) / (share * segments[seg].rate_per_s);
    best = std::max(best, a - x / rate);
    waits.push_back(x / rate + best - a);
    sum += waits.back();
  }
  if (waits.empty()) return {};
  return {sum / static_cast<double>(waits.size()), sim::sample_quantile(waits, q)};
}

std::optional<double> fluid_least_rate(const scenario& s) {
  if (!s.sla || s.arrivals.kind != arrival_kind::piecewise || s.arrivals.backlog_users > 0 ||
      s.returns || s.admission || s.release.mode != release_mode::tick ||
      s.release.controller.kind != controller_kind::fixed)
    return std::nullopt;
  for (const auto& g : s.arrivals.segments)
    if (!std::isfinite(g.duration_s) && g.rate_per_s > 0) return std::nullopt;
  double shares = 0;
  for (const auto& c : s.classes) shares += c.share;
  const double start = s.release.first_tick_s.value_or(s.release.interval.seconds());
  std::optional<double> bound;
  for (const auto& t : s.sla->targets) {
    if (!t.max || (t.metric != sla_metric::mean_wait_s && !quantile_of(t.metric))) continue;
    double share = 1;
    bool patient = true;
    for (std::size_t c = 0; c < s.classes.size(); ++c)
      if (t.user_class < 0 || static_cast<std::int32_t>(c) == t.user_class)
        patient = patient && !s.classes[c].patience_s;
    if (t.user_class >= 0) share = s.classes[static_cast<std::size_t>(t.user_class)].share / shares;
    if (!patient || !(share > 0)) continue;
    const double q = quantile_of(t.metric).value_or(0.5);
    auto wait = [&](double rate) {
      const auto w = fluid_wait(s.arrivals.segments, share, start, rate, q);
      return t.metric == sla_metric::mean_wait_s ? w.mean_s : w.quantile_s;
    };
    // The target may be out of reach at any rate (users who came before the first tick).
    if (wait(1e12) > *t.max) continue;
    double lo = 0, hi = 1;
    while (wait(hi) > *t.max) lo = hi, hi *= 2;
    for (int k = 0; k < 60 && hi - lo > 1e-9 * hi; ++k) {
      const double mid = (lo + hi) / 2;
      (wait(mid) > *t.max ? lo : hi) = mid;
    }
    bound = std::max(bound.value_or(0.0), hi);
  }
  return bound;
}

}  // namespace waitroom::models::planning
