#pragma once
// `waitroom report RESULT.json [--out report.html]`, and the --html FILE of the other commands.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace waitroom::cli {

// Writes the HTML report of `result` to `path` (atomically, saying so on stderr); returns
// exit_ok, or exit_output after saying why it could not.
int write_html(const std::string& path, const nlohmann::json& result, const std::string& source);

int report_command(const std::vector<std::string>& args);
std::string report_usage();

}  // namespace waitroom::cli
