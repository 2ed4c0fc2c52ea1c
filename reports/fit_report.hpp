#pragma once
// The fit of an event log for people (`waitroom fit`): the arrival segments, each class's share
// and patience, the release rate and the backend, every fitted figure with its 95% interval.
#include <string>

#include "models/fit/calibrate.hpp"
#include "reports/text_table.hpp"

namespace waitroom::reports {

report_parts fit_parts(const models::fit::calibration& c, const std::string& scenario_note);

}  // namespace waitroom::reports
