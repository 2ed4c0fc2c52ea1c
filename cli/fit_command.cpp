// `waitroom fit LOG`: last event's log of one record per user as a calibrated scenario
// (docs/calibration.md). The fit's figures go to stdout (a table, or JSON with the scenario
// inside); --out writes the scenario alone, ready for run, check and plan.
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <boost/program_options.hpp>

#include "command_line.hpp"
#include "commands.hpp"
#include "models/fit/calibrate.hpp"
#include "models/scenario/scenario.hpp"
#include "output_file.hpp"
#include "output_writer.hpp"
#include "reports/fit_report.hpp"
#include "reports/markdown_report.hpp"
#include "sim/input_error.hpp"

namespace po = boost::program_options;
using nlohmann::json;

namespace waitroom::cli {

std::string fit_usage() {
  return R"(usage: waitroom fit LOG [--out SCENARIO.json] [--format table|json|markdown]
                  [--time-unit s|ms] [--name NAME]

Fits a scenario to the log of a past event: one record per user, JSON Lines or CSV with a
header (user, class, joined_at, and when known released_at, left_at, reached_backend_at,
done_at, purchased), or the program's own --trace. Arrivals become constant-rate segments
(change points by PELT), each class gets its share and its patience (exponential, Weibull
or lognormal by AIC, censored at the wait of users who were released or still waiting),
the backend its service time and no-show share, and the release its rate while users
waited. Every fitted figure has a 95% interval (docs/calibration.md).

options:
  --out FILE       write the fitted scenario to FILE (the fit itself goes to stdout)
  --format F       the fit on stdout: table (default), json (with the scenario inside)
                   or markdown
  --time-unit U    numeric timestamps are epoch seconds (s, default) or milliseconds (ms);
                   ISO 8601 times with an offset are read either way
  --name NAME      the scenario's name (default: the log's file name without extension)
  --help           this text
)";
}

int fit_command(const std::vector<std::string>& args) {
  po::options_description opts;
  opts.add_options()("log", po::value<std::vector<std::string>>())("out", po::value<std::string>())(
      "format", po::value<std::string>())("time-unit", po::value<std::string>())(
      "name", po::value<std::string>())("help", po::bool_switch());
  const po::variables_map vm = parse_command_line(args, opts, "log", "waitroom fit");
  if (vm["help"].as<bool>()) {
    fmt::print("{}", fit_usage());
    return exit_ok;
  }
  const auto logs =
      vm.count("log") ? vm["log"].as<std::vector<std::string>>() : std::vector<std::string>{};
  if (logs.size() != 1)
    throw sim::input_error("waitroom fit", "one LOG file",
                           logs.empty() ? "none" : fmt::format("{}", fmt::join(logs, " ")));
  const std::string& log = logs.front();
  constexpr output_format formats[] = {output_format::table, output_format::json,
                                       output_format::markdown};
  const output_format format = vm.count("format")
                                   ? parse_format(vm["format"].as<std::string>(), formats)
                                   : output_format::table;
  models::fit::calibrate_options o;
  if (vm.count("time-unit")) {
    const std::string u = vm["time-unit"].as<std::string>();
    if (u != "s" && u != "ms") throw sim::input_error("--time-unit", "s or ms", "'" + u + "'");
    o.unit = u == "ms" ? models::fit::time_unit::ms : models::fit::time_unit::s;
  }
  std::optional<std::string> out;
  if (vm.count("out")) {
    out = vm["out"].as<std::string>();
    refuse_same_file({{"--out", *out}}, {{"LOG", log}});  // before reading: it would be lost
  }
  const std::string name =
      vm.count("name") ? vm["name"].as<std::string>() : std::filesystem::path(log).stem().string();

  std::ifstream in(log, std::ios::binary);
  if (!in)
    throw sim::input_error(log, "a readable event log",
                           std::filesystem::is_directory(log) ? "a directory"
                           : std::filesystem::exists(log)     ? "a file that cannot be read"
                                                              : "no such file");
  const auto c = models::fit::calibrate(in, log, o);
  const json scenario = models::fit::scenario_json(c, name);
  models::parse_scenario(scenario, log + " (fitted)", ".");  // what run will read, checked now

  std::string note;
  if (out) {
    if (int rc = write_text(out, scenario.dump(2) + "\n"); rc != exit_ok) return rc;
    note = fmt::format("wrote the scenario to {} (release: {:.2f} users/s)", *out,
                       scenario["release"]["rate_per_s"].get<double>());
  } else {
    note = "write the scenario with --out SCENARIO.json (or read it from --format json)";
  }
  return write_result(std::nullopt, format,
                      {.table = [&] { return reports::fixed_width(reports::fit_parts(c, note)); },
                       .json =
                           [&] {
                             json j = models::fit::fit_json(c);
                             j["scenario"] = scenario;
                             return j.dump(2) + "\n";
                           },
                       .markdown = [&] { return reports::markdown(reports::fit_parts(c, note)); }});
}

}  // namespace waitroom::cli
