#include "commands.hpp"

#include "memory_check.hpp"
#include "options.hpp"
#include "output_file.hpp"
#include "output_writer.hpp"
#include "progress.hpp"
#include "redis_commands.hpp"
#include "scenario_loading.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>

#include <fmt/format.h>
#include <unistd.h>
#include <boost/program_options.hpp>

#include "default_scenario.hpp"
#include "models/analytic/queueing.hpp"
#include "models/room/room.hpp"
#include "models/run/replicate.hpp"
#include "models/run/summary.hpp"
#include "models/scenario/scenario.hpp"
#include "models/sla/sla.hpp"
#include "report_command.hpp"
#include "reports/check_report.hpp"
#include "reports/csv_report.hpp"
#include "reports/report.hpp"
#include "shard.hpp"
#include "sim/confidence.hpp"
#include "sim/input_error.hpp"
#include "sim/text_file.hpp"
#include "version.hpp"

namespace po = boost::program_options;

namespace waitroom::cli {

std::string usage() {
  return R"(waitroom - simulate virtual waiting rooms with VIP priority

usage:
  waitroom run [SCENARIO] [--seed N] [--set /json/pointer=value ...]
               [--out FILE] [--format table|json|csv] [--series FILE] [--html FILE]
               [--replications R] [--threads T] [--quiet] [--shard K/N]
               [--trace FILE [--trace-from S] [--trace-to S] [--trace-users N,N]]
  waitroom check SCENARIO... [--junit FILE] [--format table|json|csv] [--out FILE]
               [--html FILE] [--seed N] [--threads T] [--set ...] [--quiet]
               [--shard K/N --out FILE] [--redis URL [--redis-keep]]
  waitroom compare SCENARIO --variant NAME:/pointer=value[,/pointer=value] ...
               [--replications R] [--seed N] [--format table|json|csv] [--out FILE]
               [--html FILE] [--redis URL [--redis-keep]]
  waitroom sweep SCENARIO --vary /pointer=START:STOP[:STEP] ... [--replications R]
               [--format table|json] [--out FILE] [--csv FILE] [--html FILE] [--quiet]
               [--shard K/N]
  waitroom merge SHARD_FILE... [--out FILE] [--csv FILE] [--html FILE]
               [--format table|json|csv] [--junit FILE]
  waitroom load SCENARIO --redis URL [--speed X|asap|max] [--clients K] [--threads T]
               [--duration S]
  waitroom plan SCENARIO --knob /pointer --range LO:HI[:STEP] [--knob ... --range ...]
               [--tie /pointer=EXPR] [--search] [--format table|json] [--out FILE]
               [--csv FILE] [--html FILE] [--set ...] [--seed N] [--replications R]
               [--shard K/N --out FILE]
  waitroom report RESULT.json [--out report.html]
  waitroom estimate SCENARIO [--replications R] [--seed N] [--threads T]
               [--format table|json] [--out FILE]
  waitroom validate SCENARIO [--set /json/pointer=value ...]
  waitroom import cloudflare ROOM.json --arrivals FILE [--event FILE] [--out FILE]
  waitroom COMMAND --help     every option of one command
  waitroom --help | --version

commands:
  run        simulate SCENARIO (a JSON file; without one, the embedded concert
             presale) and print per-class wait-time distributions
  check      run each SCENARIO's "sla" block (its replications, in parallel) and
             exit 1 when a target fails: a target holds only when its whole
             confidence interval is within the limit
  compare    run SCENARIO and each variant on common random numbers (default 10
             replications) and show paired differences with intervals
  sweep      a grid over any JSON pointers; per point and class, mean, p95 and
             refused share with intervals, and whether the SLA holds (JSON, CSV)
  merge      combine the files of `run`, `check`, `sweep` or `plan --shard K/N` (K = 0..N-1,
             one process each: a job array) into exactly what the unsharded command
             writes; shards of another scenario content are refused (exit 2)
  plan       search knobs for the settings where every SLA of the scenario holds
             (on confidence bounds): for one knob the feasible range and the Pareto
             front of the first two classes' waits, for two the feasible region.
             --tie sets another pointer from the first knob x (e.g. 30-x)
  estimate   the closed form that matches SCENARIO (Erlang C, Pollaczek-Khinchine,
             Cobham, Erlang-A, tick-release chains, G/M/1) beside the simulated
             mean waits with their intervals
  report     render a saved JSON result of run, compare, sweep/merge, plan or
             check as one self-contained HTML page with charts (opens offline)
  validate   check SCENARIO and print the effective scenario as JSON
  import     a Cloudflare waiting room's JSON as a scenario (docs/products.md)

options:
  --seed N         random seed (overrides the scenario's "seed")
  --set P=V        set the value at JSON pointer P before validation; V is JSON,
                   or a plain string: --set /release/batch=500 --set /queue/policy=fifo
  --unset P        remove the key at JSON pointer P (null is not a value: --set P=null
                   is refused); --set and --unset apply in the order given
  --out FILE       write the result to FILE (JSON unless --format table); the
                   file appears only when the run succeeded
  --format F       table (default without --out), json (default with --out), or csv
                   for run, compare and check
  --html FILE      also write the result as a self-contained HTML report with charts
  --replications R independent replications with 95% t intervals for every
                   statistic; the same for any --threads (default: one per core)
  --junit FILE     check: also write JUnit XML for CI systems
  --shard K/N      run (with --replications), check, sweep, plan: run every N-th
                   unit from K and write a shard file for `waitroom merge`
  --vary, --range  START:STOP[:STEP]; STEP defaults to (STOP - START) / 20 (a whole
                   number for an integer knob); at most 10,000 values
  --max-events N   allow a run estimated at more than N events (default 1e10)
  --quiet          no progress line (redrawn on a terminal, a line every 10 s in a
                   log, for long runs, run --replications, sweep, plan and check)
  --trace FILE     run: every state change as JSON Lines (time, user, token, class,
                   action, list, queue length), within --trace-from/--trace-to
                   seconds and for --trace-users serials when given

examples:
  waitroom run
  waitroom run scenarios/clinic.json --set /release/batch=8 --format json
  waitroom run scenarios/mmc_validation.json --seed 7 --out result.json
  waitroom run scenarios/concert_polling.json --html out/polling.html
  waitroom report result.json --out result.html
  waitroom run scenarios/clinic_ratio.json --replications 20
  waitroom check scenarios/clinic_ratio.json --junit sla.xml
  waitroom compare scenarios/clinic_ratio.json \
      --variant 15to15:/release/selection/weights=[15,15]
  waitroom plan scenarios/clinic_ratio_plan.json --knob /release/selection/weights/0 \
      --range 1:29:1 --tie /release/selection/weights/1=30-x
  waitroom validate scenarios/concert_presale.json

exit codes:
  0 success   1 an SLA failed (check)   2 bad input (arguments, scenario, trace)
  3 internal error   4 an output file could not be written
  5 Redis answered differently from the model   6 Redis failed (unreachable,
  refused, wrong password, OOM, script error, key of the wrong type); docs/redis.md
)";
}

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

}  // namespace

int run_command(const std::vector<std::string>& args) {
  common_args a = parse_args("run", args, command_kind::run);
  models::scenario s = load(a, a.scenario_path);
  if (a.series && a.replications > 1)
    throw sim::input_error("--series", "a single run (replications keep no time series)",
                           "--replications " + std::to_string(a.replications));
  std::uint64_t seed = a.seed.value_or(s.seed);
  s.seed = seed;
  if (a.shard) return run_shard(a, s);  // replications K, K + N, ... for `waitroom merge`
  auto started = std::chrono::steady_clock::now();
  std::string format = a.format.value_or(a.out ? "json" : "table");
  std::string text;
  std::uint64_t users = 0, events = 0;
  nlohmann::json result;  // for --format json and --html
  if (a.replications > 1) {
    check_replications_memory(s, a.replications, threads_or_cores(a.threads), "--replications",
                              true);
    progress bar(a.replications, a.quiet);
    models::series_bands bands(s.classes.size());
    // Each replication is taken in as it finishes and dropped: memory does not grow with
    // their number (the digest keeps a 40-byte row each).
    models::replication_digest digest(s, format != "table" || a.html);
    models::replicate_each(
        s, seed, a.replications, threads_or_cores(a.threads),
        [&](models::room_result&& r) {
          users += r.overall.arrived;
          events += r.events;
          digest.add(r);
        },
        [&bar] { bar.advance(); }, &bands);
    warn_censored(s, digest.censored_by_class(), digest.count());
    if (format != "table" || a.html)
      result = reports::replications_json(s, digest, 0.95, version, &bands);
    text = format == "table" ? reports::replications_table(s, digest, 0.95) : "";
  } else if (a.trace) {
    models::room_result r = traced_run(a, s, seed);
    warn_run(s, r);
    users = r.overall.arrived;
    events = r.events;
    if (format != "table" || a.html || a.series) result = reports::result_json(s, r, version);
    text = format == "table" ? reports::result_table(s, r) : "";
  } else {
    progress line(1, a.quiet);  // a long single run: simulated time and users waiting
    models::room_result r = models::run_scenario(
        s, seed, 0, [&line](double t, std::uint64_t waiting, std::uint64_t ev) {
          line.status(fmt::format("simulated {:.0f} s, {} waiting, {} events", t, waiting, ev));
        });
    warn_run(s, r);
    users = r.overall.arrived;
    events = r.events;
    if (format != "table" || a.html || a.series) result = reports::result_json(s, r, version);
    text = format == "table" ? reports::result_table(s, r) : "";
  }
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (format == "json") text = result.dump(2) + "\n";
  if (format == "csv") text = reports::run_csv(result);
  if (a.series) {
    if (!write_atomically(*a.series, reports::queue_series_csv(result))) {
      fmt::print(stderr, "waitroom: {}: could not write the series file ({})\n", *a.series,
                 last_write_error());
      return exit_output;
    }
  }
  if (a.html && write_html(*a.html, result, s.name) != exit_ok) return exit_output;
  if (a.out) {
    if (!write_atomically(*a.out, text)) {
      fmt::print(stderr, "waitroom: {}: could not write the result file ({})\n", *a.out,
                 last_write_error());
      return exit_output;
    }
    fmt::print(stderr, "waitroom: wrote {} ({} users, {} events in {:.2f}s wall)\n", *a.out, users,
               events, wall);
  } else {
    fmt::print("{}", text);
    std::fflush(stdout);
  }
  return exit_ok;
}

int check_command(const std::vector<std::string>& all_args) {
  std::vector<std::string> args = all_args;
  const redis_request redis = take_redis_flags(args);
  common_args a = parse_args("check", args, command_kind::check);
  if (a.scenario_paths.empty())
    throw sim::input_error("waitroom check", "one or more SCENARIO files", "none");
  std::vector<models::scenario> scenarios;
  for (const auto& p : a.scenario_paths) {
    scenarios.push_back(load(a, p));
    if (!scenarios.back().sla)
      throw sim::input_error(p + ": /sla", "an sla block to check", "none");
  }
  for (auto& s : scenarios)
    if (a.seed) s.seed = *a.seed;
  if (redis.url && a.shard)
    throw sim::input_error("--shard", "no --shard with --redis (replication 0 is mirrored)",
                           "--shard");
  // (scenario, replication) units K mod N; --out names the shard file there.
  if (a.shard) return check_shard(a, scenarios);
  mirrored_blocks mirrored;  // replication 0 of each scenario on Redis, before the rest
  if (redis.url) {
    std::vector<const models::scenario*> ps;
    for (std::size_t i = 0; i < scenarios.size(); ++i) {
      refuse_unmirrorable(scenarios[i], a.scenario_paths[i] + ": ");
      ps.push_back(&scenarios[i]);
    }
    if (int rc = mirror_first_replications(redis, ps, a.scenario_paths, "scenario", mirrored))
      return rc;
  }
  std::vector<std::vector<models::metric_table>> tables;
  std::size_t total = 0;
  for (const auto& s : scenarios) {
    total += s.sla->replications;
    check_replications_memory(s, s.sla->replications, threads_or_cores(a.threads),
                              "/sla/replications");
  }
  {
    progress bar(total, a.quiet);
    for (const auto& s : scenarios) {
      tables.emplace_back();
      for (const auto& r :
           models::replicate(s, s.seed, s.sla->replications, threads_or_cores(a.threads),
                             [&bar] { bar.advance(); }))
        tables.back().push_back(models::tabulate(r));
    }
  }
  // The same code as `merge` of check shards.
  return check_output(a, scenarios, tables, mirrored.json, mirrored.text);
}

int compare_command(const std::vector<std::string>& all_args) {
  std::vector<std::string> args = all_args;
  const redis_request redis = take_redis_flags(args);
  common_args a = parse_args("compare", args, command_kind::compare);
  if (a.variants.empty())
    throw sim::input_error("--variant", "at least one NAME:/pointer=value[,/pointer=value]",
                           "none");
  std::vector<std::string> names{"base"};
  std::vector<models::scenario> scenarios;
  scenarios.push_back(load(a, a.scenario_path));
  for (const auto& v : a.variants) {
    auto colon = v.find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 >= v.size() || v[colon + 1] != '/')
      throw sim::input_error("--variant " + v, "NAME:/pointer=value[,/pointer=value...]",
                             "'" + v + "'");
    const std::string name = v.substr(0, colon);
    if (const std::string why = sim::unprintable_name(name); !why.empty())
      throw sim::input_error("--variant", "a name without control or bidirectional characters",
                             why + " in " + nlohmann::json(name).dump(-1, ' ', true));
    if (std::find(names.begin(), names.end(), name) != names.end())
      throw sim::input_error("--variant " + v,
                             name == "base" ? "a variant name other than 'base' (the scenario "
                                              "as given is called that)"
                                            : "a variant name not used by another --variant",
                             "'" + name + "'" + (name == "base" ? "" : " again"));
    names.push_back(name);
    common_args va = a;
    // Assignments are separated by ",/" so JSON values may contain commas.
    std::string rest = v.substr(colon + 1);
    for (std::size_t start = 0; start < rest.size();) {
      std::size_t next = rest.find(",/", start);
      va.sets.push_back(rest.substr(start, next == std::string::npos ? next : next - start));
      start = next == std::string::npos ? rest.size() : next + 1;
    }
    scenarios.push_back(load(va, a.scenario_path));
  }
  std::uint64_t seed = a.seed.value_or(scenarios.front().seed);
  const std::uint32_t reps = replications_or(a, 10);
  std::vector<const models::scenario*> ptrs;
  for (auto& s : scenarios) {
    s.seed = seed;  // common random numbers: every variant sees the same customers
    ptrs.push_back(&s);
  }
  mirrored_blocks mirrored;  // replication 0 of each variant on Redis, before the rest
  if (redis.url) {
    for (std::size_t i = 0; i < scenarios.size(); ++i)
      refuse_unmirrorable(scenarios[i], "--variant " + names[i] + ": ");
    if (int rc = mirror_first_replications(redis, ptrs, names, "variant", mirrored)) return rc;
  }
  std::vector<std::vector<models::room_result>> runs;
  for (auto& s : scenarios)
    runs.push_back(models::replicate(s, seed, reps, threads_or_cores(a.threads)));
  auto j = reports::compare_json(names, ptrs, runs, 0.95);
  j["tool"] = {{"name", "waitroom"}, {"version", version}};
  if (redis.url) j["redis"] = mirrored.json;
  std::string format = a.format.value_or(a.out ? "json" : "table");
  std::string text = format == "json"  ? j.dump(2) + "\n"
                     : format == "csv" ? reports::compare_csv(j)
                                       : reports::compare_table(j) + mirrored.text;
  if (a.html && write_html(*a.html, j, scenarios.front().name) != exit_ok) return exit_output;
  return write_or_print(a, text);
}

int estimate_command(const std::vector<std::string>& args) {
  common_args a = parse_args("estimate", args, command_kind::estimate);
  if (!a.scenario_path) throw sim::input_error("waitroom estimate", "a SCENARIO file", "none");
  models::scenario s = load(a, a.scenario_path);
  if (a.seed) s.seed = *a.seed;
  const std::uint32_t reps = replications_or(a, 10);
  auto rs = models::replicate(s, s.seed, reps, threads_or_cores(a.threads));
  auto est = models::analytic_for(s);
  struct row {
    std::string name;
    std::optional<double> theory;
    sim::interval simulated;
  };
  std::vector<row> rows;
  // Some models give one value for all users (the order within the queue only moves waits
  // between classes); with abandonment it is the time in queue of everyone who left it.
  const bool overall = est.estimate && est.estimate->overall_only;
  if (overall) {
    std::vector<double> xs;
    for (const auto& r : rs) {
      const auto& w = r.overall;
      double n = static_cast<double>(w.wait_s.count() + w.abandon_s.count());
      xs.push_back(n > 0 ? (w.wait_s.mean() * static_cast<double>(w.wait_s.count()) +
                            w.abandon_s.mean() * static_cast<double>(w.abandon_s.count())) /
                               n
                         : 0.0);
    }
    rows.push_back({"everyone", est.estimate->mean_wait_s[0], sim::mean_interval(xs, 0.95)});
  }
  for (std::size_t c = 0; c < s.classes.size(); ++c) {
    std::optional<double> theory;
    if (est.estimate && !overall) theory = est.estimate->mean_wait_s[c];
    rows.push_back({s.classes[c].name, theory,
                    models::metric_interval(rs, static_cast<std::int32_t>(c),
                                            models::sla_metric::mean_wait_s, 0.95)});
  }
  if (est.estimate && est.estimate->p_abandon)
    rows.push_back({"P(abandon)", est.estimate->p_abandon,
                    models::metric_interval(rs, -1, models::sla_metric::abandoned_share, 0.95)});
  if (est.estimate && est.estimate->p_wait) {
    // A wait of 0 ns (bucket 0 of the histogram) is not waiting; everyone who gave up
    // waited (Erlang-A's P(wait) is over all arrivals who left the queue).
    std::vector<double> pw;
    for (const auto& r : rs) {
      const auto left = r.overall.wait_ns.count() + r.overall.abandon_s.count();
      pw.push_back(1.0 - static_cast<double>(r.overall.wait_ns.bucket(0)) /
                             static_cast<double>(std::max<std::uint64_t>(1, left)));
    }
    rows.push_back({"P(wait > 0)", est.estimate->p_wait, sim::mean_interval(pw, 0.95)});
  }
  if (est.estimate && est.estimate->p_wait && est.estimate->wait_decay_per_s)
    // FIFO M/M/c: P(wait > t) at the points `run --replications` reports (SLA limits or fixed).
    for (const auto& p : models::tail_points(s, -1)) {
      std::vector<double> xs;
      for (const auto& r : rs)
        xs.push_back(models::wait_above_share(r.overall, p.t_s).value_or(0.0));
      rows.push_back({fmt::format("P(wait > {:g} s)", p.t_s),
                      *est.estimate->p_wait * std::exp(-*est.estimate->wait_decay_per_s * p.t_s),
                      sim::mean_interval(xs, 0.95)});
    }
  const std::string format = a.format.value_or(a.out ? "json" : "table");
  if (format == "json") {
    // Full precision (nlohmann writes the shortest text that reads back the same double).
    nlohmann::json j{
        {"schema_version", 1},
        {"scenario", s.name},
        {"model", est.estimate ? nlohmann::json(est.estimate->model) : nullptr},
        {"reason", est.estimate ? nlohmann::json(nullptr) : nlohmann::json(est.reason)},
        {"unstable", est.unstable},
        {"replications", reps},
        {"confidence", 0.95},
        {"rows", nlohmann::json::array()}};
    for (const auto& r : rows) {
      nlohmann::json rj{
          {"name", r.name},
          {"closed_form", r.theory ? nlohmann::json(*r.theory) : nullptr},
          {"simulated",
           {{"estimate", r.simulated.mean}, {"ci", {r.simulated.lo(), r.simulated.hi()}}}}};
      rj["inside"] = r.theory ? nlohmann::json(r.simulated.contains(*r.theory)) : nullptr;
      j["rows"].push_back(rj);
    }
    return write_or_print(a, j.dump(2) + "\n");
  }
  std::string out = fmt::format(
      "{}: {}\n", s.name, est.estimate ? est.estimate->model : "no closed form: " + est.reason);
  out += fmt::format("{:<16} {:>14} {:>26}\n", "class", "closed form",
                     "simulated (95%, " + std::to_string(reps) + " reps)");
  for (const auto& r : rows) {
    std::string verdict;
    if (r.theory) verdict = r.simulated.contains(*r.theory) ? "  inside" : "  OUTSIDE";
    out += fmt::format("{:<16} {:>14} {:>18.4f} ± {:<8.4f}{}\n", r.name,
                       r.theory ? fmt::format("{:.4f}", *r.theory) : "-", r.simulated.mean,
                       r.simulated.half_width, verdict);
  }
  out += "(simulations start empty; a long horizon keeps that bias small)\n";
  return write_or_print(a, out);
}

int validate_command(const std::vector<std::string>& args) {
  common_args a = parse_args("validate", args, command_kind::validate);
  if (!a.scenario_path)
    throw sim::input_error("waitroom validate", "a SCENARIO file argument", "none");
  models::scenario s = load(a, a.scenario_path);
  fmt::print("{}\n", models::to_json(s).dump(2));
  fmt::print(stderr, "waitroom: {} is valid\n", *a.scenario_path);
  return exit_ok;
}

}  // namespace waitroom::cli
