#pragma once
// From a past event's log to a scenario: arrivals as constant-rate segments (change_points),
// each class's share and patience (survival, with censoring), the backend's service times and
// no-shows, and the release rate the room ran at. docs/calibration.md walks through it.
#include <cstddef>
#include <cstdint>
#include <istream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/fit/change_points.hpp"
#include "models/fit/event_log.hpp"
#include "models/fit/survival.hpp"

namespace waitroom::models::fit {

struct calibrate_options {
  time_unit unit = time_unit::s;
  double bin_s = 1;  // the arrivals' counting bin
  // Patience and service are fitted on a uniform random sample of at most this many
  // observations per class (seeded: the same log gives the same fit); counts, shares, rates
  // and the released users' waits use every record.
  std::size_t sample = 50000;
};

struct class_calibration {
  std::string name;
  std::uint64_t users = 0, released = 0, gave_up = 0, waiting = 0;  // waiting: at the log's end
  std::vector<survival_fit> patience = {};  // every family, best first; none without give-ups
  std::vector<km_point> kaplan_meier = {};
  std::vector<double> released_waits_s = {};  // the realised waits of released users, in order
  // Observations streamed (give-ups, releases, users still waiting) and whether the fit used
  // a sample of them (calibrate_options::sample).
  std::uint64_t patience_observations = 0;
  bool patience_sampled = false;
};

struct calibration {
  std::string log;
  double start_s = 0;  // the first user's joined_at (the scenario's time 0)
  double end_s = 0;    // the log's last time: users still waiting are censored here
  std::uint64_t users = 0;
  double bin_s = 1;
  std::vector<std::uint64_t> arrivals_per_bin;
  std::vector<rate_segment_fit> segments;
  std::vector<class_calibration> classes;  // in the order they first appear
  std::vector<std::uint64_t> released_per_bin;
  // The room's release capacity: users released per second in the bins where users waited
  // throughout (a bin whose queue ran empty shows the arrivals, not the capacity); 0 when no
  // bin was busy. The throughput is all releases over the span from the first to the last.
  double release_rate_per_s = 0;
  double throughput_per_s = 0;
  std::uint64_t busy_bins = 0;
  std::vector<survival_fit> service;  // done - reached_backend; empty when unknown
  std::uint64_t service_observations = 0;
  bool service_sampled = false;
  std::uint64_t released_known = 0;  // released users whose arrival is known (reached or not)
  std::uint64_t no_shows = 0;
  std::uint64_t peak_in_backend = 0;  // most users between reached_backend_at and done_at
};

// Clopper-Pearson's exact 95% interval of a share k / n (n > 0).
std::pair<double, double> share_interval(std::uint64_t k, std::uint64_t n);

// Reads and fits the log (read_event_log's errors, and input_error when nothing can be fitted).
calibration calibrate(std::istream& in, const std::string& name, const calibrate_options& o);

// The fitted scenario, ready for `waitroom run`: classes (share, patience), arrivals
// (piecewise), release (tick at the fitted `rate_per_s`; the throughput when no bin was busy;
// input_error when no release rate can be measured; net of the re-releases of no-shows' slots when
// the backend has no-shows, since its reclaim adds them), backend (when the log shows service
// times). `name` is the scenario's name.
nlohmann::json scenario_json(const calibration& c, const std::string& name);
// The fit itself, with intervals and goodness of fit, for `fit --format json` and reports.
nlohmann::json fit_json(const calibration& c);

}  // namespace waitroom::models::fit
