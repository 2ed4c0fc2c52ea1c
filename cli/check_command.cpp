// `waitroom check`: each scenario's SLA targets decided on confidence bounds (exit 1 when one
// fails), optionally with replication 0 mirrored on Redis.
#include "check_command.hpp"

#include <fmt/format.h>

#include "commands.hpp"
#include "memory_check.hpp"
#include "models/run/replicate.hpp"
#include "models/sla/sla.hpp"
#include "options.hpp"
#include "output_file.hpp"
#include "output_writer.hpp"
#include "progress.hpp"
#include "redis_commands.hpp"
#include "report_command.hpp"
#include "reports/check_report.hpp"
#include "reports/csv_report.hpp"
#include "reports/markdown_report.hpp"
#include "reports/report.hpp"
#include "scenario_loading.hpp"
#include "shard.hpp"
#include "sim/input_error.hpp"
#include "version.hpp"

namespace waitroom::cli {

int check_output(const common_args& a, const std::vector<models::scenario>& scenarios,
                 const std::vector<std::vector<models::metric_table>>& tables,
                 const nlohmann::json& redis, const std::string& redis_text) {
  std::vector<std::pair<const models::scenario*, std::vector<models::sla_outcome>>> outcomes;
  bool all_pass = true;
  for (std::size_t i = 0; i < scenarios.size(); ++i) {
    const auto& s = scenarios[i];
    auto os = models::evaluate(*s.sla, tables[i]);
    for (const auto& o : os) all_pass = all_pass && o.pass;
    outcomes.emplace_back(&s, std::move(os));
  }
  if (a.junit && !write_atomically(*a.junit, reports::junit_xml(outcomes))) {
    fmt::print(stderr, "waitroom: {}: could not write the JUnit file ({})\n", *a.junit,
               last_write_error());
    return exit_output;
  }
  auto result = reports::check_json(outcomes, version);
  if (!redis.is_null()) result["redis"] = redis;
  if (a.html && write_html(*a.html, result, "check") != exit_ok) return exit_output;
  const renderers render{
      .table =
          [&] {
            std::string text;
            for (const auto& [s, os] : outcomes)
              text += reports::sla_table(*s, os, s->sla->confidence);
            return text + redis_text + (all_pass ? "all SLAs hold\n" : "SLA FAILED\n");
          },
      .json = [&] { return result.dump(2) + "\n"; },
      .csv = [&] { return reports::check_csv(result); },
      .markdown =
          [&] {
            std::string text;
            for (const auto& [s, os] : outcomes)
              text += reports::sla_markdown(*s, os, s->sla->confidence) + "\n";
            return text + redis_text + (all_pass ? "**all SLAs hold**\n" : "**SLA FAILED**\n");
          }};
  if (const int rc = write_result(a.out, format_of(a), render); rc != exit_ok) return rc;
  return all_pass ? exit_ok : exit_sla_failed;
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

}  // namespace waitroom::cli
