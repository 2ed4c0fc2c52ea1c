#include "options.hpp"

#include <cmath>
#include <sstream>
#include <thread>

#include <fmt/format.h>
#include <boost/program_options.hpp>

#include "models/scenario/scenario.hpp"
#include "output_writer.hpp"
#include "sim/input_error.hpp"
#include "sim/text_file.hpp"
#include "sim/time.hpp"

namespace po = boost::program_options;

namespace waitroom::cli {

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

// Each group below adds the options of its kind that `kind` accepts, in --help's order.
using strings = std::vector<std::string>;

class option_list {
 public:
  explicit option_list(po::options_description& opts) : opts_(opts) {}
  void add(const char* name, const po::value_semantic* v, const char* what) {
    opts_.add_options()(name, v, what);
  }

 private:
  po::options_description& opts_;
};

// The formats each command writes, in the order --help lists them; merge's are those of the
// shards' command (the writer refuses the others).
std::vector<output_format> formats_of(command_kind kind) {
  switch (kind) {
    case command_kind::run:
    case command_kind::check:
    case command_kind::compare:
    case command_kind::merge:
      return {output_format::table, output_format::json, output_format::csv,
              output_format::markdown};
    case command_kind::sweep:
    case command_kind::plan:
    case command_kind::estimate:
      return {output_format::table, output_format::json};
    case command_kind::validate:
      return {};
  }
  return {};
}

// --format's value name, "table|json|csv" (the bash completion offers them from the help).
std::string format_names_of(command_kind kind) {
  std::string names;
  for (const auto f : formats_of(kind))
    names += (names.empty() ? "" : "|") + std::string(to_string(f));
  return names;
}

// --format's help: the default, named from the one rule.
std::string format_help(command_kind kind) {
  std::string text = fmt::format("the result's format (default: {} with --out, else {})",
                                 to_string(default_format(true)), to_string(default_format(false)));
  if (kind == command_kind::plan)
    text += "; json lists every point with each SLA target's interval";
  if (kind == command_kind::merge) text += "; the sharded command's (csv: run and check)";
  return text;
}

// The scenario and the work: --set, --unset, --seed, --threads, --replications, --max-events.
void add_scenario_options(option_list& o, command_kind kind) {
  // merge rebuilds the sweep from the arguments its shards recorded: it takes none of these.
  if (kind != command_kind::merge) {
    o.add("set", po::value<strings>()->composing()->value_name("/P=V"),
          "set the value at JSON pointer P before validation (repeatable); V is JSON, or a plain "
          "string: --set /release/batch=500 --set /queue/policy=fifo");
    o.add("unset", po::value<strings>()->composing()->value_name("/P"),
          "remove the key (or array element) at JSON pointer P (repeatable, in order with --set)");
    o.add("scale-arrivals", po::value<strings>()->composing()->value_name("F|CLASS=F"),
          "every arrival rate (and the backlog) times F, or one class's (its share follows)");
  }
  if (kind != command_kind::validate && kind != command_kind::merge) {
    o.add("seed", po::value<std::string>()->value_name("N"),
          "random seed (overrides the scenario's \"seed\")");
    o.add("threads", po::value<std::string>()->value_name("T"),
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
    o.add("replications", po::value<std::string>()->value_name("R"), reps_text);
  if (kind != command_kind::validate && kind != command_kind::merge)
    o.add("max-events", po::value<std::string>()->value_name("N"),
          "run even when a run is estimated at more than N events (default 1e10; a run's "
          "estimate is refused above it before it starts)");
}

// The result: --out, --format, --shard (run, check, plan) and --html.
void add_result_options(option_list& o, command_kind kind) {
  if (kind == command_kind::run || kind == command_kind::compare || kind == command_kind::sweep ||
      kind == command_kind::plan || kind == command_kind::merge || kind == command_kind::estimate)
    o.add("out", po::value<std::string>()->value_name("FILE"),
          kind == command_kind::run || kind == command_kind::sweep || kind == command_kind::plan
              ? "write the result to FILE (JSON unless --format says otherwise); it appears only "
                "when the command succeeded; with --shard, the shard file for `waitroom merge`"
              : "write the result to FILE (JSON unless --format says otherwise); it appears only "
                "when the command succeeded");
  if (kind == command_kind::check)
    o.add("out", po::value<std::string>()->value_name("FILE"),
          "write the verdicts to FILE (JSON unless --format says otherwise); with --shard, the "
          "shard file for `waitroom merge`");
  if (kind != command_kind::validate)
    o.add("format", po::value<std::string>()->value_name(format_names_of(kind)),
          format_help(kind).c_str());
  if (kind == command_kind::run || kind == command_kind::check || kind == command_kind::plan)
    o.add("shard", po::value<std::string>()->value_name("K/N"),
          kind == command_kind::run
              ? "run only shard K of N of the replications and write a shard file (--out) for "
                "`waitroom merge`"
          : kind == command_kind::check
              ? "run only shard K of N of the (scenario, replication) units and write a shard "
                "file (--out) for `waitroom merge`"
              : "evaluate only shard K of N of a grid plan's points and write a shard file for "
                "`waitroom merge`");
  if (kind != command_kind::validate && kind != command_kind::estimate)
    o.add("html", po::value<std::string>()->value_name("FILE"),
          "also write a self-contained HTML report with charts (docs/reports.md)");
}

// A single run's own files: --series and the trace.
void add_run_options(option_list& o, command_kind kind) {
  if (kind != command_kind::run) return;
  o.add("series", po::value<std::string>()->value_name("FILE"),
        "a single run: also write the queue-length samples as CSV");
  o.add("trace", po::value<std::string>()->value_name("FILE"),
        "write every state change as JSON Lines (a single run)");
  o.add("trace-from", po::value<std::string>()->value_name("S"), "trace from S seconds");
  o.add("trace-to", po::value<std::string>()->value_name("S"), "trace up to S seconds");
  o.add("trace-users", po::value<std::string>()->value_name("N,N"), "trace these user serials");
}

// What goes beside the result: compare's variants, --junit, --csv and --quiet.
void add_companion_options(option_list& o, command_kind kind) {
  if (kind == command_kind::compare)
    o.add("variant", po::value<strings>()->composing()->value_name("NAME:/P=V[,/P=V]"),
          "a variant of SCENARIO (repeatable); assignments separated by \",/\"");
  if (kind == command_kind::check)
    o.add("junit", po::value<std::string>()->value_name("FILE"), "also write JUnit XML for CI");
  if (kind == command_kind::merge)
    o.add("junit", po::value<std::string>()->value_name("FILE"),
          "merged check shards: also write JUnit XML for CI");
  if (kind == command_kind::sweep || kind == command_kind::plan || kind == command_kind::merge)
    o.add("csv", po::value<std::string>()->value_name("FILE"),
          "also write the grid as CSV (point, class, metric, estimate, interval)");
  if (kind == command_kind::sweep || kind == command_kind::plan || kind == command_kind::run ||
      kind == command_kind::check)
    o.add("quiet", po::bool_switch(),
          "no progress line (otherwise shown on a terminal once the work takes a second)");
}

// The grid of sweep and plan: --vary, --knob, --range, --tie, --search (and sweep's --shard).
void add_grid_options(option_list& o, command_kind kind) {
  if (kind == command_kind::sweep) {
    o.add("vary", po::value<strings>()->composing()->value_name("/P=START:STOP[:STEP]"),
          "an axis of the grid (repeatable); STEP defaults to (STOP - START) / 20");
    o.add("shard", po::value<std::string>()->value_name("K/N"),
          "run only shard K of N and write a shard file for `waitroom merge`");
  }
  if (kind == command_kind::plan) {
    o.add("knob", po::value<strings>()->composing()->value_name("/P"),
          "a knob to search (one or two, each with a --range)");
    o.add("range", po::value<strings>()->composing()->value_name("LO:HI[:STEP]"),
          "the knob's values; STEP defaults to (HI - LO) / 20");
    o.add("tie", po::value<strings>()->composing()->value_name("/P=EXPR"),
          "set another pointer from the first knob x: x, c-x, c+x, x+c, x-c, c*x");
    o.add("search", po::bool_switch(),
          "one knob: bisect from the closed form's first guess instead of trying every value");
  }
}

// Listed for --help only: redis_commands takes them out of the line before parsing.
void add_redis_options(option_list& o, command_kind kind) {
  if (kind != command_kind::run && kind != command_kind::compare && kind != command_kind::check)
    return;
  o.add("redis", po::value<std::string>()->value_name("URL"),
        kind == command_kind::run ? "mirror the run on a real Redis (docs/redis.md)"
                                  : "also mirror replication 0 of each scenario on a real Redis");
  o.add("redis-keep", po::bool_switch(), "with --redis: leave the run's keys in Redis");
}

// Every option a command accepts, with the text its --help shows: one list for both.
po::options_description options_of(command_kind kind) {
  po::options_description opts("options", 100, 50);
  option_list o(opts);
  add_scenario_options(o, kind);
  add_result_options(o, kind);
  add_run_options(o, kind);
  add_companion_options(o, kind);
  add_grid_options(o, kind);
  add_redis_options(o, kind);
  o.add("help", po::bool_switch(), "this text");
  return opts;
}

// The positional SCENARIO (or SHARD_FILE) arguments and the counts.
void read_counts(const po::variables_map& vm, common_args& a) {
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
}

// The options taken as given: files, lists and switches.
void read_plain(const po::variables_map& vm, common_args& a) {
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
}

// --trace and what limits it, which need it and a single run.
void read_trace(const po::variables_map& vm, common_args& a) {
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
}

// --set, --unset and --scale-arrivals in the order given.
void read_sets(const po::parsed_options& parsed, common_args& a) {
  for (const auto& o : parsed.options) {
    const std::string& k = o.string_key;
    if (k != "set" && k != "unset" && k != "scale-arrivals") continue;
    for (const auto& v : o.value) {
      if (k != "set") {
        a.sets.push_back(std::string(k == "unset" ? unset_prefix : scale_prefix) + v);
      } else {
        if (v.empty() || v[0] != '/')
          throw sim::input_error("--set " + v, "/json/pointer=value", "'" + v + "'");
        a.sets.push_back(v);
      }
    }
  }
}

// --seed, the output files and --format.
void read_outputs(const po::variables_map& vm, command_kind kind, common_args& a) {
  if (vm.count("seed"))
    a.seed = whole_number(vm["seed"].as<std::string>(), "--seed", 0, models::max_seed);
  if (vm.count("out")) a.out = vm["out"].as<std::string>();
  if (vm.count("html")) a.html = vm["html"].as<std::string>();
  if (vm.count("series")) a.series = vm["series"].as<std::string>();
  if (vm.count("format")) a.format = parse_format(vm["format"].as<std::string>(), formats_of(kind));
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
  const po::options_description opts = options_of(kind);
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
  read_counts(vm, a);
  read_plain(vm, a);
  read_trace(vm, a);
  read_sets(parsed, a);
  // With --redis, redis_commands takes both flags out before parsing: here it came alone.
  if (vm.count("redis-keep") && vm["redis-keep"].as<bool>())
    throw sim::input_error("--redis-keep", "--redis URL (it keeps that Redis's keys after the run)",
                           "no --redis");
  read_outputs(vm, kind, a);
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

unsigned threads_or_cores(unsigned t) {
  return t ? t : std::max(1u, std::thread::hardware_concurrency());
}

}  // namespace waitroom::cli
