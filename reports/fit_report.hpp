#pragma once
// The fit of an event log for people (`waitroom fit`): the arrival segments, each class's share
// and patience, the release rate and the backend, every fitted figure with its 95% interval.
#include <string>

#include "models/fit/calibrate.hpp"
#include "models/fit/fit_check.hpp"
#include "reports/text_table.hpp"

namespace waitroom::reports {

// `check`: fit --check's comparison of the log with the fitted scenario's runs, when asked.
report_parts fit_parts(const models::fit::calibration& c, const std::string& scenario_note,
                       const models::fit::fit_check* check = nullptr);

}  // namespace waitroom::reports
