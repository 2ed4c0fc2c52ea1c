// `waitroom compare`: the scenario and its variants on common random numbers, with paired
// differences.
#include <algorithm>

#include "commands.hpp"
#include "models/run/replicate.hpp"
#include "options.hpp"
#include "output_writer.hpp"
#include "redis_commands.hpp"
#include "report_command.hpp"
#include "reports/csv_report.hpp"
#include "reports/markdown_report.hpp"
#include "reports/report.hpp"
#include "scenario_loading.hpp"
#include "sim/input_error.hpp"
#include "sim/text_file.hpp"
#include "version.hpp"

namespace waitroom::cli {

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
  if (a.html && write_html(*a.html, j, scenarios.front().name) != exit_ok) return exit_output;
  return write_result(a.out, format_of(a),
                      {.table = [&] { return reports::compare_table(j) + mirrored.text; },
                       .json = [&] { return j.dump(2) + "\n"; },
                       .csv = [&] { return reports::compare_csv(j); },
                       .markdown = [&] { return reports::compare_markdown(j) + mirrored.text; }});
}

}  // namespace waitroom::cli
