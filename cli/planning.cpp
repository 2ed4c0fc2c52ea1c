// `waitroom sweep` and `waitroom plan`: many configurations of one scenario, each run as
// independent replications on common random numbers (every point uses the same seed).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "models/json/json_text.hpp"
#include "models/planning/first_guess.hpp"
#include "models/planning/grid.hpp"
#include "models/planning/pareto.hpp"
#include "models/planning/search.hpp"
#include "models/run/replicate.hpp"
#include "models/scenario/scenario.hpp"
#include "models/sla/sla.hpp"
#include "options.hpp"
#include "output_file.hpp"
#include "output_writer.hpp"
#include "progress.hpp"
#include "report_command.hpp"
#include "reports/plan_report.hpp"
#include "scenario_loading.hpp"
#include "shard.hpp"
#include "sim/input_error.hpp"
#include "sim/parallel.hpp"
#include "sim/text_file.hpp"
#include "version.hpp"

namespace waitroom::cli {

namespace {

using nlohmann::json;

using models::planning::axis;
using point_result = models::planning::grid_point;

// Runs this shard's replications of grid point i.
void run_point(const common_args& a, point_result& p, std::size_t i, std::uint32_t replications,
               shard_spec shard) {
  std::vector<std::uint32_t> mine;
  for (std::uint32_t r = 0; r < replications; ++r)
    if ((i * replications + r) % shard.count == shard.index) mine.push_back(r);
  std::vector<models::metric_table> tables(mine.size());
  const auto& s = p.scenario;
  sim::parallel_for(mine.size(), threads_or_cores(a.threads), [&](std::size_t k) {
    tables[k] = models::tabulate(models::run_scenario(s, s.seed, mine[k]));
  });
  p.tables = std::move(tables);
}

// A grid point's scenario. A value the scenario refuses is the grid's fault, not the
// file's: the error names the flag the value came from and the point.
models::scenario load_point(
    const common_args& pa, const std::optional<std::string>& path, const std::vector<axis>& axes,
    const std::vector<std::pair<std::string, std::function<double(double)>>>& ties,
    const std::vector<double>& values, std::size_t i, std::size_t total) {
  try {
    return load(pa, path);
  } catch (const sim::input_error& e) {
    std::string point;
    for (std::size_t k = 0; k < axes.size(); ++k)
      point += fmt::format("{}{}={}", k ? ", " : "", axes[k].pointer,
                           models::planning::json_number(values[k]));
    for (const auto& [ptr, f] : ties)
      point += fmt::format(", {}={}", ptr, models::planning::json_number(f(values.front())));
    // The flag whose pointer the error is about (or a key below it).
    auto about = [&](const std::string& pointer) {
      const std::string& w = e.where();
      const auto at = w.rfind(": " + pointer);
      if (at == std::string::npos) return false;
      const auto end = at + 2 + pointer.size();
      return end == w.size() || w[end] == '/';
    };
    std::string flag;
    for (const auto& ax : axes)
      if (flag.empty() && about(ax.pointer)) flag = ax.source;
    for (const auto& [ptr, f] : ties)
      if (flag.empty() && about(ptr)) flag = "--tie " + ptr;
    const std::string where =
        flag.empty() ? fmt::format("grid point {} of {} ({}): {}", i + 1, total, point, e.where())
                     : fmt::format("{} at grid point {} of {} ({})", flag, i + 1, total, point);
    throw sim::input_error(where, e.expected(), e.found());
  }
}

// Builds every point of the grid (the cartesian product of the axes, first axis outermost)
// and runs this shard's replications of each.
std::vector<point_result> run_grid(
    const common_args& a, const std::vector<axis>& axes,
    const std::vector<std::pair<std::string, std::function<double(double)>>>& ties,
    std::uint32_t replications, shard_spec shard, bool run) {
  const std::size_t total = models::planning::grid_size(axes);
  if (total > 100000)
    throw sim::input_error("--vary", "at most 100,000 grid points", std::to_string(total));
  std::vector<point_result> out;
  for (std::size_t i = 0; i < total; ++i) {
    common_args pa = a;
    const std::vector<double> values = models::planning::grid_values(axes, i);
    for (std::size_t k = 0; k < axes.size(); ++k)
      pa.sets.push_back(axes[k].pointer + "=" + models::planning::json_number(values[k]));
    for (const auto& [ptr, f] : ties)
      pa.sets.push_back(ptr + "=" + models::planning::json_number(f(values.front())));
    models::scenario s = load_point(pa, a.scenario_path, axes, ties, values, i, total);
    if (a.seed) s.seed = *a.seed;
    out.push_back({values, std::move(s), {}});
  }
  if (!run) return out;
  progress bar(total, a.quiet);
  for (std::size_t i = 0; i < total; ++i) {
    run_point(a, out[i], i, replications, shard);
    bar.step(i + 1);
  }
  return out;
}

}  // namespace

namespace {

// A knob the scenario holds as a whole number (batch, slots): its default step is whole too.
bool integer_knob(const models::scenario& base, const std::string& pointer) {
  try {
    const json effective = models::to_json(base);
    const json::json_pointer p(pointer);
    return effective.contains(p) && effective.at(p).is_number_integer();
  } catch (const json::exception&) {
    return false;  // not a pointer into the scenario: load() says so for the first point
  }
}

std::vector<axis> sweep_axes(const common_args& a, const models::scenario& base) {
  if (a.vary.empty())
    throw sim::input_error("--vary", "at least one /pointer=START:STOP:STEP", "none");
  std::vector<axis> axes;
  for (const auto& v : a.vary) {
    auto eq = v.find('=');
    if (v.empty() || v[0] != '/' || eq == std::string::npos)
      throw sim::input_error("--vary " + v, "/pointer=START:STOP[:STEP]", "'" + v + "'");
    const std::string pointer = v.substr(0, eq);
    for (const auto& ax : axes)
      if (ax.pointer == pointer)
        throw sim::input_error("--vary " + v, "each pointer in one --vary",
                               "'" + pointer + "' again (the later axis would overwrite it)");
    axes.push_back({pointer,
                    models::planning::parse_range(v.substr(eq + 1), "--vary " + v,
                                                  integer_knob(base, pointer)),
                    "--vary " + v});
  }
  return axes;
}

// The sweep's result from complete points: the same bytes however the work was split.
int sweep_output(const common_args& a, const std::vector<axis>& axes,
                 const std::vector<point_result>& points, std::uint32_t reps) {
  json j{{"kind", "sweep"},
         {"schema_version", 1},
         {"tool", {{"name", "waitroom"}, {"version", version}}},
         {"replications", reps},
         {"confidence", 0.95},
         {"axes", json::array()},
         {"points", json::array()}};
  for (const auto& ax : axes) j["axes"].push_back(ax.pointer);
  if (!points.empty()) {
    j["scenario_name"] = points.front().scenario.name;
    j["seed"] = points.front().scenario.seed;
  }
  for (const auto& p : points) j["points"].push_back(reports::point_json(axes, p));
  if (a.csv && !write_atomically(*a.csv, reports::grid_csv(axes, points))) {
    fmt::print(stderr, "waitroom: {}: could not write the CSV file ({})\n", *a.csv,
               last_write_error());
    return exit_output;
  }
  if (a.html && write_html(*a.html, j, *a.scenario_path) != exit_ok) return exit_output;
  // A table on a terminal, JSON for files and pipes (what scripts have always read).
  const bool table = a.format.value_or(!a.out && ::isatty(1) ? "table" : "json") == "table";
  return write_or_print(a, table ? reports::sweep_table(axes, points, reps) : j.dump(2) + "\n");
}

// What a shard file must record to rebuild the grid at merge time.
json sweep_args(const common_args& a, std::uint32_t reps) {
  return {{"scenario", *a.scenario_path},
          {"sets", a.sets},
          {"vary", a.vary},
          {"replications", reps},
          {"seed", a.seed ? json(*a.seed) : json(nullptr)}};
}

// One of the arguments a sweep's or plan's shards recorded (check_shard_set found them equal
// in every shard, so the first one's stand for all), or input_error naming its JSON path.
class shard_args {
 public:
  shard_args(const std::string& path, const json& shard) : path_(path) {
    const auto it = shard.find("args");  // merge_shards checked that it is there
    if (!it->is_object()) throw sim::input_error(path + ": /args", "an object", it->dump());
    args_ = &*it;
  }
  bool has(const char* key) const { return args_->contains(key); }
  const json& at(const char* key) const {
    const auto it = args_->find(key);
    if (it == args_->end())
      throw sim::input_error(where(key), "the value the shard's command ran with", "none");
    return *it;
  }
  std::string text(const char* key) const {
    const json& j = at(key);
    if (!j.is_string()) throw sim::input_error(where(key), "a string", j.dump());
    return j.get<std::string>();
  }
  std::vector<std::string> texts(const char* key) const {
    const json& j = at(key);
    if (!j.is_array() ||
        !std::all_of(j.begin(), j.end(), [](const json& x) { return x.is_string(); }))
      throw sim::input_error(where(key), "an array of strings", j.dump());
    return j.get<std::vector<std::string>>();
  }
  template <class T>
  T number(const char* key) const {
    try {
      return whole<T>(at(key));
    } catch (const shard_fault&) {
      throw sim::input_error(where(key),
                             fmt::format("a whole number up to {}", std::numeric_limits<T>::max()),
                             at(key).dump());
    }
  }
  // The seed: a whole number, or null when --seed was not given.
  std::optional<std::uint64_t> seed() const {
    if (at("seed").is_null()) return std::nullopt;
    return number<std::uint64_t>("seed");
  }

 private:
  std::string where(const char* key) const { return path_ + ": /args/" + key; }
  std::string path_;
  const json* args_ = nullptr;
};

// The content hash of a plan's (or sweep's) base scenario, seed applied.
std::string base_hash(const common_args& a, models::scenario base) {
  if (a.seed) base.seed = *a.seed;
  return scenario_hash(base);
}

// Fills the points' tables from shard units (point, replication, table), each exactly once.
void fill_tables(const std::vector<std::string>& paths, const std::vector<json>& shards,
                 std::vector<point_result>& points, std::uint32_t reps) {
  for (auto& p : points) p.tables.assign(reps, {});
  std::vector<std::vector<bool>> seen(points.size(), std::vector<bool>(reps, false));
  for (std::size_t i = 0; i < shards.size(); ++i) {
    in_shard(paths[i], shards[i], [&] {
      const auto& units = field(shards[i], "units");
      if (!units.is_array())
        throw sim::input_error(paths[i] + ": /units", "an array of units", "something else");
      const auto k = whole<std::size_t>(field(shards[i], "shard"));
      const auto n = whole<std::size_t>(field(shards[i], "of"));
      std::size_t expected = 0;  // units u = point * reps + replication with u mod n = k
      for (std::size_t u = k; u < points.size() * reps; u += n) ++expected;
      if (units.size() != expected)
        throw sim::input_error(paths[i] + ": /units", fmt::format("{} units", expected),
                               std::to_string(units.size()));
      for (std::size_t u = 0; u < units.size(); ++u) {
        const auto where = fmt::format("{}: /units/{}", paths[i], u);
        const auto pt = unit_index(units[u], "point", points.size(), where);
        const auto r = unit_index(units[u], "replication", reps, where);
        if (seen[pt][r] || (pt * reps + r) % n != k)
          throw sim::input_error(
              where, fmt::format("a (point, replication) of shard {} of {} given once", k, n),
              fmt::format("point {}, replication {}", pt, r));
        seen[pt][r] = true;
        points[pt].tables[r] = table_from_json(
            field(units[u], "table"), points[pt].scenario.classes.size() + 1, where + "/table");
      }
    });
  }
  for (std::size_t pt = 0; pt < points.size(); ++pt)
    for (std::uint32_t r = 0; r < reps; ++r)
      if (!seen[pt][r])
        throw sim::input_error("waitroom merge", "every (point, replication) of the grid",
                               fmt::format("point {}, replication {} missing", pt, r));
}

// Every shard's hash against the base scenario as it is now.
void check_base_hash(const std::vector<std::string>& paths, const std::vector<json>& shards,
                     const std::string& scenario_file, const std::string& ours) {
  for (std::size_t i = 0; i < shards.size(); ++i) {
    if (!shards[i].contains("scenario_sha256"))
      throw sim::input_error(paths[i] + ": /scenario_sha256",
                             "the sha256 of the scenario the shard ran", "none");
    if (shards[i].at("scenario_sha256") != ours)
      throw sim::input_error(
          paths[i],
          fmt::format("a shard of {} as it is now (scenario sha256 {})", scenario_file, ours),
          fmt::format("a shard of another scenario content (sha256 {}): the scenario or its "
                      "overrides changed since it ran",
                      shards[i].at("scenario_sha256").dump()));
  }
}

int merge_plan(const common_args& m, const std::vector<std::string>& paths,
               const std::vector<json>& shards);

}  // namespace

int sweep_command(const std::vector<std::string>& args) {
  common_args a = parse_args("sweep", args, command_kind::sweep);
  if (!a.scenario_path) throw sim::input_error("waitroom sweep", "a SCENARIO file", "none");
  auto axes = sweep_axes(a, load(a, a.scenario_path));
  const std::uint32_t reps = replications_or(a, 5);
  shard_spec shard = parse_shard(a.shard);
  auto points = run_grid(a, axes, {}, reps, shard, true);
  if (!a.shard) return sweep_output(a, axes, points, reps);
  // A shard: this process's replications as metric tables, for `waitroom merge`.
  models::scenario base = load(a, a.scenario_path);
  if (a.seed) base.seed = *a.seed;
  json j{{"waitroom_shard", shard_format}, {"command", "sweep"},
         {"shard", shard.index},           {"of", shard.count},
         {"args", sweep_args(a, reps)},    {"scenario_sha256", scenario_hash(base)},
         {"units", json::array()}};
  j["sources"] = sources_json({*a.scenario_path});
  for (std::size_t i = 0; i < points.size(); ++i) {
    std::size_t k = 0;
    for (std::uint32_t r = 0; r < reps; ++r)
      if ((i * reps + r) % shard.count == shard.index)
        j["units"].push_back({{"point", i}, {"replication", r}, {"table", points[i].tables[k++]}});
  }
  return write_shard(a, std::move(j));
}

namespace {

// merge_command after its arguments: `read(i)` gives the i-th shard file's JSON.
int merge_shards(common_args& m, const std::function<json(std::size_t)>& read) {
  try {
    if (m.scenario_paths.empty()) throw sim::input_error("waitroom merge", "shard files", "none");
    std::vector<json> shards;
    for (std::size_t i = 0; i < m.scenario_paths.size(); ++i) {
      const std::string& path = m.scenario_paths[i];
      json j = read(i);
      check_shard_header(path, j);  // the format and command this program merges
      shards.push_back(std::move(j));
    }
    const auto& paths = m.scenario_paths;
    check_shard_set(paths, shards);   // one job's shards, each once
    adopt_sources(m, paths, shards);  // the scenarios they ran, not the files as they are now
    const std::string command = shards.front().at("command").get<std::string>();
    if (command == "run") return merge_run(m, paths, shards);
    if (command == "check") return merge_check(m, paths, shards);
    if (command == "plan") return merge_plan(m, paths, shards);
    if (m.junit || m.format == "csv")
      throw sim::input_error(m.junit ? "--junit" : "--format csv",
                             "no --junit or --format csv for a sweep's shards (a sweep writes "
                             "its table or JSON, and --csv)",
                             m.junit ? "--junit" : "--format csv");
    // Rebuild the sweep's grid from its arguments, then fill in the tables.
    const shard_args args0(paths[0], shards.front());
    common_args a = m;
    a.scenario_path = args0.text("scenario");
    a.sets = args0.texts("sets");
    a.vary = args0.texts("vary");
    a.seed = args0.seed();
    const auto reps = args0.number<std::uint32_t>("replications");
    if (reps < 2 || reps > 100000)
      throw sim::input_error(paths[0] + ": /args/replications", "a number from 2 to 100000",
                             std::to_string(reps));
    check_base_hash(paths, shards, *a.scenario_path, base_hash(a, load(a, a.scenario_path)));
    auto axes = sweep_axes(a, load(a, a.scenario_path));
    auto points = run_grid(a, axes, {}, reps, {}, false);
    fill_tables(paths, shards, points, reps);
    check_content_hashes(paths, shards);
    return sweep_output(a, axes, points, reps);
  } catch (const nlohmann::json::exception& e) {
    // The readers above name the file where they can; this is the last resort.
    std::string files;
    for (const auto& p : m.scenario_paths) files += (files.empty() ? "" : ", ") + p;
    fmt::print(stderr, "waitroom: merge: one of {} is damaged ({})\n", files, e.what());
    return exit_bad_input;
  }
}

}  // namespace

int merge_command(const std::vector<std::string>& args) {
  common_args m = parse_args("merge", args, command_kind::merge);
  return merge_shards(m, [&](std::size_t i) {
    const std::string& path = m.scenario_paths[i];
    return models::parse_json_strict(sim::read_text_file(path, "a shard file"), path);
  });
}

int merge_texts(const std::vector<std::string>& args, const std::vector<std::string>& texts) {
  common_args m = parse_args("merge", args, command_kind::merge);
  if (texts.size() != m.scenario_paths.size())
    throw std::logic_error("merge_texts: one text per shard file named");
  return merge_shards(
      m, [&](std::size_t i) { return models::parse_json_text(texts[i], m.scenario_paths[i]); });
}

namespace {

// A plan's grid, its points' scenarios (not yet simulated) and the closed form's guesses.
struct plan_setup {
  std::vector<axis> axes;
  models::scenario base;
  std::vector<point_result> points;
  std::vector<std::optional<bool>> guess;
  bool any_guess = false;
  std::uint32_t reps = 0;  // a point's replications: --replications, else the sla block's
};

plan_setup plan_prepare(const common_args& a) {
  if (!a.scenario_path) throw sim::input_error("waitroom plan", "a SCENARIO file", "none");
  if (a.knobs.empty() || a.knobs.size() > 2 || a.knobs.size() != a.ranges.size())
    throw sim::input_error("--knob/--range",
                           "one or two --knob /pointer, each with a --range LO:HI[:STEP]",
                           fmt::format("{} knobs and {} ranges", a.knobs.size(), a.ranges.size()));
  models::scenario base = load(a, a.scenario_path);
  std::vector<axis> axes;
  for (std::size_t k = 0; k < a.knobs.size(); ++k) {
    if (a.knobs[k].empty() || a.knobs[k][0] != '/')
      throw sim::input_error("--knob " + a.knobs[k], "a JSON pointer", "'" + a.knobs[k] + "'");
    for (const auto& ax : axes)
      if (ax.pointer == a.knobs[k])
        throw sim::input_error("--knob " + a.knobs[k], "two different knobs",
                               "'" + a.knobs[k] + "' twice");
    axes.push_back({a.knobs[k],
                    models::planning::parse_range(a.ranges[k], "--range " + a.ranges[k],
                                                  integer_knob(base, a.knobs[k])),
                    "--range " + a.ranges[k]});
  }
  std::vector<std::pair<std::string, std::function<double(double)>>> ties;
  for (const auto& t : a.ties) {
    auto eq = t.find('=');
    if (t.empty() || t[0] != '/' || eq == std::string::npos)
      throw sim::input_error("--tie " + t, "/pointer=EXPR (EXPR in x, the first knob)",
                             "'" + t + "'");
    ties.emplace_back(t.substr(0, eq), models::planning::parse_tie(t.substr(eq + 1), "--tie " + t));
  }
  if (!base.sla)
    throw sim::input_error(*a.scenario_path + ": /sla", "an sla block to plan for", "none");
  if (a.search && axes.size() != 1)
    throw sim::input_error("--search", "one --knob (the search bisects along it)",
                           fmt::format("{} knobs", axes.size()));
  // --replications overrides the sla block's count for every point.
  const std::uint32_t reps = replications_or(a, base.sla->replications);
  plan_setup out{axes, base, run_grid(a, axes, ties, reps, {}, false), {}, false, reps};
  for (const auto& p : out.points) {
    out.guess.push_back(models::planning::closed_form_holds(p.scenario));
    out.any_guess = out.any_guess || out.guess.back().has_value();
  }
  return out;
}

// The plan's table (or map), verdict lines and CSV from the points simulated (ran[i]): the
// same bytes for a plan and for `merge` of its shards.
int plan_render(const common_args& a, const plan_setup& setup, const std::vector<bool>& ran,
                const std::string& search_note) {
  const auto& [axes, base, points, guess, any_guess, reps] = setup;
  const std::vector<bool> pareto = axes.size() == 1
                                       ? models::planning::mean_wait_front(
                                             points, ran, base.classes.size(), base.sla->confidence)
                                       : std::vector<bool>(points.size(), false);
  const std::string out = reports::plan_table(
      {axes, base, points, guess, any_guess, reps, ran, pareto, a.search, search_note});
  std::vector<point_result> simulated_points;  // --search: only the values it simulated
  for (std::size_t i = 0; i < points.size(); ++i)
    if (ran[i]) simulated_points.push_back(points[i]);
  if (a.csv && !write_atomically(*a.csv, reports::grid_csv(axes, simulated_points))) {
    fmt::print(stderr, "waitroom: {}: could not write the CSV file ({})\n", *a.csv,
               last_write_error());
    return exit_output;
  }
  const bool want_json = a.format.value_or("table") == "json";
  if (want_json || a.html) {
    // The plan as data: every simulated point with each SLA target's interval and verdict.
    json j{{"kind", "plan"},
           {"schema_version", 1},
           {"tool", {{"name", "waitroom"}, {"version", version}}},
           {"replications", reps},
           {"confidence", base.sla->confidence},
           {"seed", a.seed.value_or(base.seed)},
           {"scenario_name", base.name},
           {"scenario", models::to_json(base)},
           {"axes", json::array()},
           {"ties", a.ties},
           {"search", a.search},
           {"points", json::array()}};
    for (const auto& ax : axes) j["axes"].push_back(ax.pointer);
    for (std::size_t i = 0; i < points.size(); ++i) {
      if (!ran[i]) continue;
      json pj = reports::point_json(axes, points[i]);
      if (axes.size() == 1) pj["pareto"] = static_cast<bool>(pareto[i]);
      if (guess[i]) pj["closed_form_holds"] = *guess[i];
      j["points"].push_back(std::move(pj));
    }
    if (a.html && write_html(*a.html, j, *a.scenario_path) != exit_ok) return exit_output;
    if (want_json) return write_or_print(a, j.dump(2) + "\n");
  }
  return write_or_print(a, out);
}

json plan_args(const common_args& a) {
  return {{"scenario", *a.scenario_path},
          {"sets", a.sets},
          {"knobs", a.knobs},
          {"ranges", a.ranges},
          {"ties", a.ties},
          {"replications", a.replications},
          {"seed", a.seed ? json(*a.seed) : json(nullptr)}};
}

// `plan --shard K/N`: a grid plan's (point, replication) units K, K + N, ..., numbered as a
// sweep numbers them; `merge` writes the plan's table from them.
int plan_shard(const common_args& a, plan_setup& setup) {
  if (a.search)
    throw sim::input_error("--shard",
                           "a grid plan without --search (the search picks each value from the "
                           "last verdict, so its work cannot be split in advance; a probe's "
                           "replications run on --threads threads; shard the grid plan, or one "
                           "probe's replications with check --shard)",
                           "--search");
  if ((a.format && *a.format != "json") || a.html)
    throw sim::input_error(a.html ? "--html" : "--format",
                           "no --format table or --html with --shard (a shard file is JSON; give "
                           "them to `waitroom merge`)",
                           a.html ? "--html" : "'" + *a.format + "'");
  const shard_spec shard = parse_shard(a.shard);
  const auto reps = setup.reps;
  progress bar(setup.points.size(), a.quiet);
  for (std::size_t i = 0; i < setup.points.size(); ++i) {
    run_point(a, setup.points[i], i, reps, shard);
    bar.step(i + 1);
  }
  json j{{"waitroom_shard", shard_format}, {"command", "plan"},
         {"shard", shard.index},           {"of", shard.count},
         {"args", plan_args(a)},           {"scenario_sha256", base_hash(a, setup.base)},
         {"units", json::array()}};
  j["sources"] = sources_json({*a.scenario_path});
  for (std::size_t i = 0; i < setup.points.size(); ++i) {
    std::size_t k = 0;
    for (std::uint32_t r = 0; r < reps; ++r)
      if (shard.mine(i * reps + r))
        j["units"].push_back(
            {{"point", i}, {"replication", r}, {"table", setup.points[i].tables[k++]}});
  }
  return write_shard(a, std::move(j));
}

int merge_plan(const common_args& m, const std::vector<std::string>& paths,
               const std::vector<json>& shards) {
  if (m.junit || m.format == "csv")
    throw sim::input_error(m.junit ? "--junit" : "--format csv",
                           "no --junit or --format csv for a plan's shards (a plan writes its "
                           "table or JSON, and --csv)",
                           m.junit ? "--junit" : "--format csv");
  const shard_args args(paths[0], shards.front());
  common_args a = m;
  a.scenario_path = args.text("scenario");
  a.sets = args.texts("sets");
  a.knobs = args.texts("knobs");
  a.ranges = args.texts("ranges");
  a.ties = args.texts("ties");
  a.seed = args.seed();
  a.replications = args.has("replications") ? args.number<std::uint32_t>("replications") : 1u;
  a.replications_given = a.replications > 1;  // recorded as 1 when the flag was not given
  plan_setup setup = plan_prepare(a);
  check_base_hash(paths, shards, *a.scenario_path, base_hash(a, setup.base));
  fill_tables(paths, shards, setup.points, setup.reps);
  check_content_hashes(paths, shards);
  return plan_render(a, setup, std::vector<bool>(setup.points.size(), true), "");
}

}  // namespace

int plan_command(const std::vector<std::string>& args) {
  common_args a = parse_args("plan", args, command_kind::plan);
  plan_setup setup = plan_prepare(a);
  if (a.shard) return plan_shard(a, setup);
  auto& points = setup.points;
  const auto& axes = setup.axes;
  // Which points were simulated: all of them, or (--search) those the bisection needed.
  std::vector<bool> ran(points.size(), false);
  auto simulate = [&](std::size_t i) {
    if (!ran[i]) {
      run_point(a, points[i], i, setup.reps, {});
      ran[i] = true;
    }
    return models::planning::point_holds(points[i]);
  };
  std::string search_note;
  bool bisected = false;
  if (a.search) {
    const auto outcome = models::planning::search_feasible(setup.guess, simulate);
    search_note = reports::search_note(outcome, axes);
    bisected = outcome.kind == models::planning::search_kind::bisected;
  }
  if (!bisected) {
    progress bar(points.size(), a.quiet);
    for (std::size_t i = 0; i < points.size(); ++i) {
      simulate(i);
      bar.advance();
    }
  }
  return plan_render(a, setup, ran, search_note);
}

}  // namespace waitroom::cli
