#include <fmt/format.h>

#include "reports/report.hpp"

namespace waitroom::reports {

namespace {
std::string seconds(double s) {
  if (s < 1e-3) return fmt::format("{:.0f}us", s * 1e6);
  if (s < 1.0) return fmt::format("{:.1f}ms", s * 1e3);
  if (s < 120.0) return fmt::format("{:.2f}s", s);
  return fmt::format("{:.1f}min", s / 60.0);
}

std::string row(const std::string& name, const models::wait_stats& w) {
  return fmt::format("{:<12} {:>10} {:>10} {:>8} {:>8} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}\n", name,
                     w.arrived, w.released, w.abandoned, w.waiting_at_end, seconds(w.wait_s.mean()),
                     seconds(w.wait_ns.quantile(0.5) * 1e-9),
                     seconds(w.wait_ns.quantile(0.9) * 1e-9),
                     seconds(w.wait_ns.quantile(0.99) * 1e-9),
                     seconds(w.wait_ns.quantile(0.999) * 1e-9), seconds(w.wait_s.max()));
}
}  // namespace

std::string result_table(const models::scenario& s, const models::room_result& r) {
  std::string out;
  out += fmt::format("scenario {}  seed {}  policy {}  release {}\n", s.name, r.seed,
                     models::to_string(s.policy.order), models::to_string(s.release.mode));
  out += fmt::format("simulated {:.1f}s ({}), {} events, peak queue {}\n\n", r.end_time_s,
                     r.stop_reason, r.events, r.peak_queue_length);
  out += fmt::format("{:<12} {:>10} {:>10} {:>8} {:>8} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}\n",
                     "class", "arrived", "released", "gave up", "waiting", "mean", "p50", "p90",
                     "p99", "p99.9", "max");
  for (std::size_t c = 0; c < r.by_class.size(); ++c) out += row(r.class_names[c], r.by_class[c]);
  if (r.by_class.size() > 1) out += row("all", r.overall);
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
  double T = r.end_time_s;
  out +=
      fmt::format("\nthroughput {:.1f} users/s, mean queue length {:.1f}\n",
                  T > 0 ? static_cast<double>(r.overall.released) / T : 0.0, r.mean_queue_length());
  return out;
}

}  // namespace waitroom::reports
