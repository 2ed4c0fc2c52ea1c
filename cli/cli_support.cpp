#include "cli_support.hpp"

#include "memory_check.hpp"

#include <fmt/format.h>

#include "commands.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include <unistd.h>
#include <boost/program_options.hpp>

#include "default_scenario.hpp"
#include "output_file.hpp"
#include "sim/input_error.hpp"
#include "sim/text_file.hpp"
#include "sim/time.hpp"

namespace po = boost::program_options;

namespace waitroom::cli {

namespace {

// The first line of each command's --help.
std::string synopsis(command_kind kind) {
  switch (kind) {
    case command_kind::run:
      return "waitroom run [SCENARIO] [options]";
    case command_kind::validate:
      return "waitroom validate SCENARIO [options]";
    case command_kind::check:
      return "waitroom check SCENARIO... [options]";
    case command_kind::compare:
      return "waitroom compare SCENARIO --variant NAME:/pointer=value[,/pointer=value] ... "
             "[options]";
    case command_kind::estimate:
      return "waitroom estimate SCENARIO [options]";
    case command_kind::sweep:
      return "waitroom sweep SCENARIO --vary /pointer=START:STOP[:STEP] ... [options]";
    case command_kind::plan:
      return "waitroom plan SCENARIO --knob /pointer --range LO:HI[:STEP] [--knob ... --range "
             "...] [options]";
    case command_kind::merge:
      return "waitroom merge SHARD_FILE... [options]";
  }
  return "waitroom";
}

// A flag's whole number: decimal digits only, so "-1" is refused instead of wrapping around.
std::uint64_t whole_number(const std::string& text, const std::string& flag, std::uint64_t min,
                           std::uint64_t max) {
  const std::string expected = fmt::format("a whole number from {} to {}", min, max);
  if (text.empty() || text.size() > 19 || text.find_first_not_of("0123456789") != std::string::npos)
    throw sim::input_error(flag, expected, "'" + text + "'");
  const std::uint64_t v = std::stoull(text);
  if (v < min || v > max) throw sim::input_error(flag, expected, text);
  return v;
}

// The whole of `text` as a number, else input_error naming the flag and what it expected.
double number_text(const std::string& text, const std::string& flag, const std::string& expected) {
  try {
    std::size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size()) return v;
  } catch (const std::exception&) {
  }
  throw sim::input_error(flag, expected, "'" + text + "'");
}

// A count written as digits or in exponent form (1e12), from 1 to 1e18.
double whole_number_or_exp(const std::string& text, const std::string& flag) {
  const std::string expected = "a whole number from 1 to 1e18 (digits, or 1e12)";
  const double v = number_text(text, flag, expected);
  if (!(v >= 1 && v <= 1e18) || v != std::floor(v)) throw sim::input_error(flag, expected, text);
  return v;
}

// A time in seconds within the clock's range (NaN and infinities refused).
double seconds(const std::string& text, const std::string& flag) {
  const std::string expected =
      fmt::format("a time in seconds from 0 to {:.0f}", sim::max_input_seconds);
  const double v = number_text(text, flag, expected);
  if (!(v >= 0 && v <= sim::max_input_seconds)) throw sim::input_error(flag, expected, text);
  return v;
}

}  // namespace

std::uint32_t replications_or(const common_args& a, std::uint32_t fallback) {
  if (!a.replications_given) return fallback;
  if (a.replications < 2)
    throw sim::input_error("--replications",
                           "at least 2 here (an interval across replications needs two)",
                           std::to_string(a.replications));
  return a.replications;
}

void check_arguments_utf8(const std::vector<std::string>& args) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (sim::first_non_utf8(arg) == std::string::npos) continue;
    // "--out=X" names --out; any other word its position and the flag before it (its flag, or
    // a switch followed by a file name: both read right).
    std::string name = fmt::format("argument {}", i + 1);
    if (arg.starts_with("--") && arg.find('=') != std::string::npos)
      name = arg.substr(0, arg.find('='));
    else if (i > 0 && args[i - 1].starts_with("--"))
      name += ", after " + args[i - 1];
    if (sim::first_non_utf8(name) != std::string::npos) name = fmt::format("argument {}", i + 1);
    sim::require_utf8(name, arg);
  }
}

common_args parse_args(const std::string& command, const std::vector<std::string>& args,
                       command_kind kind) {
  // Every option a command accepts, with the text its --help shows: one list for both.
  po::options_description opts("options", 100, 50);
  auto add = [&](const char* name, const po::value_semantic* v, const char* what) {
    opts.add_options()(name, v, what);
  };
  using strings = std::vector<std::string>;
  // merge rebuilds the sweep from the arguments its shards recorded: it takes none of these.
  if (kind != command_kind::merge) {
    add("set", po::value<strings>()->composing()->value_name("/P=V"),
        "set the value at JSON pointer P before validation (repeatable); V is JSON, or a plain "
        "string: --set /release/batch=500 --set /queue/policy=fifo");
    add("unset", po::value<strings>()->composing()->value_name("/P"),
        "remove the key (or array element) at JSON pointer P before validation (repeatable; "
        "applied in order with --set): --unset /run/horizon_s");
  }
  if (kind != command_kind::validate && kind != command_kind::merge) {
    add("seed", po::value<std::string>()->value_name("N"),
        "random seed (overrides the scenario's \"seed\")");
    add("threads", po::value<std::string>()->value_name("T"),
        "threads for replications (default: one per core); results do not depend on it");
  }
  const char* reps_text = kind == command_kind::run
                              ? "independent replications with 95% t intervals for every statistic"
                          : kind == command_kind::plan
                              ? "replications a point (default: the scenario's sla.replications)"
                          : kind == command_kind::sweep ? "replications a point (default 5)"
                                                        : "replications (default 10)";
  if (kind == command_kind::estimate || kind == command_kind::run ||
      kind == command_kind::compare || kind == command_kind::sweep || kind == command_kind::plan)
    add("replications", po::value<std::string>()->value_name("R"), reps_text);
  if (kind != command_kind::validate && kind != command_kind::merge)
    add("max-events", po::value<std::string>()->value_name("N"),
        "run even when a run is estimated at more than N events (default 1e10; a run's "
        "estimate is refused above it before it starts)");
  if (kind == command_kind::run || kind == command_kind::compare || kind == command_kind::sweep ||
      kind == command_kind::plan || kind == command_kind::merge || kind == command_kind::estimate)
    add("out", po::value<std::string>()->value_name("FILE"),
        kind == command_kind::run || kind == command_kind::sweep || kind == command_kind::plan
            ? "write the result to FILE (JSON unless --format says otherwise); it appears only "
              "when the command succeeded; with --shard, the shard file for `waitroom merge`"
            : "write the result to FILE (JSON unless --format says otherwise); it appears only "
              "when the command succeeded");
  if (kind == command_kind::check)
    add("out", po::value<std::string>()->value_name("FILE"),
        "write the verdicts to FILE (JSON unless --format says otherwise); with --shard, the "
        "shard file for `waitroom merge`");
  if (kind == command_kind::run || kind == command_kind::compare || kind == command_kind::check)
    add("format", po::value<std::string>()->value_name("F"),
        "table (default without --out), json (default with --out) or csv");
  if (kind == command_kind::sweep)
    add("format", po::value<std::string>()->value_name("F"),
        "table (default on a terminal without --out) or json (default otherwise)");
  if (kind == command_kind::merge)
    add("format", po::value<std::string>()->value_name("F"),
        "as the sharded command's --format: table or json, and csv for merged check shards");
  if (kind == command_kind::estimate)
    add("format", po::value<std::string>()->value_name("F"),
        "table (default without --out) or json (default with --out)");
  if (kind == command_kind::run || kind == command_kind::check || kind == command_kind::plan)
    add("shard", po::value<std::string>()->value_name("K/N"),
        kind == command_kind::run
            ? "run only shard K of N of the replications and write a shard file (--out) for "
              "`waitroom merge`"
        : kind == command_kind::check
            ? "run only shard K of N of the (scenario, replication) units and write a shard "
              "file (--out) for `waitroom merge`"
            : "evaluate only shard K of N of a grid plan's points and write a shard file for "
              "`waitroom merge`");
  if (kind == command_kind::plan)
    add("format", po::value<std::string>()->value_name("F"),
        "table (default) or json (every point with each SLA target's interval)");
  if (kind != command_kind::validate && kind != command_kind::estimate)
    add("html", po::value<std::string>()->value_name("FILE"),
        "also write a self-contained HTML report with charts (docs/reports.md)");
  if (kind == command_kind::run) {
    add("series", po::value<std::string>()->value_name("FILE"),
        "a single run: also write the queue-length samples as CSV");
    add("trace", po::value<std::string>()->value_name("FILE"),
        "write every state change as JSON Lines (a single run)");
    add("trace-from", po::value<std::string>()->value_name("S"), "trace from S seconds");
    add("trace-to", po::value<std::string>()->value_name("S"), "trace up to S seconds");
    add("trace-users", po::value<std::string>()->value_name("N,N"), "trace these user serials");
  }
  if (kind == command_kind::compare)
    add("variant", po::value<strings>()->composing()->value_name("NAME:/P=V[,/P=V]"),
        "a variant of SCENARIO (repeatable); assignments separated by \",/\"");
  if (kind == command_kind::check)
    add("junit", po::value<std::string>()->value_name("FILE"), "also write JUnit XML for CI");
  if (kind == command_kind::merge)
    add("junit", po::value<std::string>()->value_name("FILE"),
        "merged check shards: also write JUnit XML for CI");
  if (kind == command_kind::sweep || kind == command_kind::plan || kind == command_kind::merge)
    add("csv", po::value<std::string>()->value_name("FILE"),
        "also write the grid as CSV (point, class, metric, estimate, interval)");
  if (kind == command_kind::sweep || kind == command_kind::plan || kind == command_kind::run ||
      kind == command_kind::check)
    add("quiet", po::bool_switch(),
        "no progress line (otherwise shown on a terminal once the work takes a second)");
  if (kind == command_kind::sweep) {
    add("vary", po::value<strings>()->composing()->value_name("/P=START:STOP[:STEP]"),
        "an axis of the grid (repeatable); STEP defaults to (STOP - START) / 20");
    add("shard", po::value<std::string>()->value_name("K/N"),
        "run only shard K of N and write a shard file for `waitroom merge`");
  }
  if (kind == command_kind::plan) {
    add("knob", po::value<strings>()->composing()->value_name("/P"),
        "a knob to search (one or two, each with a --range)");
    add("range", po::value<strings>()->composing()->value_name("LO:HI[:STEP]"),
        "the knob's values; STEP defaults to (HI - LO) / 20");
    add("tie", po::value<strings>()->composing()->value_name("/P=EXPR"),
        "set another pointer from the first knob x: x, c-x, c+x, x+c, x-c, c*x");
    add("search", po::bool_switch(),
        "one knob: bisect from the closed form's first guess instead of trying every value");
  }
  // Listed for --help only: redis_commands takes them out of the line before parsing.
  if (kind == command_kind::run || kind == command_kind::compare || kind == command_kind::check) {
    add("redis", po::value<std::string>()->value_name("URL"),
        kind == command_kind::run ? "mirror the run on a real Redis (docs/redis.md)"
                                  : "also mirror replication 0 of each scenario on a real Redis");
    add("redis-keep", po::bool_switch(), "with --redis: leave the run's keys in Redis");
  }
  add("help", po::bool_switch(), "this text");
  po::options_description hidden;
  hidden.add_options()("scenario", po::value<strings>());
  po::options_description all;
  all.add(opts).add(hidden);
  po::positional_options_description pos;
  pos.add("scenario", kind == command_kind::check || kind == command_kind::merge ? -1 : 1);
  po::variables_map vm;
  po::parsed_options parsed(&all);
  try {
    parsed = po::command_line_parser(args).options(all).positional(pos).run();
    po::store(parsed, vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw sim::input_error("waitroom " + command, "valid arguments (see waitroom --help)",
                           e.what());
  }
  if (vm.count("help") && vm["help"].as<bool>()) {
    std::ostringstream text;
    text << "usage: " << synopsis(kind) << "\n\n" << opts;
    throw help_requested(text.str());
  }
  common_args a;
  if (vm.count("scenario")) {
    a.scenario_paths = vm["scenario"].as<std::vector<std::string>>();
    a.scenario_path = a.scenario_paths.front();
  }
  if (vm.count("replications")) {
    // Read as text: a number type would read -1 as 4294967295.
    a.replications = static_cast<std::uint32_t>(
        whole_number(vm["replications"].as<std::string>(), "--replications", 1, 100000));
    a.replications_given = true;
  }
  if (vm.count("threads"))
    a.threads = static_cast<unsigned>(
        whole_number(vm["threads"].as<std::string>(), "--threads", 1, max_threads));
  if (vm.count("max-events"))
    a.max_events = static_cast<double>(
        whole_number_or_exp(vm["max-events"].as<std::string>(), "--max-events"));
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
  if (vm.count("trace-from"))
    a.trace_from = seconds(vm["trace-from"].as<std::string>(), "--trace-from");
  if (vm.count("trace-to")) a.trace_to = seconds(vm["trace-to"].as<std::string>(), "--trace-to");
  if (vm.count("trace-users")) a.trace_users = vm["trace-users"].as<std::string>();
  if (a.trace_from && a.trace_to && *a.trace_to < *a.trace_from)
    throw sim::input_error("--trace-to",
                           fmt::format("a time >= --trace-from ({} s)", *a.trace_from),
                           fmt::format("{} s", *a.trace_to));
  if (!a.trace && (a.trace_from || a.trace_to || a.trace_users))
    throw sim::input_error(a.trace_from ? "--trace-from"
                           : a.trace_to ? "--trace-to"
                                        : "--trace-users",
                           "--trace FILE (it limits what the trace holds)", "no --trace");
  if (a.trace && a.replications > 1)
    throw sim::input_error("--trace", "a single run (a trace follows one run's users)",
                           fmt::format("--replications {}", a.replications));
  // --set and --unset in the order given (an --unset then a --set of a key below it works).
  for (const auto& o : parsed.options) {
    if (o.string_key != "set" && o.string_key != "unset") continue;
    for (const auto& v : o.value) {
      if (o.string_key == "unset") {
        a.sets.push_back(std::string(unset_prefix) + v);
      } else {
        if (v.empty() || v[0] != '/')
          throw sim::input_error("--set " + v, "/json/pointer=value", "'" + v + "'");
        a.sets.push_back(v);
      }
    }
  }
  // With --redis, redis_commands takes both flags out before parsing: here it came alone.
  if (vm.count("redis-keep") && vm["redis-keep"].as<bool>())
    throw sim::input_error("--redis-keep", "--redis URL (it keeps that Redis's keys after the run)",
                           "no --redis");
  if (vm.count("seed"))
    a.seed = whole_number(vm["seed"].as<std::string>(), "--seed", 0, models::max_seed);
  if (vm.count("out")) a.out = vm["out"].as<std::string>();
  if (vm.count("html")) a.html = vm["html"].as<std::string>();
  if (vm.count("series")) a.series = vm["series"].as<std::string>();
  if (vm.count("format")) {
    a.format = vm["format"].as<std::string>();
    // CSV where a result has a table's shape: run's classes, compare's metrics, check's targets.
    const bool csv_ok = kind == command_kind::run || kind == command_kind::compare ||
                        kind == command_kind::check || kind == command_kind::merge;
    if (*a.format != "table" && *a.format != "json" && (!csv_ok || *a.format != "csv"))
      throw sim::input_error("--format", csv_ok ? "table, json or csv" : "table or json",
                             "'" + *a.format + "'");
  }
  // Before any work: an output onto an input, or two outputs onto one file, would lose one.
  std::vector<named_path> inputs;
  for (const auto& p : a.scenario_paths)
    inputs.push_back({kind == command_kind::merge ? "the shard file" : "the scenario file", p});
  refuse_same_file(outputs_of(a), inputs);
  return a;
}

std::vector<named_path> outputs_of(const common_args& a) {
  std::vector<named_path> outputs;
  auto add = [&](const char* flag, const std::optional<std::string>& p) {
    if (p) outputs.push_back({flag, *p});
  };
  add("--out", a.out);
  add("--html", a.html);
  add("--series", a.series);
  add("--trace", a.trace);
  add("--junit", a.junit);
  add("--csv", a.csv);
  return outputs;
}

const scenario_source& source_of(const std::string& path) {
  static std::mutex mutex;
  static std::map<std::string, scenario_source> cache;
  std::lock_guard lock(mutex);
  if (auto it = cache.find(path); it != cache.end()) return it->second;
  scenario_source src{models::read_json_file(path), {}};
  std::error_code ec;
  auto dir = std::filesystem::absolute(std::filesystem::path(path), ec).parent_path();
  src.dir = ec ? std::filesystem::path(path).parent_path().string() : dir.string();
  if (src.dir.empty()) src.dir.push_back('.');  // (not = ".": a GCC 12 -Wrestrict false alarm)
  return cache.emplace(path, std::move(src)).first->second;
}

namespace {
// Each warning once per process: a plan or sweep loads the scenario once per grid point.
void say_warnings(const models::scenario& s) {
  static std::mutex mutex;
  static std::set<std::string> said;
  std::lock_guard lock(mutex);
  for (const auto& w : s.warnings)
    if (said.insert(w).second) fmt::print(stderr, "waitroom: warning: {}\n", w);
}
}  // namespace

models::scenario load(const common_args& a, std::optional<std::string> path) {
  nlohmann::json j;
  std::string name, base_dir = ".";
  if (path) {
    name = *path;
    const auto it = a.embedded.find(name);
    const scenario_source& src = it != a.embedded.end() ? it->second : source_of(name);
    j = src.json;
    base_dir = src.dir;
  } else {
    name = std::string(default_scenario_name);
    j = models::parse_json_text(std::string(default_scenario_text), name);
  }
  for (const auto& s : a.sets) {
    if (s.starts_with(unset_prefix))
      models::apply_unset(j, s.substr(unset_prefix.size()));
    else
      models::apply_override(j, s);
  }
  models::scenario s = models::parse_scenario(j, name, base_dir);
  if (s.arrivals.kind == models::arrival_kind::trace) {
    std::filesystem::path trace(s.arrivals.trace_file);
    if (trace.is_relative()) trace = std::filesystem::path(base_dir) / trace;
    refuse_same_file(outputs_of(a), {{name + ": the arrivals' trace_file", trace.string()}});
  }
  check_run_memory(s, name);  // an unstable queue: refused with the estimate, not bad_alloc
  check_run_work(s, name, a.max_events);  // hours of ticks: refused before they start
  say_warnings(s);
  return s;
}

unsigned threads_or_cores(unsigned t) {
  return t ? t : std::max(1u, std::thread::hardware_concurrency());
}

progress::progress(std::size_t total, bool quiet, std::string label)
    : total_(total),
      on_(!quiet && total > 0),
      terminal_(::isatty(2) == 1),
      label_(std::move(label)),
      start_(std::chrono::steady_clock::now()) {}

std::chrono::duration<double> progress::heartbeat_every() {
  // WAITROOM_PROGRESS_S: seconds between log lines (the tests shorten it).
  static const double every = [] {
    const char* env = std::getenv("WAITROOM_PROGRESS_S");
    char* end = nullptr;
    const double v = env ? std::strtod(env, &end) : 0.0;
    return env && end != env && *end == '\0' && v > 0 && v < 1e6 ? v : 10.0;
  }();
  return std::chrono::duration<double>(every);
}

bool progress::heartbeat_due(std::chrono::steady_clock::time_point now) {
  if (now - start_ < heartbeat_every()) return false;
  if (shown_ && now - last_ < heartbeat_every()) return false;
  shown_ = true;
  last_ = now;
  return true;
}

progress::~progress() {
  // A line left unfinished (an error cut the work short) still ends before other output.
  if (terminal_ && shown_ && done_ < total_) fmt::print(stderr, "\n");
}

void progress::advance() {
  std::lock_guard lock(mutex_);
  ++done_;
  if (!on_) return;
  if (!terminal_) {  // a log: a whole line every few seconds, so CI sees the work go on
    const auto now = std::chrono::steady_clock::now();
    if (done_ == total_ || !heartbeat_due(now)) return;
    const double el = std::chrono::duration<double>(now - start_).count();
    fmt::print(stderr, "waitroom: {}[{}/{}] {:.0f}% after {:.0f}s, ETA {:.0f}s\n", label_, done_,
               total_, 100.0 * static_cast<double>(done_) / static_cast<double>(total_), el,
               el / static_cast<double>(done_) * static_cast<double>(total_ - done_));
    return;
  }
  const double el =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (!shown_ && el < 1.0) return;
  shown_ = true;
  const double eta = el / static_cast<double>(done_) * static_cast<double>(total_ - done_);
  fmt::print(stderr, "\r{}[{}/{}] {:.0f}% ETA {:.0f}s   ", label_, done_, total_,
             100.0 * static_cast<double>(done_) / static_cast<double>(total_), eta);
  if (done_ == total_) fmt::print(stderr, "\n");
}

void progress::status(const std::string& text) {
  std::lock_guard lock(mutex_);
  if (!on_) return;
  const auto now = std::chrono::steady_clock::now();
  if (!terminal_) {
    if (heartbeat_due(now))
      fmt::print(stderr, "waitroom: {}{} after {:.0f}s\n", label_, text,
                 std::chrono::duration<double>(now - start_).count());
    return;
  }
  if (now - start_ < std::chrono::seconds(2)) return;
  if (shown_ && now - last_ < std::chrono::milliseconds(250)) return;
  shown_ = true;
  last_ = now;
  fmt::print(stderr, "\r{}{}   ", label_, text);
}

void progress::step(std::size_t done) {
  {
    std::lock_guard lock(mutex_);
    if (done <= done_) return;
    done_ = done - 1;
  }
  advance();
}

int write_or_print(const common_args& a, const std::string& text) {
  if (!a.out) {
    fmt::print("{}", text);
    return exit_ok;
  }
  if (!write_atomically(*a.out, text)) {
    fmt::print(stderr, "waitroom: {}: could not write the result file ({})\n", *a.out,
               last_write_error());
    return exit_output;
  }
  return exit_ok;
}

}  // namespace waitroom::cli
