#pragma once
// A saved result (run, replications, compare, sweep/merge, plan, check) as one self-contained
// HTML file: the result embedded as JSON, the chart library (uPlot) and the report's own code
// inline, no network access when opened (a Content-Security-Policy forbids it).
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace waitroom::reports {

// Which command wrote `result`: "run", "replications", "compare", "sweep", "plan", "check" or
// "fit".
// Throws sim::input_error (naming `source`) for JSON that is none of these.
std::string result_kind(const nlohmann::json& result, const std::string& source);

// The HTML page for `result`; `tool_version` is the version of the program writing the page
// (the result records the one that computed it).
std::string html_report(const nlohmann::json& result, const std::string& source,
                        std::string_view tool_version);

// The version of the embedded uPlot (third_party/uplot/VERSION).
std::string_view chart_library_version();

}  // namespace waitroom::reports
