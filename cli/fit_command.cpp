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
#include "report_command.hpp"
#include "reports/fit_report.hpp"
#include "reports/markdown_report.hpp"
#include "reports/report.hpp"
#include "sim/input_error.hpp"
#include "sim/parallel.hpp"
#include "version.hpp"

namespace po = boost::program_options;
using nlohmann::json;

namespace waitroom::cli {

std::string fit_usage() {
  return R"(usage: waitroom fit LOG [--out SCENARIO.json] [--format table|json|markdown]
                  [--time-unit s|ms] [--name NAME] [--html REPORT.html] [--set /pointer=VALUE]...
                  [--unset /pointer]... [--sample N]
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
  --html FILE      a self-contained HTML report of the fit: arrivals per minute against the
                   fitted rate, Kaplan-Meier against the fitted patience per class, and with
                   --check the log's waits against the fitted scenario's
  --set P=V        change the fitted scenario before it is written or checked (what the log
                   cannot show, such as the queue's policy: --set /queue/policy=offset)
  --unset P        remove a key of the fitted scenario
  --sample N       fit patience and service on a random sample of at most N observations
                   per class (default 50000; the same sample every time); counts, shares,
                   rates and waits use every record
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

struct fit_args {
  std::string log, name;
  output_format format = output_format::table;
  models::fit::calibrate_options calibrate;
  std::optional<std::string> out, html;
  std::vector<std::string> sets, unsets;
  check_args check;
};

// The command line, every flag checked before the log is read (an output file that is the log
// is refused: it would be lost).
std::optional<fit_args> parse_fit_args(const std::vector<std::string>& args) {
  po::options_description opts;
  opts.add_options()("log", po::value<std::vector<std::string>>())("out", po::value<std::string>())(
      "format", po::value<std::string>())("time-unit", po::value<std::string>())(
      "name", po::value<std::string>())("check", po::bool_switch())(
      "html", po::value<std::string>())("set", po::value<std::vector<std::string>>())(
      "unset", po::value<std::vector<std::string>>())("replications", po::value<std::string>())(
      "threads", po::value<std::string>())("sample", po::value<std::string>())("help",
                                                                               po::bool_switch());
  const po::variables_map vm = parse_command_line(args, opts, "log", "waitroom fit");
  if (vm["help"].as<bool>()) return std::nullopt;
  const auto logs =
      vm.count("log") ? vm["log"].as<std::vector<std::string>>() : std::vector<std::string>{};
  if (logs.size() != 1)
    throw sim::input_error("waitroom fit", "one LOG file",
                           logs.empty() ? "none" : fmt::format("{}", fmt::join(logs, " ")));
  fit_args a;
  a.log = logs.front();
  constexpr output_format formats[] = {output_format::table, output_format::json,
                                       output_format::markdown};
  if (vm.count("format")) a.format = parse_format(vm["format"].as<std::string>(), formats);
  if (vm.count("time-unit")) {
    const std::string u = vm["time-unit"].as<std::string>();
    if (u != "s" && u != "ms") throw sim::input_error("--time-unit", "s or ms", "'" + u + "'");
    a.calibrate.unit = u == "ms" ? models::fit::time_unit::ms : models::fit::time_unit::s;
  }
  if (vm.count("sample"))
    a.calibrate.sample = static_cast<std::size_t>(
        whole_number(vm["sample"].as<std::string>(), "--sample", 100, 100000000));
  if (vm.count("out")) a.out = vm["out"].as<std::string>();
  if (vm.count("html")) a.html = vm["html"].as<std::string>();
  std::vector<named_path> outputs;
  if (a.out) outputs.push_back({"--out", *a.out});  // clang 14: no emplace of an aggregate
  if (a.html) outputs.push_back({"--html", *a.html});
  refuse_same_file(outputs, {{"LOG", a.log}});
  if (a.out && a.html) refuse_same_file({{"--html", *a.html}}, {{"--out", *a.out}});
  a.name = vm.count("name") ? vm["name"].as<std::string>()
                            : std::filesystem::path(a.log).stem().string();
  if (vm.count("set")) a.sets = vm["set"].as<std::vector<std::string>>();
  if (vm.count("unset")) a.unsets = vm["unset"].as<std::vector<std::string>>();
  a.check = check_options(vm);
  return a;
}

}  // namespace

int fit_command(const std::vector<std::string>& args) {
  const auto parsed = parse_fit_args(args);
  if (!parsed) {
    fmt::print("{}", fit_usage());
    return exit_ok;
  }
  const fit_args& a = *parsed;
  std::ifstream in(a.log, std::ios::binary);
  if (!in)
    throw sim::input_error(a.log, "a readable event log",
                           std::filesystem::is_directory(a.log) ? "a directory"
                           : std::filesystem::exists(a.log)     ? "a file that cannot be read"
                                                                : "no such file");
  const auto c = models::fit::calibrate(in, a.log, a.calibrate);
  json scenario = models::fit::scenario_json(c, a.name);
  for (const auto& p : a.unsets) models::apply_unset(scenario, p);
  for (const auto& p : a.sets) models::apply_override(scenario, p);
  // What run will read, checked now.
  const models::scenario fitted = models::parse_scenario(scenario, a.log + " (fitted)", ".");
  const auto check = check_if_asked(a.check, c, fitted);
  json doc = models::fit::fit_json(c);
  doc["schema_version"] = reports::result_schema_version;  // `waitroom report` reads it
  doc["tool"] = {{"name", "waitroom"}, {"version", version}};
  doc["scenario"] = scenario;
  if (check) doc["check"] = models::fit::check_json(*check);

  std::string note;
  if (a.out) {
    if (int rc = write_text(a.out, scenario.dump(2) + "\n"); rc != exit_ok) return rc;
    note = fmt::format("wrote the scenario to {} (release: {:.2f} users/s)", *a.out,
                       scenario["release"]["rate_per_s"].get<double>());
  } else {
    note = "write the scenario with --out SCENARIO.json (or read it from --format json)";
  }
  if (a.html && write_html(*a.html, doc, a.log) != exit_ok) return exit_output;
  const auto parts = [&] { return reports::fit_parts(c, note, check ? &*check : nullptr); };
  const int rc = write_result(std::nullopt, a.format,
                              {.table = [&] { return reports::fixed_width(parts()); },
                               .json = [&] { return doc.dump(2) + "\n"; },
                               .markdown = [&] { return reports::markdown(parts()); }});
  return rc == exit_ok && check && !check->all_inside() ? exit_sla_failed : rc;
}

}  // namespace waitroom::cli
