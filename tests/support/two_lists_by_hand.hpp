#pragma once
// A by-hand run of the selection policies: classes vip and normal (half each) in their own
// lists, released one user a tick every `tick_ms`, arrivals replayed from `trace`
// (timestamp_s,class lines), scores in microseconds. `extra` is appended to the scenario's
// top-level object (e.g. `, "sla": {...}`).
#include <functional>
#include <string>

#include "models/room/room.hpp"
#include "support/test_support.hpp"
#include "support/trace_file.hpp"

namespace waitroom::testing_support {

inline models::room_result run_two_lists_by_hand(const std::string& trace, double tick_ms,
                                                 const std::string& selection,
                                                 const std::string& extra = {}) {
  // The folder is named by the settings too: cases replaying the same trace in parallel
  // processes never share (and remove) one file.
  const trace_file file("two-lists-" + std::to_string(std::hash<std::string>{}(selection + extra)),
                        trace);
  const std::string json = R"({"name": "by-hand",
    "classes": [{"name": "vip", "share": 0.5}, {"name": "normal", "share": 0.5}],
    "arrivals": {"process": "trace", "trace_file": ")" +
                           file.path.string() + R"("},
    "queue": {"policy": "fifo", "time_unit": "us", "lists": [{"name": "vip", "classes": ["vip"]},
              {"name": "normal", "classes": ["normal"]}]},
    "release": {"mode": "tick", "interval_ms": )" +
                           std::to_string(tick_ms) + R"(, "batch": 1, "selection": )" + selection +
                           "}" + extra + "}";
  return models::run_scenario(scenario_from(json, "/"), 1);
}

}  // namespace waitroom::testing_support
