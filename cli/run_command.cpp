// `waitroom run`: one replication (with its trace and queue series when asked) or several,
// reduced as they finish.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include <fmt/format.h>

#include "commands.hpp"
#include "memory_check.hpp"
#include "models/room/room.hpp"
#include "models/run/replicate.hpp"
#include "models/run/replication_digest.hpp"
#include "models/run/series_bands.hpp"
#include "options.hpp"
#include "output_file.hpp"
#include "output_writer.hpp"
#include "progress.hpp"
#include "report_command.hpp"
#include "reports/csv_report.hpp"
#include "reports/markdown_report.hpp"
#include "reports/report.hpp"
#include "scenario_loading.hpp"
#include "shard.hpp"
#include "sim/input_error.hpp"
#include "version.hpp"

namespace waitroom::cli {

namespace {

// Writes trace events as JSON Lines to a temporary file, renamed into place on success (and
// removed on failure or on SIGINT: see output_file).
class jsonl_sink : public models::trace_sink {
 public:
  explicit jsonl_sink(const std::string& path) : out_(path) {}
  const std::string& error() const { return out_.error(); }
  void write(const models::trace_event& e) override {
    // A visit that never queued has no serial and no token: both null.
    const bool queued = e.user != models::trace_event::unqueued;
    out_.stream()
        << fmt::format(
               R"({{"t_s":{},"user":{},"token":{},"class":{},"action":"{}","list":{},"queue_length":{}}})",
               static_cast<double>(e.time_ns) / 1e9, queued ? std::to_string(e.user) : "null",
               queued ? fmt::format("\"{:016x}\"", e.token) : "null", (*class_names)[e.user_class],
               e.action, e.list, e.queue_length)
        << '\n';
  }
  std::string commit() { return out_.commit(); }
  const std::vector<std::string>* class_names = nullptr;  // as JSON strings, quoted

 private:
  output_file out_;
};

models::room_result traced_run(const common_args& a, const models::scenario& s,
                               std::uint64_t seed) {
  if (s.run.warmup == models::warmup_kind::mser5)
    throw sim::input_error("--trace", "a run without automatic (mser5) warm-up, which runs twice",
                           "warmup mser5");
  models::trace_filter filter;
  if (a.trace_from) filter.from_ns = sim::sim_time::from_seconds(*a.trace_from).ns();
  if (a.trace_to) filter.to_ns = sim::sim_time::from_seconds(*a.trace_to).ns();
  if (a.trace_users) {
    std::string list = *a.trace_users;
    for (std::size_t start = 0; start < list.size();) {
      std::size_t comma = list.find(',', start);
      std::string item = list.substr(start, comma == std::string::npos ? comma : comma - start);
      char* end = nullptr;
      unsigned long v = std::strtoul(item.c_str(), &end, 10);
      if (item.empty() || *end != '\0' || v > 0xffffffffUL)
        throw sim::input_error("--trace-users", "comma-separated user serials", "'" + item + "'");
      filter.users.insert(static_cast<std::uint32_t>(v));
      start = comma == std::string::npos ? list.size() : comma + 1;
    }
  }
  jsonl_sink sink(*a.trace);
  if (!sink.error().empty()) throw output_error(*a.trace, "the trace file", sink.error());
  // JSON strings, so any class name (quotes, backslashes) keeps each line valid JSON.
  std::vector<std::string> names;
  for (const auto& n : s.class_names()) names.push_back(nlohmann::json(n).dump());
  sink.class_names = &names;
  models::room rm(s, seed);
  rm.set_trace(&sink, std::move(filter));
  models::room_result r = rm.run();
  if (auto why = sink.commit(); !why.empty()) throw output_error(*a.trace, "the trace file", why);
  return r;
}

using censoring = models::replication_digest::censoring;

std::vector<censoring> censoring_of(const models::room_result& r) {
  std::vector<censoring> out;
  for (const auto& w : r.by_class)
    out.push_back({w.censored_s.count(), w.wait_s.count(), w.arrived,
                   w.censored_s.count() ? w.censored_s.max() : 0.0});
  return out;
}

// On stderr (the terminal), whatever the format: a class whose waits leave out users still
// waiting at the end, or that has no released user to measure at all (summed over `runs`).
void warn_censored(const models::scenario& s, const std::vector<censoring>& by_class,
                   std::size_t runs) {
  for (std::size_t c = 0; c < s.classes.size(); ++c) {
    const auto& [censored, released, arrived, longest] = by_class.at(c);
    const std::string where = runs > 1 ? fmt::format(" (in {} replications)", runs) : "";
    if (released == 0 && arrived > 0)
      fmt::print(stderr,
                 "waitroom: warning: class {}: no released user to measure{}; its waits "
                 "are missing, not 0\n",
                 s.classes[c].name, where);
    if (censored > 0)
      fmt::print(stderr,
                 "waitroom: warning: class {}: {} of {} users still waiting at the end{} (the "
                 "longest for {:.4g} s): its waits leave them out and are too low; see "
                 "wait_bounds_s, or let the run drain\n",
                 s.classes[c].name, censored, censored + released, where, longest);
  }
}

// A single run's warnings: the censoring above, and a series cut at the cap of samples,
// which would otherwise read as a queue that stopped.
void warn_run(const models::scenario& s, const models::room_result& r) {
  warn_censored(s, censoring_of(r), 1);
  if (r.samples.size() >= models::max_queue_samples)
    fmt::print(stderr,
               "waitroom: warning: the queue series stops at {:.6g} s of {:.6g} s: a run "
               "records at most {} samples; raise /run/sample_interval_s\n",
               r.samples.back().t_s, r.end_time_s, models::max_queue_samples);
}

// What a run leaves for the renderers: the room's result (a single run) or the digest of the
// replications, the JSON result when it is wanted, and the counts of the closing line.
struct run_outcome {
  std::optional<models::room_result> single;
  std::optional<models::replication_digest> digest;
  nlohmann::json result;
  std::uint64_t users = 0, events = 0;
};

// Whether the JSON result is needed: the json and csv renderers read it, and so do --html and
// --series.
bool wants_json(const common_args& a, output_format format) {
  switch (format) {
    case output_format::table:
    case output_format::markdown:
      return a.html || a.series;
    case output_format::json:
    case output_format::csv:
      return true;
  }
  return true;
}

run_outcome run_replications(const common_args& a, const models::scenario& s, bool want_json) {
  check_replications_memory(s, a.replications, threads_or_cores(a.threads), "--replications", true);
  progress bar(a.replications, a.quiet);
  models::series_bands bands(s.classes.size());
  run_outcome o;
  // Each replication is taken in as it finishes and dropped: memory does not grow with
  // their number (the digest keeps a 40-byte row each).
  auto& digest = o.digest.emplace(s, want_json);
  models::replicate_each(
      s, s.seed, a.replications, threads_or_cores(a.threads),
      [&](models::room_result&& r) {
        o.users += r.overall.arrived;
        o.events += r.events;
        digest.add(r);
      },
      [&bar] { bar.advance(); }, &bands);
  warn_censored(s, digest.censored_by_class(), digest.count());
  if (want_json) o.result = reports::replications_json(s, digest, 0.95, version, &bands);
  return o;
}

run_outcome run_single(const common_args& a, const models::scenario& s, bool want_json) {
  run_outcome o;
  if (a.trace) {
    o.single = traced_run(a, s, s.seed);
  } else {
    progress line(1, a.quiet);  // a long single run: simulated time and users waiting
    o.single = models::run_scenario(
        s, s.seed, 0, [&line](double t, std::uint64_t waiting, std::uint64_t ev) {
          line.status(fmt::format("simulated {:.0f} s, {} waiting, {} events", t, waiting, ev));
        });
  }
  const models::room_result& r = *o.single;
  warn_run(s, r);
  o.users = r.overall.arrived;
  o.events = r.events;
  if (want_json) o.result = reports::result_json(s, r, version);
  return o;
}

}  // namespace

int run_command(const std::vector<std::string>& args) {
  common_args a = parse_args("run", args, command_kind::run);
  models::scenario s = load(a, a.scenario_path);
  if (a.series && a.replications > 1)
    throw sim::input_error("--series", "a single run (replications keep no time series)",
                           "--replications " + std::to_string(a.replications));
  s.seed = a.seed.value_or(s.seed);
  if (a.shard) return run_shard(a, s);  // replications K, K + N, ... for `waitroom merge`
  const auto started = std::chrono::steady_clock::now();
  const output_format format = format_of(a);
  const bool want_json = wants_json(a, format);
  const run_outcome o =
      a.replications > 1 ? run_replications(a, s, want_json) : run_single(a, s, want_json);
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (a.series && !write_atomically(*a.series, reports::queue_series_csv(o.result))) {
    fmt::print(stderr, "waitroom: {}: could not write the series file ({})\n", *a.series,
               last_write_error());
    return exit_output;
  }
  if (a.html && write_html(*a.html, o.result, s.name) != exit_ok) return exit_output;
  const renderers render{.table =
                             [&] {
                               return o.single ? reports::result_table(s, *o.single)
                                               : reports::replications_table(s, *o.digest, 0.95);
                             },
                         .json = [&] { return o.result.dump(2) + "\n"; },
                         .csv = [&] { return reports::run_csv(o.result); },
                         .markdown =
                             [&] {
                               return o.single ? reports::result_markdown(s, *o.single)
                                               : reports::replications_markdown(s, *o.digest, 0.95);
                             }};
  if (const int rc = write_result(a.out, format, render); rc != exit_ok) return rc;
  if (a.out)
    fmt::print(stderr, "waitroom: wrote {} ({} users, {} events in {:.2f}s wall)\n", *a.out,
               o.users, o.events, wall);
  return exit_ok;
}

}  // namespace waitroom::cli
