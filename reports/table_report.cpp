#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "models/results/censoring.hpp"
#include "reports/interval_text.hpp"
#include "reports/report.hpp"

namespace waitroom::reports {

namespace {

// A time with its unit, four significant figures: for the lines that are not tables.
std::string duration_text(double s, time_unit u) {
  return fixed_text(s / u.seconds, significant_decimals(s / u.seconds)) + " " + std::string(u.name);
}

// A signed figure: "+1.5", "-0.3", "0.0" (never "-0.0" or "+0.0").
std::string signed_text(double v, int decimals) {
  std::string t = fixed_text(v, decimals);
  return t.front() == '-' || t.find_first_not_of("0.") == std::string::npos ? t : "+" + t;
}

// One unit for every wait column of a table, chosen from its largest value (interval_text.hpp),
// with the decimals that give the largest four significant figures and the smallest non-zero
// at least two (at most 3).
struct wait_unit {
  time_unit unit;
  int decimals;
};

wait_unit unit_for(double max_s, double min_nonzero_s) {
  const time_unit u = time_unit_for(max_s);
  int d = significant_decimals(max_s / u.seconds);
  if (min_nonzero_s > 0 && std::isfinite(min_nonzero_s))
    d = std::max(d, 1 - static_cast<int>(std::floor(std::log10(min_nonzero_s / u.seconds))));
  return {u, std::clamp(d, 0, 3)};
}

// The wait statistics shown, in column order.
std::vector<std::pair<const char*, double>> wait_columns(const models::wait_stats& w) {
  return {{"mean", w.wait_s.mean()},
          {"p50", w.wait_ns.quantile(0.5) * 1e-9},
          {"p90", w.wait_ns.quantile(0.9) * 1e-9},
          {"p95", w.wait_ns.quantile(0.95) * 1e-9},
          {"p99", w.wait_ns.quantile(0.99) * 1e-9},
          {"p99.9", w.wait_ns.quantile(0.999) * 1e-9},
          {"max", w.wait_s.max()}};
}

// Users still waiting at the end: the waits above leave them out, so show what they must
// at least be with them counted at their time so far ("?": a figure the censored users could
// still move anywhere above; unmarked percentiles are decided by the released waits).
std::string censored_table(
    const std::vector<std::pair<std::string, const models::wait_stats*>>& rows,
    const wait_unit& unit) {
  bool any = false;
  for (const auto& [name, w] : rows) any = any || w->censored_s.count() > 0;
  if (!any) return {};
  std::string out = fmt::format(
      "\nstill waiting at the end (censored): the waits above leave them out; counting them at "
      "their time so far, the waits are at least (? = still open above):\n{:<12} {:>9} {:>9}",
      "class", "censored", "counted");
  for (const char* h : {"mean", "p50", "p90", "p95", "p99", "p99.9", "max"})
    out += fmt::format(" {:>11}", fmt::format("{} ({})", h, unit.unit.name));
  out += "\n";
  for (const auto& [name, w] : rows) {
    out += fmt::format("{:<12} {:>9} {:>9}", name, w->censored_s.count(), models::bound_count(*w));
    const models::stat_bounds b[] = {models::mean_bounds(*w),
                                     models::quantile_bounds(*w, 0.5),
                                     models::quantile_bounds(*w, 0.9),
                                     models::quantile_bounds(*w, 0.95),
                                     models::quantile_bounds(*w, 0.99),
                                     models::quantile_bounds(*w, 0.999),
                                     models::max_bounds(*w)};
    for (const auto& bound : b) {
      if (std::isnan(bound.lower)) {
        out += fmt::format(" {:>11}", "-");
        continue;
      }
      // A larger figure than the unit was chosen for: the unit still reads right.
      out += fmt::format(" {:>11}", fixed_text(bound.lower / unit.unit.seconds, unit.decimals) +
                                        (bound.upper ? "" : "?"));
    }
    out += "\n";
  }
  return out;
}

std::string class_table(const models::room_result& r) {
  std::vector<std::pair<std::string, const models::wait_stats*>> rows;
  for (std::size_t c = 0; c < r.by_class.size(); ++c)
    rows.emplace_back(r.class_names[c], &r.by_class[c]);
  if (r.by_class.size() > 1) rows.emplace_back("all", &r.overall);
  // One unit for every wait column: "p50 (s)" beside "max (s)", never ms beside min.
  double top = 0, least = std::numeric_limits<double>::infinity();
  for (const auto& [name, w] : rows)
    if (w->wait_s.count() > 0)
      for (const auto& [head, v] : wait_columns(*w)) {
        top = std::max(top, v);
        if (v > 0) least = std::min(least, v);
      }
  const wait_unit unit = unit_for(top, least);
  // Refusals only matter with stock caps: their column appears when there are any.
  bool refused = false;
  for (const auto& [name, w] : rows) refused = refused || w->refused > 0;
  std::string head = fmt::format("{:<12} {:>9} {:>9}", "class", "arrived", "released");
  if (refused) head += fmt::format(" {:>8}", "refused");
  head += fmt::format(" {:>8} {:>8}", "gave up", "waiting");
  for (const auto& [name, v] : wait_columns(r.overall))
    head += fmt::format(" {:>11}", fmt::format("{} ({})", name, unit.unit.name));
  std::string out = head + "\n";
  for (const auto& [name, w] : rows) {
    out += fmt::format("{:<12} {:>9} {:>9}", name, w->arrived, w->released);
    if (refused) out += fmt::format(" {:>8}", w->refused);
    out += fmt::format(" {:>8} {:>8}", w->abandoned, w->waiting_at_end);
    for (const auto& [head_name, v] : wait_columns(*w)) {
      // No released user: no wait to show (never a 0 that reads as "no wait").
      if (w->wait_s.count() == 0)
        out += fmt::format(" {:>11}", "-");
      else
        out += fmt::format(" {:>11}", fixed_text(v / unit.unit.seconds, unit.decimals));
    }
    out += "\n";
  }
  return out + censored_table(rows, unit);
}
}  // namespace

std::string result_table(const models::scenario& s, const models::room_result& r) {
  std::string out;
  out += fmt::format("scenario {}  seed {}  policy {}  release {}\n", s.name, r.seed,
                     models::to_string(s.policy.order), models::to_string(s.release.mode));
  out += fmt::format("simulated {:.1f}s ({}), {} events, peak queue {}\n\n", r.end_time_s,
                     r.stop_reason, r.events, r.peak_queue_length);
  out += class_table(r);
  if (r.by_list.size() > 1) {
    out += fmt::format("\n{:<12} {:>10} {:>10} {:>12}\n", "list", "released", "aged in",
                       "peak length");
    for (std::size_t l = 0; l < r.by_list.size(); ++l)
      out += fmt::format("{:<12} {:>10} {:>10} {:>12}\n", r.list_names[l], r.by_list[l].released,
                         r.by_list[l].aged_in, r.by_list[l].peak_length);
    if (r.lost_release_units > 0)
      out += fmt::format("release units lost to empty lists: {}\n", r.lost_release_units);
  }
  if (r.compensation) {
    const auto& c = *r.compensation;
    out += fmt::format(
        "\ntemporary VIP: {} credits granted, {} used on return, {} applied in place, {} expired, "
        "{} unused; credited visits waited {} on average\n",
        c.granted, c.used, c.used_in_place, c.expired, c.unused,
        duration_text(c.credited.wait_s.mean(), time_unit_for(c.credited.wait_s.mean())));
  }
  if (r.admission) {
    const auto& a = *r.admission;
    out += fmt::format(
        "\nstock {}: {} orders ({} outstanding at most), {} refused, {} order failures, {} "
        "cancellations, {} reopenings, sold out {}\n",
        a.stock, a.orders, a.max_outstanding_orders, a.refused, a.order_failures, a.cancellations,
        a.reopenings, a.sold_out_at_s ? fmt::format("at {:.1f}s", *a.sold_out_at_s) : "never");
  }
  if (r.backend) {
    const auto& b = *r.backend;
    const double rt_mean = b.rt_s.mean(), rt_p95 = b.rt_ns.quantile(0.95) * 1e-9;
    const time_unit rt_unit = time_unit_for(std::max(rt_mean, rt_p95));
    out += fmt::format(
        "\nbackend: {} completed, RT mean {} p95 {}, {} timeouts, utilisation {:.1f}%, peak "
        "queue {}\n",
        b.completed, duration_text(rt_mean, rt_unit), duration_text(rt_p95, rt_unit), b.timeouts,
        b.capacity_worker_s > 0 ? 100.0 * b.busy_worker_s / b.capacity_worker_s : 0.0,
        b.peak_queue);
    if (b.no_shows + b.late > 0 || b.arrival_delay_s.max() > 0)
      out += fmt::format(
          "released users reached it {} after release on average; {} no-shows, {} too late, {} "
          "releases taken back\n",
          duration_text(b.arrival_delay_s.mean(), time_unit_for(b.arrival_delay_s.mean())),
          b.no_shows, b.late, b.reclaimed);
  }
  if (r.polling) {
    const auto p = polling_json(*r.polling, r.class_names, s.polling->follow_share);
    out += fmt::format(
        "\npolling: {} polls, {} Redis commands ({} without the status cache: {:.1f}% fewer), "
        "peak {}/s ({}/s without)\n",
        p["polls"]["total"].get<std::uint64_t>(), p["commands"]["total"].get<std::uint64_t>(),
        p["commands_without_cache"]["total"].get<std::uint64_t>(),
        100.0 * p["cache_reduction"].get<double>(),
        p["peak_per_second"]["total"].get<std::uint64_t>(),
        p["peak_per_second"]["total_without_cache"].get<std::uint64_t>());
    const auto& f = p["followed"];
    if (f["users"].get<std::uint64_t>() > 0) {
      // One unit for the whole table, from its largest error or bias.
      double top = 0;
      for (const auto& c : f["by_class"])
        for (const auto& name : models::eta_estimator_names()) {
          const auto& e = c["eta"][name];
          if (e["mae_s"].is_null()) continue;
          top = std::max({top, e["mae_s"].get<double>(), std::fabs(e["bias_s"].get<double>())});
        }
      const time_unit eta_unit = time_unit_for(top);
      out += fmt::format("followed {} users; ETA mean absolute error (bias) by class, in {}:\n",
                         f["users"].get<std::uint64_t>(), eta_unit.name);
      out += fmt::format("{:<12} {:>8} {:>8}", "class", "back raw", "back min");
      for (const auto& name : models::eta_estimator_names()) out += fmt::format(" {:>28}", name);
      out += "\n";
      for (const auto& c : f["by_class"]) {
        out +=
            fmt::format("{:<12} {:>7.1f}% {:>7.1f}%", c["class"].get<std::string>(),
                        100.0 * c["moved_backwards"]["raw"]["share_of_users"].get<double>(),
                        100.0 * c["moved_backwards"]["smoothed"]["share_of_users"].get<double>());
        for (const auto& name : models::eta_estimator_names()) {
          const auto& e = c["eta"][name];
          out +=
              e["mae_s"].is_null()
                  ? fmt::format(" {:>28}", "-")
                  : fmt::format(
                        " {:>28}",
                        fmt::format("{} ({})",
                                    fixed_text(e["mae_s"].get<double>() / eta_unit.seconds, 1),
                                    signed_text(e["bias_s"].get<double>() / eta_unit.seconds, 1)));
        }
        out += "\n";
      }
    }
  }
  double T = r.end_time_s;
  out +=
      fmt::format("\nthroughput {:.1f} users/s, mean queue length {:.1f}\n",
                  T > 0 ? static_cast<double>(r.overall.released) / T : 0.0, r.mean_queue_length());
  return out;
}

}  // namespace waitroom::reports
