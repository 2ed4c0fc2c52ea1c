// `waitroom sweep` and `waitroom plan`: many configurations of one scenario, each run as
// independent replications on common random numbers (every point uses the same seed).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli_support.hpp"
#include "commands.hpp"
#include "models/analytic/queueing.hpp"
#include "models/room/replicate.hpp"
#include "models/scenario/scenario.hpp"
#include "models/sla/sla.hpp"
#include "output_file.hpp"
#include "report_command.hpp"
#include "reports/check_report.hpp"
#include "reports/interval_text.hpp"
#include "shard.hpp"
#include "sim/input_error.hpp"
#include "sim/parallel.hpp"
#include "version.hpp"

namespace waitroom::cli {

namespace {

using nlohmann::json;

struct axis {
  std::string pointer;
  std::vector<double> values;
};

double parse_number(const std::string& text, const std::string& where) {
  try {
    std::size_t used = 0;
    double v = std::stod(text, &used);
    if (used != text.size() || !std::isfinite(v)) throw std::invalid_argument(text);
    return v;
  } catch (const std::exception&) {
    throw sim::input_error(where, "a number", "'" + text + "'");
  }
}

// "LO:HI[:STEP]" (STEP defaults to a 20th of the range) into the grid's values.
std::vector<double> parse_range(const std::string& text, const std::string& where) {
  std::vector<std::string> parts;
  for (std::size_t start = 0;;) {
    std::size_t colon = text.find(':', start);
    parts.push_back(text.substr(start, colon == std::string::npos ? colon : colon - start));
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  if (parts.size() < 2 || parts.size() > 3)
    throw sim::input_error(where, "START:STOP[:STEP]", "'" + text + "'");
  double lo = parse_number(parts[0], where), hi = parse_number(parts[1], where);
  double step = parts.size() == 3 ? parse_number(parts[2], where) : (hi - lo) / 20.0;
  if (hi < lo || step <= 0 || (hi - lo) / step > 10000)
    throw sim::input_error(where, "START <= STOP and a STEP > 0 giving at most 10,000 values",
                           "'" + text + "'");
  std::vector<double> out;
  for (std::size_t i = 0;; ++i) {
    double v = lo + static_cast<double>(i) * step;
    if (v > hi + 1e-9 * std::max(1.0, std::abs(hi))) break;
    out.push_back(std::round(v * 1e9) / 1e9);  // 0.1 * 3 reads 0.3
  }
  return out;
}

// A JSON number: integral values as integers, so integer keys (batch, slots) accept them.
std::string json_number(double v) {
  if (v == std::floor(v) && std::abs(v) < 9e15) return std::to_string(static_cast<std::int64_t>(v));
  return json(v).dump();
}

// "/pointer=EXPR" with EXPR linear in x: x, c-x, c+x, x+c, x-c, c*x.
std::function<double(double)> parse_tie(const std::string& expr, const std::string& where) {
  auto x = expr.find('x');
  if (x == std::string::npos || expr.find('x', x + 1) != std::string::npos)
    throw sim::input_error(where, "an expression in x such as 30-x, x+5 or 2*x", "'" + expr + "'");
  std::string left = expr.substr(0, x), right = expr.substr(x + 1);
  if (left.empty() && right.empty()) return [](double v) { return v; };
  if (right.empty() && !left.empty()) {
    char op = left.back();
    double c = parse_number(left.substr(0, left.size() - 1), where);
    if (op == '-') return [c](double v) { return c - v; };
    if (op == '+') return [c](double v) { return c + v; };
    if (op == '*') return [c](double v) { return c * v; };
  }
  if (left.empty() && right.size() > 1) {
    char op = right.front();
    double c = parse_number(right.substr(1), where);
    if (op == '-') return [c](double v) { return v - c; };
    if (op == '+') return [c](double v) { return v + c; };
    if (op == '*') return [c](double v) { return v * c; };
  }
  throw sim::input_error(where, "an expression in x such as 30-x, x+5 or 2*x", "'" + expr + "'");
}

struct point_result {
  std::vector<double> values;
  models::scenario scenario;
  std::vector<models::metric_table> tables;  // one per replication (a shard: only its own)
};

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

// Builds every point of the grid (the cartesian product of the axes, first axis outermost)
// and runs this shard's replications of each.
std::vector<point_result> run_grid(
    const common_args& a, const std::vector<axis>& axes,
    const std::vector<std::pair<std::string, std::function<double(double)>>>& ties,
    std::uint32_t replications, shard_spec shard, bool run) {
  std::size_t total = 1;
  for (const auto& ax : axes) total *= ax.values.size();
  if (total > 100000)
    throw sim::input_error("--vary", "at most 100,000 grid points", std::to_string(total));
  std::vector<point_result> out;
  for (std::size_t i = 0; i < total; ++i) {
    common_args pa = a;
    std::vector<double> values;
    std::size_t rest = i;
    std::vector<std::size_t> idx(axes.size());
    for (std::size_t k = axes.size(); k-- > 0;) {
      idx[k] = rest % axes[k].values.size();
      rest /= axes[k].values.size();
    }
    for (std::size_t k = 0; k < axes.size(); ++k) {
      double v = axes[k].values[idx[k]];
      values.push_back(v);
      pa.sets.push_back(axes[k].pointer + "=" + json_number(v));
    }
    for (const auto& [ptr, f] : ties) pa.sets.push_back(ptr + "=" + json_number(f(values.front())));
    models::scenario s = load(pa, a.scenario_path);
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

constexpr models::sla_metric reported[] = {models::sla_metric::mean_wait_s,
                                           models::sla_metric::p95_wait_s,
                                           models::sla_metric::refused_share};

json point_json(const std::vector<axis>& axes, const point_result& p) {
  json j;
  for (std::size_t k = 0; k < axes.size(); ++k) j["values"][axes[k].pointer] = p.values[k];
  j["classes"] = json::array();
  for (std::int32_t c = -1; c < static_cast<std::int32_t>(p.scenario.classes.size()); ++c) {
    json cj{{"class",
             c < 0 ? std::string("all") : p.scenario.classes[static_cast<std::size_t>(c)].name}};
    for (auto m : reported) {
      auto iv = models::table_interval(p.tables, c, m, 0.95);
      cj[models::to_string(m)] = {{"estimate", iv.mean}, {"ci", {iv.lo(), iv.hi()}}};
    }
    j["classes"].push_back(cj);
  }
  if (p.scenario.sla) {
    bool pass = true;
    j["targets"] = json::array();
    for (const auto& o : models::evaluate(*p.scenario.sla, p.tables)) {
      pass = pass && o.pass;
      j["targets"].push_back(reports::sla_outcome_json(p.scenario, o));
    }
    j["sla_holds"] = pass;
  }
  return j;
}

std::string grid_csv(const std::vector<axis>& axes, const std::vector<point_result>& points) {
  std::string out;
  for (const auto& ax : axes) out += ax.pointer + ",";
  out += "class,metric,estimate,ci_low,ci_high\n";
  for (const auto& p : points)
    for (std::int32_t c = -1; c < static_cast<std::int32_t>(p.scenario.classes.size()); ++c)
      for (auto m : reported) {
        auto iv = models::table_interval(p.tables, c, m, 0.95);
        for (double v : p.values) out += fmt::format("{},", v);
        out += fmt::format(
            "{},{},{},{},{}\n",
            c < 0 ? std::string("all") : p.scenario.classes[static_cast<std::size_t>(c)].name,
            models::to_string(m), reports::csv_number(iv.mean), reports::csv_number(iv.lo()),
            reports::csv_number(iv.hi()));
      }
  return out;
}

// The grid for people: one line per point and class, waits with their intervals.
std::string grid_table(const std::vector<axis>& axes, const std::vector<point_result>& points,
                       std::uint32_t reps) {
  std::string out = fmt::format("{} replications a point, 95% intervals\n\n", reps);
  std::size_t w = 10;
  for (const auto& ax : axes) w = std::max(w, ax.pointer.size());
  for (const auto& ax : axes) out += fmt::format("{:>{}} ", ax.pointer, w);
  out += fmt::format("{:<10} {:>26} {:>26} {:>24}   SLA\n", "class", "mean wait (s)",
                     "p95 wait (s)", "refused share");
  auto cell = [](const sim::interval& iv) {
    return reports::interval_text(iv.mean, iv.lo(), iv.hi());
  };
  for (const auto& p : points) {
    bool pass = true, failed = false;
    if (p.scenario.sla)
      for (const auto& o : models::evaluate(*p.scenario.sla, p.tables)) {
        pass = pass && o.pass;
        failed = failed || o.verdict == models::sla_verdict::fail;
      }
    const auto nc = static_cast<std::int32_t>(p.scenario.classes.size());
    for (std::int32_t c = nc > 1 ? -1 : 0; c < nc; ++c) {
      const bool first = c == (nc > 1 ? -1 : 0);
      for (std::size_t k = 0; k < axes.size(); ++k)
        out += first ? fmt::format("{:>{}} ", p.values[k], w) : fmt::format("{:>{}} ", "", w);
      out += fmt::format(
          "{:<10} {:>26} {:>26} {:>24}",
          c < 0 ? std::string("all") : p.scenario.classes[static_cast<std::size_t>(c)].name,
          cell(models::table_interval(p.tables, c, models::sla_metric::mean_wait_s, 0.95)),
          cell(models::table_interval(p.tables, c, models::sla_metric::p95_wait_s, 0.95)),
          cell(models::table_interval(p.tables, c, models::sla_metric::refused_share, 0.95)));
      // Not decided (no data, or users still waiting could change it) is not a failure.
      if (first && p.scenario.sla) out += pass ? "   holds" : failed ? "   fails" : "   undecided";
      out += "\n";
    }
  }
  return out;
}

}  // namespace

namespace {

std::vector<axis> sweep_axes(const common_args& a) {
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
    axes.push_back({pointer, parse_range(v.substr(eq + 1), "--vary " + v)});
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
  for (const auto& p : points) j["points"].push_back(point_json(axes, p));
  if (a.csv && !write_atomically(*a.csv, grid_csv(axes, points))) {
    fmt::print(stderr, "waitroom: {}: could not write the CSV file ({})\n", *a.csv,
               last_write_error());
    return exit_output;
  }
  if (a.html && write_html(*a.html, j, *a.scenario_path) != exit_ok) return exit_output;
  // A table on a terminal, JSON for files and pipes (what scripts have always read).
  const bool table = a.format.value_or(!a.out && ::isatty(1) ? "table" : "json") == "table";
  return write_or_print(a, table ? grid_table(axes, points, reps) : j.dump(2) + "\n");
}

// What a shard file must record to rebuild the grid at merge time.
json sweep_args(const common_args& a, std::uint32_t reps) {
  return {{"scenario", *a.scenario_path},
          {"sets", a.sets},
          {"vary", a.vary},
          {"replications", reps},
          {"seed", a.seed ? json(*a.seed) : json(nullptr)}};
}

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
    try {
      const auto& units = shards[i].at("units");
      if (!units.is_array())
        throw sim::input_error(paths[i] + ": /units", "an array of units", "something else");
      const auto k = shards[i].at("shard").get<std::size_t>();
      const auto n = shards[i].at("of").get<std::size_t>();
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
            units[u].at("table"), points[pt].scenario.classes.size() + 1, where + "/table");
      }
    } catch (const nlohmann::json::exception& e) {
      throw sim::input_error(paths[i], "a well-formed shard file written by waitroom", e.what());
    }
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
  for (std::size_t i = 0; i < shards.size(); ++i)
    if (shards[i]["scenario_sha256"] != ours)
      throw sim::input_error(
          paths[i],
          fmt::format("a shard of {} as it is now (scenario sha256 {})", scenario_file, ours),
          fmt::format("a shard of another scenario content (sha256 {}): the scenario or its "
                      "overrides changed since it ran",
                      shards[i]["scenario_sha256"].dump()));
}

int merge_plan(const common_args& m, const std::vector<std::string>& paths,
               const std::vector<json>& shards);

}  // namespace

int sweep_command(const std::vector<std::string>& args) {
  common_args a = parse_args("sweep", args, command_kind::sweep);
  if (!a.scenario_path) throw sim::input_error("waitroom sweep", "a SCENARIO file", "none");
  auto axes = sweep_axes(a);
  const std::uint32_t reps = replications_or(a, 5);
  shard_spec shard = parse_shard(a.shard);
  auto points = run_grid(a, axes, {}, reps, shard, true);
  if (!a.shard) return sweep_output(a, axes, points, reps);
  // A shard: this process's replications as metric tables, for `waitroom merge`.
  models::scenario base = load(a, a.scenario_path);
  if (a.seed) base.seed = *a.seed;
  json j{{"waitroom_shard", 1},         {"command", "sweep"},
         {"shard", shard.index},        {"of", shard.count},
         {"args", sweep_args(a, reps)}, {"scenario_sha256", scenario_hash(base)},
         {"units", json::array()}};
  j["sources"] = sources_json({*a.scenario_path});
  for (std::size_t i = 0; i < points.size(); ++i) {
    std::size_t k = 0;
    for (std::uint32_t r = 0; r < reps; ++r)
      if ((i * reps + r) % shard.count == shard.index)
        j["units"].push_back({{"point", i}, {"replication", r}, {"table", points[i].tables[k++]}});
  }
  return write_or_print(a, j.dump() + "\n");
}

int merge_command(const std::vector<std::string>& args) {
  common_args m = parse_args("merge", args, command_kind::merge);
  try {
    if (m.scenario_paths.empty()) throw sim::input_error("waitroom merge", "shard files", "none");
    std::vector<json> shards;
    for (const auto& path : m.scenario_paths) {
      json j = models::read_json_file(path);
      if (!j.is_object() || !j.contains("waitroom_shard") || !j.contains("units") ||
          !j.contains("args"))
        throw sim::input_error(path, "a shard file written by waitroom run, check or sweep --shard",
                               "something else");
      shards.push_back(std::move(j));
    }
    const auto& paths = m.scenario_paths;
    check_shard_set(paths, shards);   // one job's shards, each once
    adopt_sources(m, paths, shards);  // the scenarios they ran, not the files as they are now
    const std::string command = shards.front().value("command", "sweep");
    if (command == "run") return merge_run(m, paths, shards);
    if (command == "check") return merge_check(m, paths, shards);
    if (command == "plan") return merge_plan(m, paths, shards);
    if (command != "sweep")
      throw sim::input_error(paths[0] + ": /command", "run, check, plan or sweep",
                             "'" + command + "'");
    if (m.junit || m.format == "csv")
      throw sim::input_error(m.junit ? "--junit" : "--format csv",
                             "no --junit or --format csv for a sweep's shards (a sweep writes "
                             "its table or JSON, and --csv)",
                             m.junit ? "--junit" : "--format csv");
    // Rebuild the sweep's grid from its arguments, then fill in the tables.
    const json& args0 = shards.front()["args"];
    common_args a = m;
    a.scenario_path = args0["scenario"].get<std::string>();
    a.sets = args0["sets"].get<std::vector<std::string>>();
    a.vary = args0["vary"].get<std::vector<std::string>>();
    if (!args0["seed"].is_null()) a.seed = args0["seed"].get<std::uint64_t>();
    const auto reps = args0["replications"].get<std::uint32_t>();
    if (reps < 2 || reps > 100000)
      throw sim::input_error(paths[0] + ": /args/replications", "a number from 2 to 100000",
                             std::to_string(reps));
    if (shards.front().contains("scenario_sha256"))
      check_base_hash(paths, shards, *a.scenario_path, base_hash(a, load(a, a.scenario_path)));
    auto axes = sweep_axes(a);
    auto points = run_grid(a, axes, {}, reps, {}, false);
    fill_tables(paths, shards, points, reps);
    return sweep_output(a, axes, points, reps);
  } catch (const nlohmann::json::exception& e) {
    // The readers above name the file where they can; this is the last resort.
    std::string files;
    for (const auto& p : m.scenario_paths) files += (files.empty() ? "" : ", ") + p;
    fmt::print(stderr, "waitroom: merge: one of {} is damaged ({})\n", files, e.what());
    return exit_bad_input;
  }
}

// The closed form's verdict on a point's mean-wait targets (point values, no interval), or
// none where no closed form applies or no target is a mean wait it gives. The first guess
// of `plan`; other targets are not judged by it.
std::optional<bool> closed_form_holds(const models::scenario& s) {
  const auto est = models::analytic_for(s);
  if (!est.estimate && !est.unstable) return std::nullopt;
  bool any = false, holds = true;
  for (const auto& t : s.sla->targets) {
    if (t.metric != models::sla_metric::mean_wait_s) continue;
    double w = std::numeric_limits<double>::infinity();  // unstable: waits grow without bound
    if (est.estimate) {
      const auto& e = *est.estimate;
      if (t.user_class >= 0 && e.overall_only) continue;
      if (t.user_class >= 0) {
        w = e.mean_wait_s[static_cast<std::size_t>(t.user_class)];
      } else if (e.overall_only) {
        w = e.mean_wait_s[0];
      } else {  // everyone: the classes' waits weighted by their arrival shares
        double sum = 0, shares = 0;
        for (std::size_t c = 0; c < s.classes.size(); ++c) {
          sum += s.classes[c].share * e.mean_wait_s[c];
          shares += s.classes[c].share;
        }
        w = sum / shares;
      }
    }
    any = true;
    if ((t.max && w > *t.max) || (t.min && w < *t.min)) holds = false;
  }
  if (!any) return std::nullopt;
  return holds;
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
  std::vector<axis> axes;
  for (std::size_t k = 0; k < a.knobs.size(); ++k) {
    if (a.knobs[k].empty() || a.knobs[k][0] != '/')
      throw sim::input_error("--knob " + a.knobs[k], "a JSON pointer", "'" + a.knobs[k] + "'");
    for (const auto& ax : axes)
      if (ax.pointer == a.knobs[k])
        throw sim::input_error("--knob " + a.knobs[k], "two different knobs",
                               "'" + a.knobs[k] + "' twice");
    axes.push_back({a.knobs[k], parse_range(a.ranges[k], "--range " + a.ranges[k])});
  }
  std::vector<std::pair<std::string, std::function<double(double)>>> ties;
  for (const auto& t : a.ties) {
    auto eq = t.find('=');
    if (t.empty() || t[0] != '/' || eq == std::string::npos)
      throw sim::input_error("--tie " + t, "/pointer=EXPR (EXPR in x, the first knob)",
                             "'" + t + "'");
    ties.emplace_back(t.substr(0, eq), parse_tie(t.substr(eq + 1), "--tie " + t));
  }
  models::scenario base = load(a, a.scenario_path);
  if (!base.sla)
    throw sim::input_error(*a.scenario_path + ": /sla", "an sla block to plan for", "none");
  if (a.search && axes.size() != 1)
    throw sim::input_error("--search", "one --knob (the search bisects along it)",
                           fmt::format("{} knobs", axes.size()));
  // --replications overrides the sla block's count for every point.
  const std::uint32_t reps = replications_or(a, base.sla->replications);
  plan_setup out{axes, base, run_grid(a, axes, ties, reps, {}, false), {}, false, reps};
  for (const auto& p : out.points) {
    out.guess.push_back(closed_form_holds(p.scenario));
    out.any_guess = out.any_guess || out.guess.back().has_value();
  }
  return out;
}

bool point_holds(const point_result& p) {
  bool pass = true;
  for (const auto& o : models::evaluate(*p.scenario.sla, p.tables)) pass = pass && o.pass;
  return pass;
}

// The plan's table (or map), verdict lines and CSV from the points simulated (ran[i]): the
// same bytes for a plan and for `merge` of its shards.
int plan_render(const common_args& a, const plan_setup& setup, const std::vector<bool>& ran,
                const std::string& search_note) {
  // Plain references, not a structured binding: clang 14 (the fuzz build) cannot capture
  // those in a lambda.
  const auto& axes = setup.axes;
  const auto& base = setup.base;
  const auto& points = setup.points;
  const auto& guess = setup.guess;
  const bool any_guess = setup.any_guess;
  const auto reps = setup.reps;
  auto sla_holds = point_holds;
  std::string out =
      fmt::format("{}: {} targets at {:.0f}% confidence, {} replications a point\n", base.name,
                  base.sla->targets.size(), base.sla->confidence * 100, reps);
  std::vector<bool> holds;
  for (std::size_t i = 0; i < points.size(); ++i) holds.push_back(ran[i] && sla_holds(points[i]));
  std::vector<bool> pareto(points.size(), false);
  if (axes.size() == 1) {
    // Mean waits of the first two classes, and which points are Pareto-optimal for them.
    const std::size_t nc = std::min<std::size_t>(2, base.classes.size());
    auto mean = [&](std::size_t i, std::size_t c) {
      return models::table_interval(points[i].tables, static_cast<std::int32_t>(c),
                                    models::sla_metric::mean_wait_s, base.sla->confidence);
    };
    // One column per SLA target: its metric's estimate and interval, "!" where it fails, so a
    // "fails" row says which target failed and by how much.
    const auto& targets = base.sla->targets;
    std::vector<std::string> target_heads;
    std::size_t width = 24;
    for (const auto& t : targets) {
      std::string h = fmt::format(
          "{} {} {}",
          t.user_class < 0 ? "all" : base.classes[static_cast<std::size_t>(t.user_class)].name,
          models::to_string(t.metric),
          t.max ? fmt::format("<= {}", *t.max) : fmt::format(">= {}", *t.min));
      width = std::max(width, h.size());
      target_heads.push_back(std::move(h));
    }
    out += fmt::format("\nknob {}\n{:>12}", axes[0].pointer, "value");
    for (const auto& h : target_heads) out += fmt::format(" {:>{}}", h, width);
    out += "   SLA   Pareto";
    out += any_guess ? "  closed form\n" : "\n";
    std::vector<double> feasible;
    std::size_t simulated = 0;
    for (std::size_t i = 0; i < points.size(); ++i) {
      if (!ran[i]) continue;
      ++simulated;
      bool dominated = false;
      for (std::size_t k = 0; k < points.size() && nc == 2 && !dominated; ++k) {
        if (k == i || !ran[k]) continue;
        double a0 = mean(k, 0).mean, a1 = mean(k, 1).mean, b0 = mean(i, 0).mean,
               b1 = mean(i, 1).mean;
        dominated = a0 <= b0 && a1 <= b1 && (a0 < b0 || a1 < b1);
      }
      out += fmt::format("{:>12}", points[i].values[0]);
      for (const auto& o : models::evaluate(*points[i].scenario.sla, points[i].tables))
        out += fmt::format(
            " {:>{}}",
            fmt::format("{}{}",
                        reports::interval_text(o.estimate.mean, o.estimate.lo(), o.estimate.hi()),
                        o.pass                                        ? "  "
                        : o.verdict == models::sla_verdict::undecided ? " ?"
                                                                      : " !"),
            width);
      pareto[i] = nc == 2 && !dominated;
      out += fmt::format("   {:<5} {:<6}", holds[i] ? "holds" : "fails", pareto[i] ? "*" : "");
      if (any_guess) out += !guess[i] ? "  -" : *guess[i] ? "  holds" : "  fails";
      while (!out.empty() && out.back() == ' ') out.pop_back();
      out += "\n";
      if (holds[i]) feasible.push_back(points[i].values[0]);
    }
    out += fmt::format(
        "(each target: estimate [{:.0f}% interval], ! where it fails, ? where it is undecided "
        "(users still waiting at the end, or no data); Pareto: on the "
        "mean waits of the first two classes)\n",
        base.sla->confidence * 100);
    if (any_guess) {
      // The closed form judges the mean-wait targets only, from point values.
      std::vector<double> guessed;
      for (std::size_t i = 0; i < points.size(); ++i)
        if (guess[i] == true) guessed.push_back(points[i].values[0]);
      out +=
          guessed.empty()
              ? "\nclosed-form first guess: no value meets the mean-wait targets\n"
              : fmt::format("\nclosed-form first guess: the mean-wait targets hold from {} to {}\n",
                            guessed.front(), guessed.back());
    }
    if (a.search) {
      out += "\n" + search_note;
      if (search_note.rfind("every SLA holds", 0) == 0) {
        // The bisection's answer stands; the table shows the values it simulated.
      } else if (feasible.empty()) {
        out += fmt::format("no value of {} in the range meets every SLA\n", axes[0].pointer);
      }
    }
    if (!a.search || search_note.rfind("every SLA holds", 0) != 0) {
      if (feasible.empty()) {
        if (!a.search)
          out += fmt::format("\nno value of {} in the range meets every SLA\n", axes[0].pointer);
      } else {
        auto first = std::find(holds.begin(), holds.end(), true);
        auto last = std::find(holds.rbegin(), holds.rend(), true).base();
        bool contiguous = std::find(first, last, false) == last;
        out += fmt::format("\nevery SLA holds for {} from {} to {} ({} of {} values tried{})\n",
                           axes[0].pointer, feasible.front(), feasible.back(), feasible.size(),
                           simulated, contiguous ? "" : "; not contiguous, see the table");
      }
    }
  } else {
    out += fmt::format("\nfeasible region (rows {}, columns {}; # = every SLA holds):\n",
                       axes[0].pointer, axes[1].pointer);
    out += fmt::format("{:>10} ", "");
    for (double v : axes[1].values) out += fmt::format("{:>8}", v);
    out += "\n";
    for (std::size_t r = 0; r < axes[0].values.size(); ++r) {
      out += fmt::format("{:>10} ", axes[0].values[r]);
      for (std::size_t c = 0; c < axes[1].values.size(); ++c)
        out += fmt::format("{:>8}", holds[r * axes[1].values.size() + c] ? "#" : ".");
      out += "\n";
    }
  }
  std::vector<point_result> simulated_points;  // --search: only the values it simulated
  for (std::size_t i = 0; i < points.size(); ++i)
    if (ran[i]) simulated_points.push_back(points[i]);
  if (a.csv && !write_atomically(*a.csv, grid_csv(axes, simulated_points))) {
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
      json pj = point_json(axes, points[i]);
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
                           "last verdict, so its work cannot be split in advance; shard the grid "
                           "plan, or each probe's replications with check --shard)",
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
  json j{{"waitroom_shard", 1},   {"command", "plan"},
         {"shard", shard.index},  {"of", shard.count},
         {"args", plan_args(a)},  {"scenario_sha256", base_hash(a, setup.base)},
         {"units", json::array()}};
  j["sources"] = sources_json({*a.scenario_path});
  for (std::size_t i = 0; i < setup.points.size(); ++i) {
    std::size_t k = 0;
    for (std::uint32_t r = 0; r < reps; ++r)
      if (shard.mine(i * reps + r))
        j["units"].push_back(
            {{"point", i}, {"replication", r}, {"table", setup.points[i].tables[k++]}});
  }
  return write_or_print(a, j.dump() + "\n");
}

int merge_plan(const common_args& m, const std::vector<std::string>& paths,
               const std::vector<json>& shards) {
  if (m.junit || m.format == "csv")
    throw sim::input_error(m.junit ? "--junit" : "--format csv",
                           "no --junit or --format csv for a plan's shards (a plan writes its "
                           "table or JSON, and --csv)",
                           m.junit ? "--junit" : "--format csv");
  const json& args = shards.front()["args"];
  common_args a = m;
  a.scenario_path = args["scenario"].get<std::string>();
  a.sets = args["sets"].get<std::vector<std::string>>();
  a.knobs = args["knobs"].get<std::vector<std::string>>();
  a.ranges = args["ranges"].get<std::vector<std::string>>();
  a.ties = args["ties"].get<std::vector<std::string>>();
  if (!args["seed"].is_null()) a.seed = args["seed"].get<std::uint64_t>();
  a.replications = args.value("replications", 1u);
  a.replications_given = a.replications > 1;  // recorded as 1 when the flag was not given
  plan_setup setup = plan_prepare(a);
  check_base_hash(paths, shards, *a.scenario_path, base_hash(a, setup.base));
  fill_tables(paths, shards, setup.points, setup.reps);
  return plan_render(a, setup, std::vector<bool>(setup.points.size(), true), "");
}

}  // namespace

int plan_command(const std::vector<std::string>& args) {
  common_args a = parse_args("plan", args, command_kind::plan);
  plan_setup setup = plan_prepare(a);
  if (a.shard) return plan_shard(a, setup);
  auto& points = setup.points;
  const auto& axes = setup.axes;
  const auto& guess = setup.guess;
  auto sla_holds = point_holds;
  // Which points were simulated: all of them, or (--search) those the bisection needed.
  std::vector<bool> ran(points.size(), false);
  std::string search_note;
  auto simulate = [&](std::size_t i) {
    if (ran[i]) return sla_holds(points[i]);
    run_point(a, points[i], i, setup.reps, {});
    ran[i] = true;
    return sla_holds(points[i]);
  };
  std::optional<std::size_t> start;  // a point the closed form says meets the mean-wait targets
  if (a.search) {
    std::vector<std::size_t> good;
    for (std::size_t i = 0; i < guess.size(); ++i)
      if (guess[i] == true) good.push_back(i);
    if (!good.empty()) start = good[good.size() / 2];
    if (!start)
      search_note = "no closed-form first guess here: every value was simulated\n";
    else if (!simulate(*start))
      search_note =
          fmt::format("the first guess ({}) fails in simulation: every value was simulated\n",
                      points[*start].values[0]);
  }
  if (a.search && search_note.empty()) {
    // Bisection on each side of the first guess, assuming the values where every SLA holds
    // form one interval.
    std::size_t left = 0, right = points.size() - 1;
    if (!simulate(0)) {
      std::size_t bad = 0, ok = *start;
      while (ok - bad > 1) {
        const std::size_t mid = bad + (ok - bad) / 2;
        (simulate(mid) ? ok : bad) = mid;
      }
      left = ok;
    }
    if (!simulate(points.size() - 1)) {
      std::size_t ok = *start, bad = points.size() - 1;
      while (bad - ok > 1) {
        const std::size_t mid = ok + (bad - ok) / 2;
        (simulate(mid) ? ok : bad) = mid;
      }
      right = ok;
    }
    std::size_t simulated = 0;
    for (bool r : ran) simulated += r;
    search_note = fmt::format(
        "every SLA holds for {} from {} to {} (bisection from the closed form's first guess "
        "{}: {} of {} values simulated; it assumes the values where every SLA holds form one "
        "interval)\n",
        axes[0].pointer, points[left].values[0], points[right].values[0], points[*start].values[0],
        simulated, points.size());
  } else {
    progress bar(points.size(), a.quiet);
    for (std::size_t i = 0; i < points.size(); ++i) {
      simulate(i);
      bar.advance();
    }
  }
  return plan_render(a, setup, ran, search_note);
}

}  // namespace waitroom::cli
