#include "commands.hpp"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>

#include <fmt/format.h>
#include <unistd.h>
#include <boost/program_options.hpp>

#include "default_scenario.hpp"
#include "models/room/room.hpp"
#include "models/scenario/scenario.hpp"
#include "reports/report.hpp"
#include "sim/core/input_error.hpp"
#include "version.hpp"

namespace po = boost::program_options;

namespace waitroom::cli {

std::string usage() {
  return R"(waitroom - simulate virtual waiting rooms with VIP priority

usage:
  waitroom run [SCENARIO] [--seed N] [--set /json/pointer=value ...]
               [--out FILE] [--format table|json]
  waitroom validate SCENARIO [--set /json/pointer=value ...]
  waitroom --help | --version

commands:
  run        simulate SCENARIO (a JSON file; without one, the embedded concert
             presale) and print per-class wait-time distributions
  validate   check SCENARIO and print the effective scenario as JSON

options:
  --seed N         random seed (overrides the scenario's "seed")
  --set P=V        set the value at JSON pointer P before validation; V is JSON,
                   or a plain string: --set /release/batch=500 --set /queue/policy=fifo
  --out FILE       write the result to FILE (JSON unless --format table); the
                   file appears only when the run succeeded
  --format F       table (default on a terminal) or json (default with --out)

examples:
  waitroom run
  waitroom run scenarios/clinic.json --set /release/batch=8 --format json
  waitroom run scenarios/mmc_validation.json --seed 7 --out result.json
  waitroom validate scenarios/concert_presale.json

exit codes:
  0 success   2 bad input (arguments, scenario, trace)   3 internal error
  4 the output file could not be written   (1 is reserved for SLA checks)
)";
}

namespace {

struct common_args {
  std::optional<std::string> scenario_path;
  std::vector<std::string> sets;
  std::optional<std::uint64_t> seed;
  std::optional<std::string> out;
  std::optional<std::string> format;
};

common_args parse_args(const std::string& command, const std::vector<std::string>& args,
                       bool run_options) {
  po::options_description opts;
  opts.add_options()("scenario", po::value<std::string>())(
      "set", po::value<std::vector<std::string>>()->composing());
  if (run_options)
    opts.add_options()("seed", po::value<std::uint64_t>())("out", po::value<std::string>())(
        "format", po::value<std::string>());
  po::positional_options_description pos;
  pos.add("scenario", 1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(opts).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw sim::input_error("waitroom " + command, "valid arguments (see waitroom --help)",
                           e.what());
  }
  common_args a;
  if (vm.count("scenario")) a.scenario_path = vm["scenario"].as<std::string>();
  if (vm.count("set")) a.sets = vm["set"].as<std::vector<std::string>>();
  if (vm.count("seed")) a.seed = vm["seed"].as<std::uint64_t>();
  if (vm.count("out")) a.out = vm["out"].as<std::string>();
  if (vm.count("format")) {
    a.format = vm["format"].as<std::string>();
    if (*a.format != "table" && *a.format != "json")
      throw sim::input_error("--format", "table or json", "'" + *a.format + "'");
  }
  return a;
}

models::scenario load(const common_args& a) {
  nlohmann::json j;
  std::string name, base_dir = ".";
  if (a.scenario_path) {
    name = *a.scenario_path;
    j = models::read_json_file(name);
    base_dir = std::filesystem::path(name).parent_path().string();
    if (base_dir.empty()) base_dir = ".";
  } else {
    name = std::string(default_scenario_name);
    j = models::parse_json_text(std::string(default_scenario_text), name);
  }
  for (const auto& s : a.sets) models::apply_override(j, s);
  return models::parse_scenario(j, name, base_dir);
}

// Writes to a temporary file beside the target and renames it, so a failed run never
// leaves a half-written result behind.
bool write_atomically(const std::string& path, const std::string& text) {
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) return false;
    f << text;
    f.flush();
    if (!f) {
      std::filesystem::remove(tmp);
      return false;
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) std::filesystem::remove(tmp, ec);
  return !ec;
}

}  // namespace

int run_command(const std::vector<std::string>& args) {
  try {
    common_args a = parse_args("run", args, true);
    models::scenario s = load(a);
    std::uint64_t seed = a.seed.value_or(s.seed);
    s.seed = seed;
    auto started = std::chrono::steady_clock::now();
    models::room_result r = models::run_scenario(s, seed);
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::string format = a.format.value_or(a.out ? "json" : "table");
    std::string text = format == "json" ? reports::result_json(s, r, version).dump(2) + "\n"
                                        : reports::result_table(s, r);
    if (a.out) {
      if (!write_atomically(*a.out, text)) {
        fmt::print(stderr, "waitroom: {}: could not write the result file\n", *a.out);
        return exit_output;
      }
      fmt::print(stderr, "waitroom: wrote {} ({} users, {} events in {:.2f}s wall)\n", *a.out,
                 r.overall.arrived, r.events, wall);
    } else {
      fmt::print("{}", text);
      std::fflush(stdout);
    }
    return exit_ok;
  } catch (const sim::input_error& e) {
    fmt::print(stderr, "waitroom: {}\n", e.what());
    return exit_bad_input;
  }
}

int validate_command(const std::vector<std::string>& args) {
  try {
    common_args a = parse_args("validate", args, false);
    if (!a.scenario_path)
      throw sim::input_error("waitroom validate", "a SCENARIO file argument", "none");
    models::scenario s = load(a);
    fmt::print("{}\n", models::to_json(s).dump(2));
    fmt::print(stderr, "waitroom: {} is valid\n", *a.scenario_path);
    return exit_ok;
  } catch (const sim::input_error& e) {
    fmt::print(stderr, "waitroom: {}\n", e.what());
    return exit_bad_input;
  }
}

}  // namespace waitroom::cli
