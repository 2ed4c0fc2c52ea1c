// `waitroom plan`: the settings of one or two knobs where every SLA of the scenario holds, on
// confidence bounds (a grid, or --search's bisection), and `merge` of a grid plan's shards.
#include <algorithm>
#include <functional>
#include <optional>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "grid.hpp"
#include "models/planning/capacity.hpp"
#include "models/planning/first_guess.hpp"
#include "models/planning/grid.hpp"
#include "models/planning/pareto.hpp"
#include "models/planning/search.hpp"
#include "options.hpp"
#include "output_file.hpp"
#include "output_writer.hpp"
#include "progress.hpp"
#include "report_command.hpp"
#include "reports/plan_report.hpp"
#include "scenario_loading.hpp"
#include "shard.hpp"
#include "sim/input_error.hpp"
#include "version.hpp"

namespace waitroom::cli {

namespace {

using nlohmann::json;

// A plan's grid, its points' scenarios (not yet simulated) and the closed form's guesses.
struct plan_setup {
  std::vector<axis> axes;
  models::scenario base;
  std::vector<point_result> points;
  std::vector<std::optional<bool>> guess;
  bool any_guess = false;
  std::uint32_t reps = 0;  // a point's replications: --replications, else the sla block's
  tie_list ties;
  std::size_t grid_points = 0;  // the grid's; points past it were simulated past the grid
  std::string capacity_note;    // what the search past the grid found
  nlohmann::json past_grid;     // the same, for the JSON (null: no search)
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
  tie_list ties;
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
  plan_setup out{axes, base,   run_grid(a, axes, ties, reps, {}, false), {}, false, reps, ties, 0,
                 "",   nullptr};
  out.grid_points = out.points.size();
  for (const auto& p : out.points) {
    out.guess.push_back(models::planning::closed_form_holds(p.scenario));
    out.any_guess = out.any_guess || out.guess.back().has_value();
  }
  return out;
}

// The plan as data: every simulated point with each SLA target's interval and verdict.
json plan_json(const common_args& a, const plan_setup& setup, const std::vector<bool>& ran,
               const std::vector<bool>& pareto) {
  const auto& [axes, base, points, guess, any_guess, reps, ties, grid_points, capacity_note,
               past_grid] = setup;
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
  if (!past_grid.is_null()) j["past_grid"] = past_grid;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (!ran[i]) continue;
    json pj = reports::point_json(axes, points[i]);
    if (axes.size() == 1) pj["pareto"] = static_cast<bool>(pareto[i]);
    if (guess[i]) pj["closed_form_holds"] = *guess[i];
    if (i >= grid_points) pj["past_grid"] = true;
    j["points"].push_back(std::move(pj));
  }
  return j;
}

// The plan's table (or map), verdict lines and CSV from the points simulated (ran[i]): the
// same bytes for a plan and for `merge` of its shards.
int plan_render(const common_args& a, const plan_setup& setup, const std::vector<bool>& ran,
                const std::string& search_note) {
  const auto& [axes, base, points, guess, any_guess, reps, ties, grid_points, capacity_note,
               past_grid] = setup;
  const std::vector<bool> pareto = axes.size() == 1
                                       ? models::planning::mean_wait_front(
                                             points, ran, base.classes.size(), base.sla->confidence)
                                       : std::vector<bool>(points.size(), false);
  std::vector<point_result> simulated_points;  // --search: only the values it simulated
  for (std::size_t i = 0; i < points.size(); ++i)
    if (ran[i]) simulated_points.push_back(points[i]);
  if (a.csv && !write_atomically(*a.csv, reports::grid_csv(axes, simulated_points))) {
    fmt::print(stderr, "waitroom: {}: could not write the CSV file ({})\n", *a.csv,
               last_write_error());
    return exit_output;
  }
  std::optional<json> data;  // for --html and the json renderer, made once
  auto data_json = [&]() -> const json& {
    if (!data) data = plan_json(a, setup, ran, pareto);
    return *data;
  };
  if (a.html && write_html(*a.html, data_json(), *a.scenario_path) != exit_ok) return exit_output;
  return write_result(
      a.out, format_of(a),
      {.table =
           [&] {
             // setup's members, not the bindings: clang 14 captures none
             return reports::plan_table({setup.axes, setup.base, setup.points, setup.guess,
                                         setup.any_guess, setup.reps, ran, pareto, a.search,
                                         search_note, setup.grid_points, setup.capacity_note});
           },
       .json = [&] { return data_json().dump(2) + "\n"; }});
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
  if ((a.format && *a.format != output_format::json) || a.html)
    throw sim::input_error(a.html ? "--html" : "--format",
                           "no --format table or --html with --shard (a shard file is JSON; give "
                           "them to `waitroom merge`)",
                           a.html ? "--html" : "'" + std::string(to_string(*a.format)) + "'");
  const shard_spec shard = parse_shard(a.shard);
  const auto reps = setup.reps;
  progress bar(setup.points.size(), a.quiet);
  for (std::size_t i = 0; i < setup.points.size(); ++i) {
    run_point(a, setup.points[i], i, reps, shard);
    bar.step(i + 1);
  }
  return write_grid_shard(a, "plan", shard, plan_args(a), setup.base, setup.points, reps);
}

// No value of the grid meets every SLA and the knob adds capacity: simulate past the grid's
// top for the least value that does (points appended after the grid's, marked past_grid).
void search_past_grid(const common_args& a, plan_setup& setup, std::vector<bool>& ran) {
  if (setup.axes.size() != 1) return;
  const auto& ax = setup.axes[0];
  const auto unit = models::planning::capacity_unit(ax.pointer);
  if (!unit) return;
  double top = 0;
  for (std::size_t i = 0; i < setup.grid_points; ++i) {
    if (!ran[i]) continue;
    if (models::planning::point_holds(setup.points[i])) return;
    top = std::max(top, setup.points[i].values[0]);
  }
  std::vector<point_result> probes;
  const auto outcome =
      models::planning::least_capacity(top, integer_knob(setup.base, ax.pointer), [&](double v) {
        const std::vector<axis> one{{ax.pointer, {v}, "past the grid: " + ax.pointer}};
        auto p = run_grid(a, one, setup.ties, setup.reps, {}, false);
        run_point(a, p.front(), 0, setup.reps, {});
        probes.push_back(std::move(p.front()));
        return models::planning::point_holds(probes.back());
      });
  std::sort(probes.begin(), probes.end(),
            [](const point_result& x, const point_result& y) { return x.values[0] < y.values[0]; });
  for (auto& p : probes) {
    setup.guess.push_back(models::planning::closed_form_holds(p.scenario));
    setup.any_guess = setup.any_guess || setup.guess.back().has_value();
    setup.points.push_back(std::move(p));
    ran.push_back(true);
  }
  std::optional<double> fluid;
  if (ax.pointer == "/release/rate_per_s") fluid = models::planning::fluid_least_rate(setup.base);
  setup.capacity_note = reports::capacity_note(outcome, ax.pointer, *unit, fluid, setup.reps,
                                               setup.base.sla->confidence);
  setup.past_grid = {{"unit", *unit},
                     {"found", outcome.found},
                     {"least", outcome.found ? json(outcome.holds_at) : json(nullptr)},
                     {"fails_at", outcome.fails_at},
                     {"step", outcome.step},
                     {"simulated", outcome.tried.size()},
                     {"fluid_lower_bound", fluid ? json(*fluid) : json(nullptr)}};
}

}  // namespace

int merge_plan(const common_args& m, const std::vector<std::string>& paths,
               const std::vector<json>& shards) {
  common_args a =
      grid_merge_args(m, paths, shards, "plan", [](const shard_args& args, common_args& to) {
        to.knobs = args.texts("knobs");
        to.ranges = args.texts("ranges");
        to.ties = args.texts("ties");
      });
  const shard_args args(paths[0], shards.front());
  a.replications = args.has("replications") ? args.number<std::uint32_t>("replications") : 1u;
  a.replications_given = a.replications > 1;  // recorded as 1 when the flag was not given
  plan_setup setup = plan_prepare(a);
  check_base_hash(paths, shards, *a.scenario_path, base_hash(a, setup.base));
  fill_from_shards(paths, shards, setup.points, setup.reps);
  // The search past the grid follows each verdict, so it runs here, as the unsharded plan ran
  // it: the same values on the same seed, the same bytes.
  std::vector<bool> ran(setup.points.size(), true);
  search_past_grid(a, setup, ran);
  return plan_render(a, setup, ran, "");
}

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
  search_past_grid(a, setup, ran);
  return plan_render(a, setup, ran, search_note);
}

}  // namespace waitroom::cli
