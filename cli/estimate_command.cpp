// `waitroom estimate`: the closed form that matches a scenario beside the simulated mean waits
// (reports/estimate_report builds the rows and their renderings).
#include "commands.hpp"
#include "models/analytic/queueing.hpp"
#include "models/run/replicate.hpp"
#include "options.hpp"
#include "output_writer.hpp"
#include "reports/estimate_report.hpp"
#include "scenario_loading.hpp"
#include "sim/input_error.hpp"

namespace waitroom::cli {

int estimate_command(const std::vector<std::string>& args) {
  common_args a = parse_args("estimate", args, command_kind::estimate);
  if (!a.scenario_path) throw sim::input_error("waitroom estimate", "a SCENARIO file", "none");
  models::scenario s = load(a, a.scenario_path);
  if (a.seed) s.seed = *a.seed;
  const std::uint32_t reps = replications_or(a, 10);
  auto rs = models::replicate(s, s.seed, reps, threads_or_cores(a.threads));
  auto est = models::analytic_for(s);
  const auto rows = reports::estimate_rows(s, rs, est);
  return write_result(a.out, format_of(a),
                      {.table = [&] { return reports::estimate_table(s, est, reps, rows); },
                       .json = [&] { return reports::estimate_json(s, est, reps, rows); }});
}

}  // namespace waitroom::cli
