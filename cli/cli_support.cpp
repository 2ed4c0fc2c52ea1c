#include "cli_support.hpp"

#include <fmt/format.h>

#include "commands.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <thread>

#include <unistd.h>
#include <boost/program_options.hpp>

#include "default_scenario.hpp"
#include "sim/input_error.hpp"

namespace po = boost::program_options;

namespace waitroom::cli {

common_args parse_args(const std::string& command, const std::vector<std::string>& args,
                       command_kind kind) {
  po::options_description opts;
  opts.add_options()("scenario", po::value<std::vector<std::string>>())(
      "set", po::value<std::vector<std::string>>()->composing());
  if (kind != command_kind::validate)
    opts.add_options()("seed", po::value<std::uint64_t>())("threads", po::value<unsigned>());
  if (kind == command_kind::estimate)
    opts.add_options()("replications", po::value<std::uint32_t>())(
        "format", po::value<std::string>())("out", po::value<std::string>());
  if (kind == command_kind::run || kind == command_kind::compare)
    opts.add_options()("out", po::value<std::string>())("format", po::value<std::string>())(
        "replications", po::value<std::uint32_t>());
  if (kind == command_kind::run)
    opts.add_options()("trace", po::value<std::string>())("trace-from", po::value<double>())(
        "trace-to", po::value<double>())("trace-users", po::value<std::string>());
  if (kind == command_kind::compare)
    opts.add_options()("variant", po::value<std::vector<std::string>>()->composing());
  if (kind == command_kind::check) opts.add_options()("junit", po::value<std::string>());
  if (kind == command_kind::run || kind == command_kind::check || kind == command_kind::plan)
    opts.add_options()("shard", po::value<std::string>());
  if (kind == command_kind::check) opts.add_options()("out", po::value<std::string>());
  if (kind == command_kind::merge)
    opts.add_options()("format", po::value<std::string>())("junit", po::value<std::string>());
  if (kind == command_kind::sweep || kind == command_kind::plan)
    opts.add_options()("replications", po::value<std::uint32_t>())("out", po::value<std::string>())(
        "csv", po::value<std::string>())("quiet", po::bool_switch());
  if (kind == command_kind::sweep)
    opts.add_options()("vary", po::value<std::vector<std::string>>()->composing())(
        "shard", po::value<std::string>());
  if (kind == command_kind::merge)
    opts.add_options()("out", po::value<std::string>())("csv", po::value<std::string>());
  if (kind == command_kind::plan)
    opts.add_options()("knob", po::value<std::vector<std::string>>()->composing())(
        "range", po::value<std::vector<std::string>>()->composing())(
        "tie", po::value<std::vector<std::string>>()->composing())("search", po::bool_switch());
  po::positional_options_description pos;
  pos.add("scenario", kind == command_kind::check || kind == command_kind::merge ? -1 : 1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(opts).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw sim::input_error("waitroom " + command, "valid arguments (see waitroom --help)",
                           e.what());
  }
  common_args a;
  if (vm.count("scenario")) {
    a.scenario_paths = vm["scenario"].as<std::vector<std::string>>();
    a.scenario_path = a.scenario_paths.front();
  }
  if (vm.count("replications")) {
    a.replications = vm["replications"].as<std::uint32_t>();
    if (a.replications < 1 || a.replications > 100000)
      throw sim::input_error("--replications", "a number from 1 to 100000",
                             std::to_string(a.replications));
  }
  if (vm.count("threads")) a.threads = vm["threads"].as<unsigned>();
  if (vm.count("junit")) a.junit = vm["junit"].as<std::string>();
  if (vm.count("variant")) a.variants = vm["variant"].as<std::vector<std::string>>();
  auto list = [&](const char* key, std::vector<std::string>& into) {
    if (vm.count(key)) into = vm[key].as<std::vector<std::string>>();
  };
  list("vary", a.vary);
  list("knob", a.knobs);
  list("range", a.ranges);
  list("tie", a.ties);
  if (vm.count("csv")) a.csv = vm["csv"].as<std::string>();
  if (vm.count("quiet")) a.quiet = vm["quiet"].as<bool>();
  if (vm.count("search")) a.search = vm["search"].as<bool>();
  if (vm.count("shard")) a.shard = vm["shard"].as<std::string>();
  if (vm.count("trace")) a.trace = vm["trace"].as<std::string>();
  if (vm.count("trace-from")) a.trace_from = vm["trace-from"].as<double>();
  if (vm.count("trace-to")) a.trace_to = vm["trace-to"].as<double>();
  if (vm.count("trace-users")) a.trace_users = vm["trace-users"].as<std::string>();
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

models::scenario load(const common_args& a, std::optional<std::string> path) {
  nlohmann::json j;
  std::string name, base_dir = ".";
  if (path) {
    name = *path;
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

unsigned threads_or_cores(unsigned t) {
  return t ? t : std::max(1u, std::thread::hardware_concurrency());
}

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

int write_or_print(const common_args& a, const std::string& text) {
  if (!a.out) {
    fmt::print("{}", text);
    return exit_ok;
  }
  if (!write_atomically(*a.out, text)) {
    fmt::print(stderr, "waitroom: {}: could not write the result file\n", *a.out);
    return exit_output;
  }
  return exit_ok;
}

}  // namespace waitroom::cli
