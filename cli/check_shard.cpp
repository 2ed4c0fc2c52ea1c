// `check --shard K/N` and `merge` of its shards: each (scenario, replication) unit's metric
// table.
#include <fmt/format.h>

#include "check_command.hpp"
#include "models/room/room.hpp"
#include "output_writer.hpp"
#include "scenario_loading.hpp"
#include "shard.hpp"
#include "sim/input_error.hpp"
#include "sim/parallel.hpp"

namespace waitroom::cli {

using nlohmann::json;

namespace {

// check's units: replication r of scenario i is unit offset[i] + r.
std::vector<std::size_t> check_offsets(const std::vector<models::scenario>& scenarios) {
  std::vector<std::size_t> offset{0};
  for (const auto& s : scenarios) offset.push_back(offset.back() + s.sla->replications);
  return offset;
}

}  // namespace

int check_shard(const common_args& a, const std::vector<models::scenario>& scenarios) {
  const shard_spec shard = parse_shard(a.shard);
  // A shard holds tables, not verdicts: the verdict's outputs are chosen at merge.
  if ((a.format && *a.format != output_format::json) || a.html || a.junit)
    throw sim::input_error(a.html    ? "--html"
                           : a.junit ? "--junit"
                                     : "--format",
                           "none of --format table|csv, --html or --junit with --shard (a shard "
                           "file is JSON; give them to `waitroom merge`)",
                           a.html    ? "--html"
                           : a.junit ? "--junit"
                                     : "'" + std::string(to_string(*a.format)) + "'");
  const auto offset = check_offsets(scenarios);
  std::vector<std::pair<std::size_t, std::uint32_t>> mine;  // (scenario, replication)
  for (std::size_t i = 0; i < scenarios.size(); ++i)
    for (std::uint32_t r = 0; r < scenarios[i].sla->replications; ++r)
      if (shard.mine(offset[i] + r)) mine.emplace_back(i, r);
  std::vector<models::metric_table> tables(mine.size());
  sim::parallel_for(mine.size(), threads_or_cores(a.threads), [&](std::size_t k) {
    const auto& s = scenarios[mine[k].first];
    tables[k] = models::tabulate(models::run_scenario(s, s.seed, mine[k].second));
  });
  json hashes = json::array();
  for (const auto& s : scenarios) hashes.push_back(scenario_hash(s));
  json args{{"scenarios", a.scenario_paths},
            {"sets", a.sets},
            {"seed", a.seed ? json(*a.seed) : json(nullptr)}};
  json j = shard_header("check", shard, std::move(args), std::move(hashes));
  j["sources"] = sources_json(a.scenario_paths);
  for (std::size_t k = 0; k < mine.size(); ++k)
    j["units"].push_back(
        {{"scenario", mine[k].first}, {"replication", mine[k].second}, {"table", tables[k]}});
  return write_shard(a, std::move(j));
}

int merge_check(const common_args& m, const std::vector<std::string>& paths,
                const std::vector<json>& shards) {
  if (m.csv)
    throw sim::input_error("--csv", "no --csv for check shards (use --format csv)", "--csv");
  common_args a = m;
  in_shard(paths[0], shards.front(), [&] {
    const json& args = field(shards.front(), "args");
    a.sets = texts(field(args, "sets"));
    a.scenario_paths = texts(field(args, "scenarios"));
    a.seed.reset();
    if (!field(args, "seed").is_null()) a.seed = whole<std::uint64_t>(field(args, "seed"));
  });
  std::vector<models::scenario> scenarios;
  for (const auto& p : a.scenario_paths) {
    scenarios.push_back(load(a, p));
    if (!scenarios.back().sla)
      throw sim::input_error(p + ": /sla", "an sla block to check", "none");
    if (a.seed) scenarios.back().seed = *a.seed;
  }
  for (std::size_t i = 0; i < shards.size(); ++i)
    for (std::size_t k = 0; k < scenarios.size(); ++k)
      check_hash(paths[i], shards[i], k, scenarios[k], a.scenario_paths[k]);
  const auto offset = check_offsets(scenarios);
  auto unit_of = [&](const json& u, const std::string& where) {
    const auto i = unit_index(u, "scenario", scenarios.size(), where);
    return offset[i] + unit_index(u, "replication", scenarios[i].sla->replications, where);
  };
  check_units(paths, shards, offset.back(), unit_of);
  std::vector<std::vector<models::metric_table>> tables(scenarios.size());
  for (std::size_t i = 0; i < scenarios.size(); ++i)
    tables[i].resize(scenarios[i].sla->replications);
  for (std::size_t i = 0; i < shards.size(); ++i)
    in_shard(paths[i], shards[i], [&] {
      const auto& units = field(shards[i], "units");
      for (std::size_t k = 0; k < units.size(); ++k) {
        const auto& u = units[k];
        const auto sc = whole<std::size_t>(field(u, "scenario"));
        tables[sc][whole<std::size_t>(field(u, "replication"))] =
            table_from_json(field(u, "table"), scenarios[sc].classes.size() + 1,
                            fmt::format("{}: /units/{}/table", paths[i], k));
      }
    });
  check_content_hashes(paths, shards);
  return check_output(a, scenarios, tables);
}

}  // namespace waitroom::cli
