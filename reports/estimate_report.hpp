#pragma once
// `estimate`: the closed form that matches a scenario (models/analytic) beside the simulated
// interval, a row per class (or everyone, when the model gives one value for all) and per
// probability the model gives; as JSON and as a terminal table.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/analytic/queueing.hpp"
#include "models/results/result.hpp"
#include "models/spec/scenario.hpp"
#include "sim/confidence.hpp"

namespace waitroom::reports {

struct estimate_row {
  std::string name;
  std::optional<double> theory;
  sim::interval simulated;
};

std::vector<estimate_row> estimate_rows(const models::scenario& s,
                                        const std::vector<models::room_result>& rs,
                                        const models::estimate_or_reason& est);
// `estimate --format json` (the text, newline-terminated).
std::string estimate_json(const models::scenario& s, const models::estimate_or_reason& est,
                          std::uint32_t reps, const std::vector<estimate_row>& rows);
std::string estimate_table(const models::scenario& s, const models::estimate_or_reason& est,
                           std::uint32_t reps, const std::vector<estimate_row>& rows);

}  // namespace waitroom::reports
