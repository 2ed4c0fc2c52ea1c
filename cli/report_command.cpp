#include "report_command.hpp"

#include <algorithm>
#include <initializer_list>
#include <optional>
#include <string_view>

#include <fmt/format.h>
#include <boost/program_options.hpp>

#include "command_line.hpp"
#include "commands.hpp"
#include "models/json/json_reader.hpp"
#include "models/json/json_text.hpp"
#include "models/scenario/scenario.hpp"
#include "output_file.hpp"
#include "reports/html_report.hpp"
#include "reports/report.hpp"
#include "sim/input_error.hpp"
#include "sim/text_file.hpp"
#include "version.hpp"

namespace po = boost::program_options;

namespace waitroom::cli {

namespace {

using nlohmann::json;

constexpr const char* a_result_file =
    "the JSON result of waitroom run, run --replications, compare, sweep, plan, check, merge "
    "or fit (a result file)";

// The result's members that hold a number (null where there is none to give), an array of
// numbers (one per sample time or bucket, null for a gap), or either, by name: every result
// kind writes them so wherever they are. A string or an object there is not what waitroom
// wrote, and the report would draw it as nothing, or as a wrong figure.
bool one_of(std::string_view key, std::initializer_list<std::string_view> keys) {
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}
bool numeric_key(std::string_view k) {
  return one_of(k, {"abandoned",
                    "aged_in",
                    "arrival_rate_per_s",
                    "arrived",
                    "available_at_end",
                    "bias_s",
                    "cache_reduction",
                    "cancellations",
                    "censored_users",
                    "censored_wait_s",
                    "confidence",
                    "count",
                    "end_time_s",
                    "error_rate",
                    "estimate",
                    "events",
                    "expired",
                    "from_cache_after_release",
                    "from_cache_while_waiting",
                    "from_s",
                    "granted",
                    "interval_s",
                    "late",
                    "lookups_while_waiting",
                    "lost_release_units",
                    "mae_s",
                    "max",
                    "max_outstanding_orders",
                    "max_relative_bucket_width",
                    "mean_queue_length",
                    "min",
                    "n",
                    "no_shows",
                    "order_failures",
                    "p50",
                    "p90",
                    "p90_abs_error_s",
                    "p95",
                    "p99",
                    "p999",
                    "paid_later",
                    "peak_length",
                    "peak_memory_bytes",
                    "peak_queue",
                    "peak_queue_length",
                    "predictions",
                    "reclaimed",
                    "relative_gap",
                    "release_lookups",
                    "released",
                    "released_users",
                    "reopenings",
                    "replication",
                    "replications",
                    "returning_visits",
                    "schema_version",
                    "seed",
                    "share",
                    "share_of_users",
                    "sold_out_at_s",
                    "stddev",
                    "stock",
                    "throughput_per_s",
                    "unavailable",
                    "unused",
                    "used",
                    "used_in_place",
                    "user",
                    "users",
                    "waiting_at_end",
                    "while_waiting",
                    "window_s"});
}
bool numeric_array_key(std::string_view k) {
  return one_of(k, {"available", "censored_ci", "ci", "ci95", "ci_high", "ci_low", "length",
                    "p50_ms", "p95_ms", "q", "rate_per_tick", "rt_ms", "value"});
}
bool numeric_or_array_key(std::string_view k) {
  return one_of(k, {"completed", "mean", "orders", "refused", "t_s", "timeouts", "total",
                    "total_without_cache", "utilisation"});
}
// An interval: [low, high].
bool interval_key(std::string_view k) {
  return one_of(k, {"ci", "ci95", "censored_ci"});
}

bool number_or_null(const json& j) {
  return j.is_number() || j.is_null();
}

// Checks what the report reads from a saved result: the numbers are numbers and every series
// has one value per sample time. Throws input_error naming the file and the JSON pointer.
class result_check {
 public:
  explicit result_check(std::string source) : source_(std::move(source)) {}

  void walk(const json& j, const std::string& at) const {
    if (j.is_array()) {
      for (std::size_t i = 0; i < j.size(); ++i) walk(j[i], at + "/" + std::to_string(i));
      return;
    }
    if (!j.is_object()) return;
    if (const auto t = j.find("t_s"); t != j.end() && t->is_array())
      same_length(j, t->size(), at, at);
    for (const auto& [key, value] : j.items()) {
      const std::string here = at + "/" + models::json_pointer_escape(key);
      // The effective scenario was checked when it ran (and is shown as it is); a Redis
      // block is a mirror's or load test's own figures.
      if ((key == "scenario" || key == "redis") && value.is_object()) continue;
      if (numeric_key(key) && !number_or_null(value)) fail(here, "a number (or null)", value);
      if (numeric_array_key(key)) numbers(value, here, interval_key(key));
      if (numeric_or_array_key(key) && !number_or_null(value) && !value.is_array())
        fail(here, "a number (or null) or an array of numbers", value);
      if (numeric_or_array_key(key) && value.is_array()) numbers(value, here, false);
      walk(value, here);
    }
  }

 private:
  [[noreturn]] void fail(const std::string& at, const std::string& expected,
                         const json& found) const {
    throw sim::input_error(source_ + ": " + at, expected, models::describe(found));
  }
  void numbers(const json& j, const std::string& at, bool interval) const {
    if (j.is_null()) return;
    if (!j.is_array()) fail(at, interval ? "an interval [low, high]" : "an array of numbers", j);
    if (interval && j.size() != 2)
      throw sim::input_error(source_ + ": " + at, "an interval [low, high]",
                             fmt::format("{} value{}", j.size(), j.size() == 1 ? "" : "s"));
    for (std::size_t i = 0; i < j.size(); ++i)
      if (!number_or_null(j[i])) fail(fmt::format("{}/{}", at, i), "a number (or null)", j[i]);
  }
  // Every array of values in a series object (and in its objects: by class, by command) has
  // one value per sample time in its t_s.
  void same_length(const json& j, std::size_t n, const std::string& at,
                   const std::string& series) const {
    for (const auto& [key, value] : j.items()) {
      const std::string here = at + "/" + models::json_pointer_escape(key);
      if (value.is_object()) {
        same_length(value, n, here, series);
      } else if (value.is_array() && here != series + "/t_s" &&
                 std::none_of(value.begin(), value.end(),
                              [](const json& x) { return x.is_structured(); })) {
        if (value.size() != n)
          throw sim::input_error(source_ + ": " + here,
                                 fmt::format("{} values, one per sample time in {}/t_s", n, series),
                                 fmt::format("{} values", value.size()));
      }
    }
  }
  std::string source_;
};

// What a file is when it is not a result, so the message says what to do with it.
std::string shard_description(const json& j) {
  const json* c = j.contains("command") ? &j.at("command") : nullptr;
  const std::string command = c && c->is_string() ? c->get<std::string>() : std::string();
  std::string what = command == "run"
                         ? "a shard file of `waitroom run --replications R --shard K/N`"
                     : command == "check" ? "a shard file of `waitroom check --shard K/N`"
                     : command == "sweep" ? "a shard file of `waitroom sweep --shard K/N`"
                     : command == "plan"  ? "a shard file of `waitroom plan --shard K/N`"
                                          : "a shard file";
  if (j.contains("shard") && j.contains("of") && j.at("shard").is_number_unsigned() &&
      j.at("of").is_number_unsigned())
    what += fmt::format(" (shard {} of {})", j.at("shard").get<std::uint64_t>(),
                        j.at("of").get<std::uint64_t>());
  return what;
}

// A fit's figures the report draws: numbers where it reads numbers, the Kaplan-Meier series of
// equal lengths. Anything else is refused naming its JSON pointer.
void check_fit_result(const std::string& source, const json& r) {
  const auto fail = [&](const std::string& at, const std::string& expected, const json& found) {
    throw sim::input_error(source + ": " + at, expected, models::describe(found));
  };
  const auto numbers = [&](const json& j, const std::string& at) {
    if (!j.is_array()) fail(at, "an array of numbers", j);
    for (std::size_t i = 0; i < j.size(); ++i)
      if (!j[i].is_number()) fail(fmt::format("{}/{}", at, i), "a number", j[i]);
    return j.size();
  };
  const auto number = [&](const json& o, const char* key, const std::string& at) {
    if (!o.is_object() || !o.contains(key) || !o.at(key).is_number())
      fail(at + "/" + key, "a number", o.is_object() && o.contains(key) ? o.at(key) : json());
  };
  numbers(r.value("arrivals_per_minute", json()), "/arrivals_per_minute");
  const json& segs = r.contains("arrivals") ? r.at("arrivals") : json();
  if (!segs.is_array()) fail("/arrivals", "an array of segments", segs);
  for (std::size_t i = 0; i < segs.size(); ++i) {
    const std::string at = fmt::format("/arrivals/{}", i);
    for (const char* k : {"start_s", "duration_s", "arrivals"}) number(segs[i], k, at);
    for (const char* k : {"value", "lo", "hi"})
      number(segs[i].value("rate_per_s", json()), k, at + "/rate_per_s");
  }
  const json& classes = r.contains("classes") ? r.at("classes") : json();
  if (!classes.is_array()) fail("/classes", "an array of classes", classes);
  for (std::size_t i = 0; i < classes.size(); ++i) {
    const std::string at = fmt::format("/classes/{}", i);
    const json km = classes[i].value("kaplan_meier", json());
    const std::size_t n = numbers(km.value("t_s", json()), at + "/kaplan_meier/t_s");
    for (const char* k : {"survival", "lo", "hi", "fitted"}) {
      const std::size_t m = numbers(km.value(k, json()), at + "/kaplan_meier/" + k);
      if (m != n && !(m == 0 && std::string(k) == "fitted"))
        fail(at + "/kaplan_meier/" + k, fmt::format("{} values, one per time in t_s", n), km.at(k));
    }
    numbers(classes[i].value("released_wait_percentiles_s", json()),
            at + "/released_wait_percentiles_s");
  }
  if (!r.contains("check")) return;
  const json& rows = r.at("check").value("rows", json());
  if (!rows.is_array()) fail("/check/rows", "an array of rows", rows);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::string at = fmt::format("/check/rows/{}", i);
    for (const char* k : {"realised", "model"}) number(rows[i], k, at);
    if (numbers(rows[i].value("interval", json()), at + "/interval") != 2)
      fail(at + "/interval", "an interval [low, high]", rows[i].at("interval"));
  }
}

// Refuses what the report cannot draw faithfully: another kind of file, another format
// version, a kind it does not know, a figure that is not a number, series of unequal lengths.
void check_result(const std::string& source, const json& r) {
  if (!r.is_object()) throw sim::input_error(source, a_result_file, models::describe(r));
  if (r.contains("waitroom_shard"))
    throw sim::input_error(source, a_result_file, shard_description(r),
                           "merge all the shards first: waitroom merge SHARD... --format json "
                           "--out RESULT.json, then waitroom report RESULT.json");
  if (!r.contains("schema_version")) {
    if (r.contains("arrivals") || r.contains("release") || r.contains("queue"))
      throw sim::input_error(source, a_result_file, "a scenario file",
                             "run it first: waitroom run SCENARIO --html REPORT.html");
    throw sim::input_error(
        source + ": /schema_version",
        fmt::format("{} (the result format of this waitroom)", reports::result_schema_version),
        "none: JSON that waitroom did not write");
  }
  const json& v = r.at("schema_version");
  if (!v.is_number_integer() || v.get<std::int64_t>() != reports::result_schema_version)
    throw sim::input_error(source + ": /schema_version",
                           fmt::format("{} (the result format this waitroom {} reads)",
                                       reports::result_schema_version, version),
                           models::describe(v));
  if (const auto k = r.find("kind"); k != r.end())
    if (!k->is_string() ||
        !one_of(k->get_ref<const std::string&>(), {"sweep", "plan", "check", "fit"}))
      throw sim::input_error(source + ": /kind",
                             "sweep, plan, check or fit (a run, replications or compare result "
                             "has no kind)",
                             models::describe(*k));
  if (reports::result_kind(r, source) == "fit")  // a shape it draws
    check_fit_result(source, r);
  else
    result_check(source).walk(r, "");
}

}  // namespace

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
  const po::variables_map vm = parse_command_line(args, opts, "result", "waitroom report");
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
  refuse_same_file({{"--out", out}}, {{"the result file", source}});
  const json result =
      models::parse_json_strict(sim::read_text_file(source, "a result file"), source);
  check_result(source, result);
  return write_html(out, result, source);
}

}  // namespace waitroom::cli
