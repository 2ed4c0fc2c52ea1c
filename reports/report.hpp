#pragma once
// Results as JSON (machine-readable, byte-identical for the same scenario and seed) and as
// a terminal table (for people).
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "models/room/room.hpp"
#include "models/scenario/scenario.hpp"

namespace waitroom::reports {

inline constexpr int result_schema_version = 1;

nlohmann::json wait_summary(const models::wait_stats& w);
nlohmann::json result_json(const models::scenario& s, const models::room_result& r,
                           std::string_view tool_version);
std::string result_table(const models::scenario& s, const models::room_result& r);

}  // namespace waitroom::reports
