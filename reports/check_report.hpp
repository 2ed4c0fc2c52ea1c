#pragma once
// SLA outcomes as JSON: `check --format json`, and the targets of each sweep or plan point.
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/scenario/scenario.hpp"
#include "models/sla/sla.hpp"

namespace waitroom::reports {

// One target: class ("all" for everyone), metric, limit ("max" or "min"), observed estimate
// with its interval, and whether it holds.
nlohmann::json sla_outcome_json(const models::scenario& s, const models::sla_outcome& o);

// `check`'s result: every scenario's targets, and whether all hold ("kind": "check").
nlohmann::json check_json(
    const std::vector<std::pair<const models::scenario*, std::vector<models::sla_outcome>>>& runs,
    std::string_view tool_version);

}  // namespace waitroom::reports
