// `waitroom sweep`: a grid over any JSON pointers, each point run as independent replications
// on common random numbers (every point uses the same seed), and `merge` of its shards.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "grid.hpp"
#include "models/planning/grid.hpp"
#include "options.hpp"
#include "output_file.hpp"
#include "output_writer.hpp"
#include "report_command.hpp"
#include "reports/plan_report.hpp"
#include "scenario_loading.hpp"
#include "shard.hpp"
#include "sim/input_error.hpp"
#include "version.hpp"

namespace waitroom::cli {

namespace {

using nlohmann::json;

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
  const json j = reports::sweep_json(axes, points, reps, version);
  if (a.csv && !write_atomically(*a.csv, reports::grid_csv(axes, points))) {
    fmt::print(stderr, "waitroom: {}: could not write the CSV file ({})\n", *a.csv,
               last_write_error());
    return exit_output;
  }
  if (a.html && write_html(*a.html, j, *a.scenario_path) != exit_ok) return exit_output;
  return write_result(a.out, format_of(a),
                      {.table = [&] { return reports::sweep_table(axes, points, reps); },
                       .json = [&] { return j.dump(2) + "\n"; }});
}

// What a shard file must record to rebuild the grid at merge time.
json sweep_args(const common_args& a, std::uint32_t reps) {
  return {{"scenario", *a.scenario_path},
          {"sets", a.sets},
          {"vary", a.vary},
          {"replications", reps},
          {"seed", a.seed ? json(*a.seed) : json(nullptr)}};
}

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
  return write_grid_shard(a, "sweep", shard, sweep_args(a, reps), load(a, a.scenario_path), points,
                          reps);
}

int merge_sweep(const common_args& m, const std::vector<std::string>& paths,
                const std::vector<json>& shards) {
  // Rebuild the sweep's grid from its arguments, then fill in the tables.
  const common_args a = grid_merge_args(
      m, paths, shards, "sweep",
      [](const shard_args& args, common_args& to) { to.vary = args.texts("vary"); });
  const auto reps = shard_args(paths[0], shards.front()).number<std::uint32_t>("replications");
  if (reps < 2 || reps > 100000)
    throw sim::input_error(paths[0] + ": /args/replications", "a number from 2 to 100000",
                           std::to_string(reps));
  check_base_hash(paths, shards, *a.scenario_path, base_hash(a, load(a, a.scenario_path)));
  auto axes = sweep_axes(a, load(a, a.scenario_path));
  auto points = run_grid(a, axes, {}, reps, {}, false);
  fill_from_shards(paths, shards, points, reps);
  return sweep_output(a, axes, points, reps);
}

}  // namespace waitroom::cli
