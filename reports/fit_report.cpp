#include "reports/fit_report.hpp"

#include <fmt/format.h>

namespace waitroom::reports {

namespace {

using models::fit::survival_fit;

std::string interval(double v, double lo, double hi) {
  return fmt::format("{:.4g} [{:.4g}, {:.4g}]", v, lo, hi);
}

std::string parameters(const survival_fit& f) {
  std::string out;
  for (const auto& p : f.parameters) {
    if (!out.empty()) out += "  ";
    out += p.name + " " + interval(p.value, p.lo, p.hi);
  }
  return out;
}

// One row per family, best (lowest AIC) first; `who` names the class on the first row only.
void add_fits(text_table& t, const std::string& who, const std::vector<survival_fit>& fits) {
  for (std::size_t i = 0; i < fits.size(); ++i) {
    const auto& f = fits[i];
    t.rows.push_back({i == 0 ? who : "", models::fit::name_of(f.kind), parameters(f),
                      fmt::format("{:.1f}", f.mean_s()), fmt::format("{:.1f}", f.aic),
                      fmt::format("{:.3f}", f.ks_distance), i == 0 ? "best" : ""});
  }
}

text_table fits_table() {
  return {{{"", 8, true},
           {"family", 11, true},
           {"parameters [95% interval]", 52, true},
           {"mean_s", 8},
           {"AIC", 10},
           {"KS", 6},
           {"", 4, true}},
          {},
          ""};
}

}  // namespace

report_parts fit_parts(const models::fit::calibration& c, const std::string& scenario_note,
                       const models::fit::fit_check* check) {
  report_parts parts;
  parts.push_back(
      {fmt::format("fit of {}: {} users over {:.1f} s\n\n", c.log, c.users, c.end_s - c.start_s),
       std::nullopt});

  text_table arrivals{{{"start_s", 9}, {"duration_s", 10}, {"arrivals", 9}, {"rate/s [95%]", 30}},
                      {},
                      "  (segments found by PELT on the counts per second)"};
  for (const auto& s : c.segments)
    arrivals.rows.push_back({fmt::format("{:.0f}", s.start_s), fmt::format("{:.0f}", s.duration_s),
                             fmt::format("{}", s.arrivals), interval(s.rate_per_s, s.lo, s.hi)});
  parts.push_back({"arrivals\n", std::move(arrivals)});

  text_table classes{{{"class", 8, true},
                      {"users", 9},
                      {"share [95%]", 26},
                      {"released", 9},
                      {"gave_up", 8},
                      {"waiting", 8}},
                     {},
                     "  (waiting: still in the queue when the log ends)"};
  for (std::size_t i = 0; i < c.classes.size(); ++i) {
    const auto& cl = c.classes[i];
    const auto [lo, hi] = models::fit::share_interval(cl.users, c.users);
    classes.rows.push_back(
        {cl.name, fmt::format("{}", cl.users),
         interval(static_cast<double>(cl.users) / static_cast<double>(c.users), lo, hi),
         fmt::format("{}", cl.released), fmt::format("{}", cl.gave_up),
         fmt::format("{}", cl.waiting)});
  }
  parts.push_back({"\nclasses\n", std::move(classes)});

  text_table patience = fits_table();
  patience.note = "  (censored maximum likelihood; KS: largest gap to Kaplan-Meier)";
  std::string without;
  for (const auto& cl : c.classes)
    if (cl.patience.empty())
      without += fmt::format("  {}: {}, so no patience is fitted (none is written)\n", cl.name,
                             cl.gave_up == 0 ? "nobody gave up" : "too few give-ups to fit");
    else
      add_fits(patience, cl.name, cl.patience);
  parts.push_back({"\npatience\n", std::move(patience)});
  if (!without.empty()) parts.push_back({without, std::nullopt});
  std::string sampled;
  for (const auto& cl : c.classes)
    if (cl.patience_sampled && !cl.patience.empty())
      sampled += fmt::format(
          "  {}: fitted on a random sample of {} of its {} observations (intervals are the "
          "sample's)\n",
          cl.name, cl.patience.front().n, cl.patience_observations);
  if (!sampled.empty()) parts.push_back({sampled, std::nullopt});

  std::string release =
      c.release_rate_per_s > 0
          ? fmt::format(
                "\nrelease: {:.2f} users/s over the {:.0f} s users waited throughout; "
                "{:.2f} users/s over the whole span\n",
                c.release_rate_per_s, static_cast<double>(c.busy_bins) * c.bin_s,
                c.throughput_per_s)
          : fmt::format(
                "\nrelease: the queue never stayed busy for a whole second, so the "
                "capacity is unknown; {:.2f} users/s were released over the span\n",
                c.throughput_per_s);
  parts.push_back({release, std::nullopt});

  if (!c.service.empty()) {
    text_table service = fits_table();
    service.note = "  (done_at - reached_backend_at)";
    add_fits(service, "all", c.service);
    parts.push_back({"\nbackend service\n", std::move(service)});
    if (c.service_sampled)
      parts.push_back({fmt::format("  fitted on a random sample of {} of {} observations "
                                   "(intervals are the sample's)\n",
                                   c.service.front().n, c.service_observations),
                       std::nullopt});
  }
  if (c.released_known > 0) {
    const auto [lo, hi] = models::fit::share_interval(c.no_shows, c.released_known);
    const double share = static_cast<double>(c.no_shows) / static_cast<double>(c.released_known);
    parts.push_back(
        {fmt::format("no-shows: {} of {} released users never reached the backend, {}\n",
                     c.no_shows, c.released_known, interval(share, lo, hi)),
         std::nullopt});
  }
  if (check) {
    text_table t{
        {{"class", 8, true},
         {"figure", 16, true},
         {"log", 10},
         {"model", 10},
         {"one run falls in", 24},
         {"", 7, true}},
        {},
        fmt::format("  ({} runs of the fitted scenario; each interval at {:.4g}%, so all "
                    "fall inside with {:.0f}% when the model is right)",
                    check->replications, check->row_level * 100, check->family_level * 100)};
    std::size_t outside = 0;
    for (const auto& r : check->rows) {
      outside += r.inside ? 0 : 1;
      t.rows.push_back({r.class_name, models::to_string(r.metric),
                        fmt::format("{:.4g}", r.realised), fmt::format("{:.4g}", r.model),
                        fmt::format("[{:.4g}, {:.4g}]", r.lo, r.hi),
                        r.inside ? "inside" : "OUTSIDE"});
    }
    parts.push_back({"\ncheck: the log against the fitted scenario\n", std::move(t)});
    std::string verdict =
        outside == 0 ? "every figure of the log is inside what the fitted scenario produces\n"
                     : fmt::format(
                           "{} of {} figures of the log are outside what the fitted "
                           "scenario produces (exit 1)\n",
                           outside, check->rows.size());
    if (check->waiting_at_end > 0)
      verdict += fmt::format(
          "({} users still waiting when the log ends are not in the log's waits; the model's "
          "runs drain)\n",
          check->waiting_at_end);
    parts.push_back({verdict, std::nullopt});
  }
  if (!scenario_note.empty()) parts.push_back({"\n" + scenario_note + "\n", std::nullopt});
  return parts;
}

}  // namespace waitroom::reports
