#include "models/sla/sla.hpp"

#include <limits>

namespace waitroom::models {

const std::vector<std::string>& sla_metric_names() {
  static const std::vector<std::string> names = {
      "mean_wait_s",          "p50_wait_s",       "p90_wait_s",        "p95_wait_s",
      "p99_wait_s",           "p999_wait_s",      "max_wait_s",        "refused_share",
      "waiting_at_end_share", "abandoned_share",  "eta_mae_s",         "rank_moved_back_share",
      "redis_peak_per_s",     "backend_p95_rt_s", "backend_error_rate"};
  return names;
}

bool needs_polling(sla_metric m) {
  return m == sla_metric::eta_mae_s || m == sla_metric::rank_moved_back_share ||
         m == sla_metric::redis_peak_per_s;
}
bool needs_backend(sla_metric m) {
  return m == sla_metric::backend_p95_rt_s || m == sla_metric::backend_error_rate;
}

const char* to_string(sla_metric m) {
  return sla_metric_names()[static_cast<std::size_t>(m)].c_str();
}

double metric_value(const room_result& r, std::int32_t user_class, sla_metric m) {
  const wait_stats& w =
      user_class < 0 ? r.overall : r.by_class[static_cast<std::size_t>(user_class)];
  auto share = [&](std::uint64_t part) {
    return w.arrived ? static_cast<double>(part) / static_cast<double>(w.arrived) : 0.0;
  };
  switch (m) {
    case sla_metric::mean_wait_s:
      return w.wait_s.mean();
    case sla_metric::p50_wait_s:
      return w.wait_ns.quantile(0.5) * 1e-9;
    case sla_metric::p90_wait_s:
      return w.wait_ns.quantile(0.9) * 1e-9;
    case sla_metric::p95_wait_s:
      return w.wait_ns.quantile(0.95) * 1e-9;
    case sla_metric::p99_wait_s:
      return w.wait_ns.quantile(0.99) * 1e-9;
    case sla_metric::p999_wait_s:
      return w.wait_ns.quantile(0.999) * 1e-9;
    case sla_metric::max_wait_s:
      return w.wait_s.max();
    case sla_metric::refused_share:
      return share(w.refused);
    case sla_metric::waiting_at_end_share:
      return share(w.waiting_at_end);
    case sla_metric::abandoned_share:
      return share(w.abandoned);
    default:
      break;
  }
  constexpr double none = std::numeric_limits<double>::quiet_NaN();
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
      const auto& a = f.eta[1];  // smoothed_rounds: seed 000's estimator
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

metric_table tabulate(const room_result& r) {
  metric_table t;
  const auto n = static_cast<std::int32_t>(r.by_class.size());
  for (std::int32_t c = -1; c < n; ++c) {
    metric_row row;
    for (std::size_t m = 0; m < sla_metric_names().size(); ++m)
      row.push_back(metric_value(r, c, static_cast<sla_metric>(m)));
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

std::vector<sla_outcome> evaluate(const sla_spec& spec, const std::vector<metric_table>& ts) {
  std::vector<sla_outcome> out;
  for (const auto& t : spec.targets) {
    auto iv = table_interval(ts, t.user_class, t.metric, spec.confidence);
    bool pass = (!t.max || iv.hi() <= *t.max) && (!t.min || iv.lo() >= *t.min);
    out.push_back({t, iv, pass});
  }
  return out;
}

std::vector<sla_outcome> evaluate(const sla_spec& spec, const std::vector<room_result>& rs) {
  std::vector<metric_table> ts;
  for (const auto& r : rs) ts.push_back(tabulate(r));
  return evaluate(spec, ts);
}

}  // namespace waitroom::models
