// `waitroom run ... --redis URL [--redis-keep]`: one replication whose every queue operation
// is mirrored on Redis and checked.
#include <optional>

#include <fmt/format.h>

#include "commands.hpp"
#include "options.hpp"
#include "output_writer.hpp"
#include "redis_commands.hpp"
#include "redis_mirror.hpp"
#include "reports/csv_report.hpp"
#include "reports/markdown_report.hpp"
#include "reports/report.hpp"
#include "scenario_loading.hpp"
#include "sim/input_error.hpp"
#include "version.hpp"

namespace waitroom::cli {

int redis_run_command(const std::vector<std::string>& args) {
  std::vector<std::string> rest = args;
  const redis_request req = take_redis_flags(rest);
  common_args a = parse_args("run", rest, command_kind::run);
  if (a.replications > 1)
    throw sim::input_error("--replications", "1 with --redis (one replication is mirrored)",
                           std::to_string(a.replications));
  if (a.trace) throw sim::input_error("--trace", "no trace with --redis", "--trace");
  models::scenario s = load(a, a.scenario_path);
  refuse_unmirrorable(s, "");
  std::uint64_t seed = a.seed.value_or(s.seed);
  s.seed = seed;
  const output_format format = format_of(a);
  try {
    redis::redis_url url = redis::parse_url_from_env(*req.url);
    auto m = mirror_replication(s, *a.scenario_path + ": ", seed, 0, url, req.keep);
    std::optional<nlohmann::json> result;  // for the json and csv renderers, made once
    auto result_json = [&]() -> const nlohmann::json& {
      if (!result) {
        result = reports::result_json(s, m.result, version);
        (*result)["redis"] = m.block;
      }
      return *result;
    };
    return write_result(a.out, format,
                        {.table =
                             [&] {
                               return reports::result_table(s, m.result) + '\n' +
                                      summary_line(url.describe(), m.block, m.keys_deleted);
                             },
                         .json = [&] { return result_json().dump(2) + "\n"; },
                         .csv = [&] { return reports::run_csv(result_json()); },
                         .markdown =
                             [&] {
                               return reports::result_markdown(s, m.result) + '\n' +
                                      summary_line(url.describe(), m.block, m.keys_deleted);
                             }});
  } catch (const redis::redis_error& e) {
    return redis_exit(e);
  }
}

}  // namespace waitroom::cli
