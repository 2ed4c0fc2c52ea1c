#pragma once
// `fit --check`: would the fitted scenario produce the event the log recorded? Each class's
// realised mean, p50 and p95 wait (released users) and give-up share beside a prediction
// interval for one run of the fitted scenario, from its replications.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/fit/calibrate.hpp"
#include "models/sla/sla.hpp"

namespace waitroom::models::fit {

struct check_row {
  std::string class_name;
  std::size_t class_index = 0;  // in the calibration (and the fitted scenario)
  sla_metric metric = sla_metric::mean_wait_s;
  double realised = 0;    // the log's figure
  double model = 0;       // the replications' mean
  double lo = 0, hi = 0;  // where one run of the model falls, at the per-figure level
  bool inside = false;
};

struct fit_check {
  std::uint32_t replications = 0;
  double family_level = 0.95;  // all rows inside with this probability when the model is right
  double row_level = 0.95;     // each row's: Bonferroni's 1 - (1 - family_level) / rows
  std::uint64_t waiting_at_end = 0;  // users the log ends with still waiting: not counted
  std::vector<check_row> rows;
  bool all_inside() const;
};

// The log's figures per class (in the calibration's order, which is the fitted scenario's)
// against `tables`, one per replication of the fitted scenario (at least two). A figure the log
// has no data for (a class nobody of which was released) gets no row.
fit_check check_fit(const calibration& c, const std::vector<metric_table>& tables,
                    double family_level = 0.95);

nlohmann::json check_json(const fit_check& f);

}  // namespace waitroom::models::fit
