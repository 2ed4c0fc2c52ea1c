#include "grid.hpp"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "models/planning/grid.hpp"
#include "models/sla/sla.hpp"
#include "progress.hpp"
#include "scenario_loading.hpp"
#include "sim/input_error.hpp"

namespace waitroom::cli {

using nlohmann::json;

namespace {

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

}  // namespace

models::point_loader point_loader(const common_args& a) {
  return [a](const std::vector<std::string>& assignments) {
    common_args pa = a;
    pa.sets.insert(pa.sets.end(), assignments.begin(), assignments.end());
    return load(pa, a.scenario_path);
  };
}

// Runs this shard's replications of grid point i.
void run_point(const common_args& a, point_result& p, std::size_t i, std::uint32_t replications,
               shard_spec shard) {
  std::vector<std::uint32_t> mine;
  for (std::uint32_t r = 0; r < replications; ++r)
    if ((i * replications + r) % shard.count == shard.index) mine.push_back(r);
  models::run_replications(p, mine, threads_or_cores(a.threads));
}

// Builds every point of the grid (the cartesian product of the axes, first axis outermost)
// and runs this shard's replications of each.
std::vector<point_result> run_grid(const common_args& a, const std::vector<axis>& axes,
                                   const tie_list& ties, std::uint32_t replications,
                                   shard_spec shard, bool run) {
  const std::size_t total = models::planning::grid_size(axes);
  if (total > 100000)
    throw sim::input_error("--vary", "at most 100,000 grid points", std::to_string(total));
  std::vector<point_result> out = models::grid_points(axes, ties, point_loader(a), a.seed);
  if (!run) return out;
  progress bar(total, a.quiet);
  for (std::size_t i = 0; i < total; ++i) {
    run_point(a, out[i], i, replications, shard);
    bar.step(i + 1);
  }
  return out;
}

// The content hash of a plan's (or sweep's) base scenario, seed applied.
std::string base_hash(const common_args& a, models::scenario base) {
  if (a.seed) base.seed = *a.seed;
  return scenario_hash(base);
}

int write_grid_shard(const common_args& a, const char* command, shard_spec shard, json args,
                     const models::scenario& base, const std::vector<point_result>& points,
                     std::uint32_t reps) {
  json j = shard_header(command, shard, std::move(args), base_hash(a, base));
  j["sources"] = sources_json({*a.scenario_path});
  for (std::size_t i = 0; i < points.size(); ++i) {
    std::size_t k = 0;
    for (std::uint32_t r = 0; r < reps; ++r)
      if (shard.mine(i * reps + r))
        j["units"].push_back({{"point", i}, {"replication", r}, {"table", points[i].tables[k++]}});
  }
  return write_shard(a, std::move(j));
}

shard_args::shard_args(const std::string& path, const json& shard) : path_(path) {
  const auto it = shard.find("args");  // merge_shards checked that it is there
  if (!it->is_object()) throw sim::input_error(path + ": /args", "an object", it->dump());
  args_ = &*it;
}

const json& shard_args::at(const char* key) const {
  const auto it = args_->find(key);
  if (it == args_->end())
    throw sim::input_error(where(key), "the value the shard's command ran with", "none");
  return *it;
}

std::string shard_args::text(const char* key) const {
  const json& j = at(key);
  if (!j.is_string()) throw sim::input_error(where(key), "a string", j.dump());
  return j.get<std::string>();
}

std::vector<std::string> shard_args::texts(const char* key) const {
  const json& j = at(key);
  if (!j.is_array() ||
      !std::all_of(j.begin(), j.end(), [](const json& x) { return x.is_string(); }))
    throw sim::input_error(where(key), "an array of strings", j.dump());
  return j.get<std::vector<std::string>>();
}

std::optional<std::uint64_t> shard_args::seed() const {
  if (at("seed").is_null()) return std::nullopt;
  return number<std::uint64_t>("seed");
}

common_args grid_merge_args(const common_args& m, const std::vector<std::string>& paths,
                            const std::vector<json>& shards, const char* command,
                            const std::function<void(const shard_args&, common_args&)>& own) {
  if (m.junit)
    throw sim::input_error("--junit",
                           fmt::format("no --junit for a {0}'s shards (a {0} writes its table or "
                                       "JSON, and --csv)",
                                       command),
                           "--junit");
  const shard_args args(paths[0], shards.front());
  common_args a = m;
  a.scenario_path = args.text("scenario");
  a.sets = args.texts("sets");
  own(args, a);
  a.seed = args.seed();
  return a;
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

void fill_from_shards(const std::vector<std::string>& paths, const std::vector<json>& shards,
                      std::vector<point_result>& points, std::uint32_t reps) {
  fill_tables(paths, shards, points, reps);
  check_content_hashes(paths, shards);
}

}  // namespace waitroom::cli
