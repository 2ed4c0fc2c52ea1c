#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "models/room/censoring.hpp"
#include "reports/report.hpp"

namespace waitroom::reports {

namespace {
std::string seconds(double s) {
  if (s < 1e-3) return fmt::format("{:.0f}us", s * 1e6);
  if (s < 1.0) return fmt::format("{:.1f}ms", s * 1e3);
  if (s < 120.0) return fmt::format("{:.2f}s", s);
  return fmt::format("{:.1f}min", s / 60.0);
}

// One unit for a whole column, chosen from its largest value, and enough decimals for four
// significant digits there: "p95 (s)" over 59.87 and 61.20 rather than "59.87s" beside "1.0min".
struct column_unit {
  const char* name;
  double seconds;
  int decimals;
};

column_unit unit_for(double max_s) {
  column_unit u{"s", 1.0, 0};
  if (max_s < 1e-3)
    u = {"us", 1e-6, 0};
  else if (max_s < 1.0)
    u = {"ms", 1e-3, 0};
  else if (max_s >= 1000.0 * 60.0)
    u = {"h", 3600.0, 0};
  else if (max_s >= 1000.0)
    u = {"min", 60.0, 0};
  const double top = max_s / u.seconds;
  const int digits = top >= 1.0 ? static_cast<int>(std::floor(std::log10(top))) + 1 : 1;
  u.decimals = std::clamp(4 - digits, 0, 3);
  return u;
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
    const std::vector<column_unit>& units) {
  bool any = false;
  for (const auto& [name, w] : rows) any = any || w->censored_s.count() > 0;
  if (!any) return {};
  std::string out = fmt::format(
      "\nstill waiting at the end (censored): the waits above leave them out; counting them at "
      "their time so far, the waits are at least (? = still open above):\n{:<12} {:>9} {:>9}",
      "class", "censored", "counted");
  for (const char* h : {"mean", "p50", "p90", "p95", "p99", "p99.9", "max"})
    out += fmt::format(" {:>10}", h);
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
    for (std::size_t k = 0; k < std::size(b); ++k) {
      if (std::isnan(b[k].lower)) {
        out += fmt::format(" {:>10}", "-");
        continue;
      }
      // A larger figure than the column's unit was chosen for: the unit still reads right.
      out += fmt::format(" {:>10}", fmt::format("{:.{}f}{}", b[k].lower / units[k].seconds,
                                                units[k].decimals, b[k].upper ? "" : "?"));
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
  const auto heads = wait_columns(r.overall);
  std::vector<column_unit> units;
  for (std::size_t k = 0; k < heads.size(); ++k) {
    double top = 0;
    for (const auto& [name, w] : rows)
      if (w->wait_s.count() > 0) top = std::max(top, wait_columns(*w)[k].second);
    units.push_back(unit_for(top));
  }
  // Refusals only matter with stock caps: their column appears when there are any.
  bool refused = false;
  for (const auto& [name, w] : rows) refused = refused || w->refused > 0;
  std::string head = fmt::format("{:<12} {:>9} {:>9}", "class", "arrived", "released");
  std::string unit_row = fmt::format("{:<12} {:>9} {:>9}", "", "", "");
  if (refused) {
    head += fmt::format(" {:>8}", "refused");
    unit_row += fmt::format(" {:>8}", "");
  }
  head += fmt::format(" {:>8} {:>8}", "gave up", "waiting");
  unit_row += fmt::format(" {:>8} {:>8}", "", "");
  // Units on a line of their own under each wait column keep the table narrow.
  for (std::size_t k = 0; k < heads.size(); ++k) {
    head += fmt::format(" {:>9}", heads[k].first);
    unit_row += fmt::format(" {:>9}", fmt::format("({})", units[k].name));
  }
  std::string out = head + "\n" + unit_row + "\n";
  for (const auto& [name, w] : rows) {
    out += fmt::format("{:<12} {:>9} {:>9}", name, w->arrived, w->released);
    if (refused) out += fmt::format(" {:>8}", w->refused);
    out += fmt::format(" {:>8} {:>8}", w->abandoned, w->waiting_at_end);
    const auto values = wait_columns(*w);
    for (std::size_t k = 0; k < values.size(); ++k) {
      // No released user: no wait to show (never a 0 that reads as "no wait").
      if (w->wait_s.count() == 0)
        out += fmt::format(" {:>9}", "-");
      else
        out += fmt::format(" {:>9.{}f}", values[k].second / units[k].seconds, units[k].decimals);
    }
    out += "\n";
  }
  return out + censored_table(rows, units);
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
        c.granted, c.used, c.used_in_place, c.expired, c.unused, seconds(c.credited.wait_s.mean()));
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
    out += fmt::format(
        "\nbackend: {} completed, RT mean {} p95 {}, {} timeouts, utilisation {:.1f}%, peak "
        "queue {}\n",
        b.completed, seconds(b.rt_s.mean()), seconds(b.rt_ns.quantile(0.95) * 1e-9), b.timeouts,
        b.capacity_worker_s > 0 ? 100.0 * b.busy_worker_s / b.capacity_worker_s : 0.0,
        b.peak_queue);
    if (b.no_shows + b.late > 0 || b.arrival_delay_s.max() > 0)
      out += fmt::format(
          "released users reached it {} after release on average; {} no-shows, {} too late, {} "
          "releases taken back\n",
          seconds(b.arrival_delay_s.mean()), b.no_shows, b.late, b.reclaimed);
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
      out += fmt::format("followed {} users; ETA mean absolute error (bias) by class:\n",
                         f["users"].get<std::uint64_t>());
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
          out += e["mae_s"].is_null()
                     ? fmt::format(" {:>28}", "-")
                     : fmt::format(" {:>28}",
                                   fmt::format("{} ({:+.1f}s)", seconds(e["mae_s"].get<double>()),
                                               e["bias_s"].get<double>()));
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
