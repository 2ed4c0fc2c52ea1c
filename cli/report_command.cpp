#include "report_command.hpp"

#include <optional>

#include <fmt/format.h>
#include <boost/program_options.hpp>

#include "cli_support.hpp"
#include "commands.hpp"
#include "models/scenario/scenario.hpp"
#include "output_file.hpp"
#include "reports/html_report.hpp"
#include "sim/input_error.hpp"
#include "version.hpp"

namespace po = boost::program_options;

namespace waitroom::cli {

std::string report_usage() {
  return R"(usage: waitroom report RESULT.json [--out FILE]

Renders the saved JSON result of `run`, `run --replications`, `compare`, `sweep` or
`merge`, `plan --format json` or `check --format json` as one self-contained HTML file:
the data, the chart library (uPlot) and the code are inline, so it opens offline and can be
attached to a ticket. The other commands write the same file directly with --html FILE.

options:
  --out FILE   where to write the page (default: RESULT with .html for .json)
  --help       this text
)";
}

int write_html(const std::string& path, const nlohmann::json& result, const std::string& source) {
  std::string page = reports::html_report(result, source, version);
  if (!write_atomically(path, page)) {
    fmt::print(stderr, "waitroom: {}: could not write the HTML report ({})\n", path,
               last_write_error());
    return exit_output;
  }
  fmt::print(stderr, "waitroom: wrote {} ({} report, {} KB)\n", path,
             reports::result_kind(result, source), (page.size() + 1023) / 1024);
  return exit_ok;
}

int report_command(const std::vector<std::string>& args) {
  po::options_description opts;
  opts.add_options()("result", po::value<std::vector<std::string>>())(
      "out", po::value<std::string>())("help", po::bool_switch());
  po::positional_options_description pos;
  pos.add("result", -1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(opts).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw sim::input_error("waitroom report", "valid arguments (see waitroom report --help)",
                           e.what());
  }
  if (vm["help"].as<bool>()) {
    fmt::print("{}", report_usage());
    return exit_ok;
  }
  if (!vm.count("result") || vm["result"].as<std::vector<std::string>>().size() != 1)
    throw sim::input_error("waitroom report", "one RESULT.json file",
                           vm.count("result") ? "several" : "none");
  const std::string source = vm["result"].as<std::vector<std::string>>().front();
  std::string out;
  if (vm.count("out")) {
    out = vm["out"].as<std::string>();
  } else {
    out = source;
    if (out.size() > 5 && out.substr(out.size() - 5) == ".json") out.resize(out.size() - 5);
    out += ".html";
  }
  nlohmann::json result = models::read_json_file(source);
  return write_html(out, result, source);
}

}  // namespace waitroom::cli
