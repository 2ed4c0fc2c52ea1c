// `waitroom run ... --redis URL [--redis-keep]`: one replication whose every queue operation
// is mirrored on Redis and checked.
#include <fmt/format.h>

#include "commands.hpp"
#include "options.hpp"
#include "output_file.hpp"
#include "redis_commands.hpp"
#include "redis_mirror.hpp"
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
  std::string format = a.format.value_or(a.out ? "json" : "table");
  try {
    redis::redis_url url = redis::parse_url_from_env(*req.url);
    auto m = mirror_replication(s, *a.scenario_path + ": ", seed, 0, url, req.keep);
    std::string text;
    if (format == "json") {
      auto j = reports::result_json(s, m.result, version);
      j["redis"] = m.block;
      text = j.dump(2) + "\n";
    } else {
      text = reports::result_table(s, m.result);
      text += '\n';
      text += summary_line(url.describe(), m.block, m.keys_deleted);
    }
    if (a.out) {
      if (!write_atomically(*a.out, text)) {
        fmt::print(stderr, "waitroom: {}: could not write the result file ({})\n", *a.out,
                   last_write_error());
        return exit_output;
      }
    } else {
      fmt::print("{}", text);
    }
    return exit_ok;
  } catch (const redis::redis_error& e) {
    return redis_exit(e);
  }
}

}  // namespace waitroom::cli
