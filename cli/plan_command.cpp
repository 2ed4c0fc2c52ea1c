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
#include "models/planning/grid.hpp"
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

using models::plan_state;

plan_state plan_prepare(const common_args& a) {
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
    ties.push_back({t.substr(0, eq), models::planning::parse_tie(t.substr(eq + 1), "--tie " + t),
                    "--tie " + t.substr(0, eq)});
  }
  if (!base.sla)
    throw sim::input_error(*a.scenario_path + ": /sla", "an sla block to plan for", "none");
  if (a.search && axes.size() != 1)
    throw sim::input_error("--search", "one --knob (the search bisects along it)",
                           fmt::format("{} knobs", axes.size()));
  // --replications overrides the sla block's count for every point.
  const std::uint32_t reps = replications_or(a, base.sla->replications);
  const std::size_t total = models::planning::grid_size(axes);
  if (total > 100000)
    throw sim::input_error("--vary", "at most 100,000 grid points", std::to_string(total));
  return models::prepare_plan(std::move(axes), std::move(ties), std::move(base), reps,
                              point_loader(a), a.seed);
}

// The plan's table (or map), verdict lines and CSV from the points simulated: the same bytes
// for a plan and for `merge` of its shards.
int plan_render(const common_args& a, const plan_state& setup) {
  if (a.csv && !write_atomically(*a.csv, reports::plan_csv(setup))) {
    fmt::print(stderr, "waitroom: {}: could not write the CSV file ({})\n", *a.csv,
               last_write_error());
    return exit_output;
  }
  std::optional<json> data;  // for --html and the json renderer, made once
  auto data_json = [&]() -> const json& {
    if (!data) data = reports::plan_json(setup, a.seed.value_or(setup.base.seed), a.ties, version);
    return *data;
  };
  if (a.html && write_html(*a.html, data_json(), *a.scenario_path) != exit_ok) return exit_output;
  return write_result(a.out, format_of(a),
                      {.table = [&] { return reports::plan_text(setup); },
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
int plan_shard(const common_args& a, plan_state& setup) {
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
  plan_state setup = plan_prepare(a);
  check_base_hash(paths, shards, *a.scenario_path, base_hash(a, setup.base));
  fill_from_shards(paths, shards, setup.points, setup.reps);
  // The search past the grid follows each verdict, so it runs here, as the unsharded plan ran
  // it: the same values on the same seed, the same bytes.
  setup.ran.assign(setup.points.size(), true);
  models::plan_run how;
  how.threads = threads_or_cores(a.threads);
  models::search_past_grid(setup, point_loader(a), a.seed, how);
  return plan_render(a, setup);
}

int plan_command(const std::vector<std::string>& args) {
  common_args a = parse_args("plan", args, command_kind::plan);
  plan_state setup = plan_prepare(a);
  if (a.shard) return plan_shard(a, setup);
  std::optional<progress> bar;  // when every value is simulated: a step each, then gone
  std::size_t done = 0;
  models::simulate_plan(setup, a.search, point_loader(a), a.seed,
                        {.threads = threads_or_cores(a.threads),
                         .on_sweep = [&] { bar.emplace(setup.grid_points, a.quiet); },
                         .on_point =
                             [&] {
                               bar->advance();
                               if (++done == setup.grid_points) bar.reset();
                             },
                         .stop = nullptr});
  return plan_render(a, setup);
}

}  // namespace waitroom::cli
