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
#include "models/fit/fit_check.hpp"
#include "models/room/room.hpp"
#include "models/scenario/scenario.hpp"
#include "options.hpp"
#include "output_file.hpp"
#include "output_writer.hpp"
#include "reports/fit_report.hpp"
#include "reports/markdown_report.hpp"
#include "sim/input_error.hpp"
#include "sim/parallel.hpp"

namespace po = boost::program_options;
using nlohmann::json;

namespace waitroom::cli {

std::string fit_usage() {
  return R"(usage: waitroom fit LOG [--out SCENARIO.json] [--format table|json|markdown]
                  [--time-unit s|ms] [--name NAME] [--set /pointer=VALUE]... [--unset /pointer]...
                  [--check [--replications R] [--threads T]]

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
  --set P=V        change the fitted scenario before it is written or checked (what the log
                   cannot show, such as the queue's policy: --set /queue/policy=offset)
  --unset P        remove a key of the fitted scenario
  --check          run the fitted scenario R times and put the log's mean, p50 and p95 wait
                   and give-up share per class beside where one run falls (95% for all
                   figures together); exit 1 when any is outside
  --replications R the check's runs (default 10, at least 2)
  --threads T      threads for the check's runs (default: every core)
  --help           this text
)";
}

namespace {

// --check's runs: refused without --check, and read before the log is.
struct check_args {
  bool on = false;
  std::uint32_t replications = 10;
  unsigned threads = 0;  // every core
};

check_args check_options(const po::variables_map& vm) {
  check_args a{vm["check"].as<bool>()};
  if (!a.on && (vm.count("replications") || vm.count("threads")))
    throw sim::input_error(vm.count("replications") ? "--replications" : "--threads",
                           "--check (the runs are the check's)", "no --check");
  if (vm.count("replications"))
    a.replications = static_cast<std::uint32_t>(
        whole_number(vm["replications"].as<std::string>(), "--replications", 2, 100000));
  if (vm.count("threads"))
    a.threads = static_cast<unsigned>(
        whole_number(vm["threads"].as<std::string>(), "--threads", 1, max_threads));
  return a;
}

// fit --check: the fitted scenario's replications beside the log (none without --check).
std::optional<models::fit::fit_check> check_if_asked(const check_args& a,
                                                     const models::fit::calibration& c,
                                                     const models::scenario& fitted) {
  if (!a.on) return std::nullopt;
  std::vector<models::metric_table> tables(a.replications);
  sim::parallel_for(a.replications, threads_or_cores(a.threads), [&](std::size_t r) {
    tables[r] = models::tabulate(models::run_scenario(fitted, fitted.seed, r));
  });
  return models::fit::check_fit(c, tables);
}

}  // namespace

int fit_command(const std::vector<std::string>& args) {
  po::options_description opts;
  opts.add_options()("log", po::value<std::vector<std::string>>())("out", po::value<std::string>())(
      "format", po::value<std::string>())("time-unit", po::value<std::string>())(
      "name", po::value<std::string>())("check", po::bool_switch())(
      "set", po::value<std::vector<std::string>>())("unset", po::value<std::vector<std::string>>())(
      "replications", po::value<std::string>())("threads", po::value<std::string>())(
      "help", po::bool_switch());
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
  const check_args checking = check_options(vm);
  const auto c = models::fit::calibrate(in, log, o);
  json scenario = models::fit::scenario_json(c, name);
  if (vm.count("unset"))
    for (const auto& p : vm["unset"].as<std::vector<std::string>>())
      models::apply_unset(scenario, p);
  if (vm.count("set"))
    for (const auto& p : vm["set"].as<std::vector<std::string>>())
      models::apply_override(scenario, p);
  // What run will read, checked now.
  const models::scenario fitted = models::parse_scenario(scenario, log + " (fitted)", ".");
  const auto check = check_if_asked(checking, c, fitted);

  std::string note;
  if (out) {
    if (int rc = write_text(out, scenario.dump(2) + "\n"); rc != exit_ok) return rc;
    note = fmt::format("wrote the scenario to {} (release: {:.2f} users/s)", *out,
                       scenario["release"]["rate_per_s"].get<double>());
  } else {
    note = "write the scenario with --out SCENARIO.json (or read it from --format json)";
  }
  const int rc = write_result(
      std::nullopt, format,
      {.table =
           [&] {
             return reports::fixed_width(reports::fit_parts(c, note, check ? &*check : nullptr));
           },
       .json =
           [&] {
             json j = models::fit::fit_json(c);
             j["scenario"] = scenario;
             if (check) j["check"] = models::fit::check_json(*check);
             return j.dump(2) + "\n";
           },
       .markdown =
           [&] {
             return reports::markdown(reports::fit_parts(c, note, check ? &*check : nullptr));
           }});
  return rc == exit_ok && check && !check->all_inside() ? exit_sla_failed : rc;
}

}  // namespace waitroom::cli
