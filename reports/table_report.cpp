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

// The columns of a wait table: class, then counts, then the waits in `unit`.
std::vector<text_column> wait_table_columns(std::vector<text_column> counts,
                                            const wait_unit& unit) {
  counts.insert(counts.begin(), {"class", 12, true});
  for (const char* h : {"mean", "p50", "p90", "p95", "p99", "p99.9", "max"})
    counts.push_back({fmt::format("{} ({})", h, unit.unit.name), 11});
  return counts;
}

// Users still waiting at the end: the waits above leave them out, so show what they must
// at least be with them counted at their time so far ("?": a figure the censored users could
// still move anywhere above; unmarked percentiles are decided by the released waits).
std::optional<report_part> censored_part(
    const std::vector<std::pair<std::string, const models::wait_stats*>>& rows,
    const wait_unit& unit) {
  bool any = false;
  for (const auto& [name, w] : rows) any = any || w->censored_s.count() > 0;
  if (!any) return std::nullopt;
  text_table t{wait_table_columns({{"censored", 9}, {"counted", 9}}, unit), {}, {}};
  for (const auto& [name, w] : rows) {
    std::vector<std::string> row{name, fmt::format("{}", w->censored_s.count()),
                                 fmt::format("{}", models::bound_count(*w))};
    const models::stat_bounds b[] = {models::mean_bounds(*w),
                                     models::quantile_bounds(*w, 0.5),
                                     models::quantile_bounds(*w, 0.9),
                                     models::quantile_bounds(*w, 0.95),
                                     models::quantile_bounds(*w, 0.99),
                                     models::quantile_bounds(*w, 0.999),
                                     models::max_bounds(*w)};
    for (const auto& bound : b) {
      if (std::isnan(bound.lower)) {
        row.push_back("-");
        continue;
      }
      // A larger figure than the unit was chosen for: the unit still reads right.
      row.push_back(fixed_text(bound.lower / unit.unit.seconds, unit.decimals) +
                    (bound.upper ? "" : "?"));
    }
    t.rows.push_back(std::move(row));
  }
  return report_part{
      "\nstill waiting at the end (censored): the waits above leave them out; counting them at "
      "their time so far, the waits are at least (? = still open above):\n",
      std::move(t)};
}

// The classes' table (and "all" with several classes), with the censored users' when any.
report_parts class_parts(const models::room_result& r) {
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
  std::vector<text_column> counts{{"arrived", 9}, {"released", 9}};
  if (refused) counts.push_back({"refused", 8});
  counts.insert(counts.end(), {{"gave up", 8}, {"waiting", 8}});
  text_table t{wait_table_columns(std::move(counts), unit), {}, {}};
  for (const auto& [name, w] : rows) {
    std::vector<std::string> row{name, fmt::format("{}", w->arrived),
                                 fmt::format("{}", w->released)};
    if (refused) row.push_back(fmt::format("{}", w->refused));
    row.push_back(fmt::format("{}", w->abandoned));
    row.push_back(fmt::format("{}", w->waiting_at_end));
    for (const auto& [head_name, v] : wait_columns(*w))
      // No released user: no wait to show (never a 0 that reads as "no wait").
      row.push_back(w->wait_s.count() == 0 ? "-"
                                           : fixed_text(v / unit.unit.seconds, unit.decimals));
    t.rows.push_back(std::move(row));
  }
  report_parts parts{{{}, std::move(t)}};
  if (auto c = censored_part(rows, unit)) parts.push_back(std::move(*c));
  return parts;
}

// Several lists: released, aged in and peak length per list.
report_parts list_parts(const models::room_result& r) {
  text_table t{
      {{"list", 12, true}, {"released", 10}, {"aged in", 10}, {"peak length", 12}}, {}, {}};
  for (std::size_t l = 0; l < r.by_list.size(); ++l)
    t.rows.push_back({r.list_names[l], fmt::format("{}", r.by_list[l].released),
                      fmt::format("{}", r.by_list[l].aged_in),
                      fmt::format("{}", r.by_list[l].peak_length)});
  report_parts parts{{"\n", std::move(t)}};
  if (r.lost_release_units > 0)
    parts.push_back(
        {fmt::format("release units lost to empty lists: {}\n", r.lost_release_units), {}});
  return parts;
}

// The followed users' ETA estimators: mean absolute error (bias) by class, in one unit.
std::optional<report_part> eta_part(const nlohmann::json& f) {
  if (f["users"].get<std::uint64_t>() == 0) return std::nullopt;
  // One unit for the whole table, from its largest error or bias.
  double top = 0;
  for (const auto& c : f["by_class"])
    for (const auto& name : models::eta_estimator_names()) {
      const auto& e = c["eta"][name];
      if (e["mae_s"].is_null()) continue;
      top = std::max({top, e["mae_s"].get<double>(), std::fabs(e["bias_s"].get<double>())});
    }
  const time_unit eta_unit = time_unit_for(top);
  text_table t{{{"class", 12, true}, {"back raw", 8}, {"back min", 8}}, {}, {}};
  for (const auto& name : models::eta_estimator_names()) t.columns.push_back({name, 28});
  for (const auto& c : f["by_class"]) {
    std::vector<std::string> row{
        c["class"].get<std::string>(),
        fmt::format("{:.1f}%", 100.0 * c["moved_backwards"]["raw"]["share_of_users"].get<double>()),
        fmt::format("{:.1f}%",
                    100.0 * c["moved_backwards"]["smoothed"]["share_of_users"].get<double>())};
    for (const auto& name : models::eta_estimator_names()) {
      const auto& e = c["eta"][name];
      row.push_back(
          e["mae_s"].is_null()
              ? "-"
              : fmt::format("{} ({})", fixed_text(e["mae_s"].get<double>() / eta_unit.seconds, 1),
                            signed_text(e["bias_s"].get<double>() / eta_unit.seconds, 1)));
    }
    t.rows.push_back(std::move(row));
  }
  return report_part{fmt::format("followed {} users; ETA mean absolute error (bias) by class, in "
                                 "{}:\n",
                                 f["users"].get<std::uint64_t>(), eta_unit.name),
                     std::move(t)};
}

// The lines on what the scenario adds: temporary VIPs, stock, the backend.
std::string extras_text(const models::room_result& r) {
  std::string out;
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
  return out;
}

// The waiting page: polls and Redis commands, and the followed users' ETA table.
report_parts polling_parts(const models::scenario& s, const models::room_result& r) {
  const auto p = polling_json(*r.polling, r.class_names, s.polling->follow_share);
  report_parts parts{
      {fmt::format(
           "\npolling: {} polls, {} Redis commands ({} without the status cache: {:.1f}% fewer), "
           "peak {}/s ({}/s without)\n",
           p["polls"]["total"].get<std::uint64_t>(), p["commands"]["total"].get<std::uint64_t>(),
           p["commands_without_cache"]["total"].get<std::uint64_t>(),
           100.0 * p["cache_reduction"].get<double>(),
           p["peak_per_second"]["total"].get<std::uint64_t>(),
           p["peak_per_second"]["total_without_cache"].get<std::uint64_t>()),
       {}}};
  if (auto eta = eta_part(p["followed"])) parts.push_back(std::move(*eta));
  return parts;
}

void append(report_parts& to, report_parts more) {
  for (auto& p : more) to.push_back(std::move(p));
}

}  // namespace

report_parts result_parts(const models::scenario& s, const models::room_result& r) {
  report_parts parts{
      {fmt::format("scenario {}  seed {}  policy {}  release {}\n", s.name, r.seed,
                   models::to_string(s.policy.order), models::to_string(s.release.mode)) +
           fmt::format("simulated {:.1f}s ({}), {} events, peak queue {}\n\n", r.end_time_s,
                       r.stop_reason, r.events, r.peak_queue_length),
       {}}};
  append(parts, class_parts(r));
  if (r.by_list.size() > 1) append(parts, list_parts(r));
  if (std::string extras = extras_text(r); !extras.empty()) parts.push_back({extras, {}});
  if (r.polling) append(parts, polling_parts(s, r));
  const double T = r.end_time_s;
  parts.push_back({fmt::format("\nthroughput {:.1f} users/s, mean queue length {:.1f}\n",
                               T > 0 ? static_cast<double>(r.overall.released) / T : 0.0,
                               r.mean_queue_length()),
                   {}});
  return parts;
}

std::string result_table(const models::scenario& s, const models::room_result& r) {
  return fixed_width(result_parts(s, r));
}

}  // namespace waitroom::reports
