// `run --replications R --shard K/N` and `merge` of its shards: each replication's summary
// (its metric table and wait summaries) and the queue series' sums.
#include <mutex>
#include <optional>

#include <fmt/format.h>

#include "commands.hpp"
#include "models/room/room.hpp"
#include "models/run/series_bands.hpp"
#include "output_writer.hpp"
#include "report_command.hpp"
#include "reports/csv_report.hpp"
#include "reports/markdown_report.hpp"
#include "reports/report.hpp"
#include "scenario_loading.hpp"
#include "shard.hpp"
#include "sim/input_error.hpp"
#include "sim/parallel.hpp"
#include "version.hpp"

namespace waitroom::cli {

using nlohmann::json;

namespace {

std::string scenario_name_of(const std::optional<std::string>& path) {
  return path ? *path : std::string("the embedded default scenario");
}

}  // namespace

int run_shard(const common_args& a, const models::scenario& s) {
  const shard_spec shard = parse_shard(a.shard);
  if (a.replications < 2)
    throw sim::input_error("--shard", "--replications R with R >= 2 (a shard holds replications)",
                           fmt::format("{} replication", a.replications));
  if (a.trace) throw sim::input_error("--shard", "no --trace (a trace is of one run)", "--trace");
  if (a.format && *a.format != output_format::json)
    throw sim::input_error("--format",
                           "json or nothing with --shard (a shard file is JSON; "
                           "choose the format at merge)",
                           "'" + std::string(to_string(*a.format)) + "'");
  if (a.html || a.series)
    throw sim::input_error(a.html ? "--html" : "--series",
                           "neither with --shard (ask `waitroom merge` for the HTML report)",
                           a.html ? "--html" : "--series");
  std::vector<std::uint32_t> mine;
  for (std::uint32_t r = 0; r < a.replications; ++r)
    if (shard.mine(r)) mine.push_back(r);
  std::vector<reports::replication_summary> sums(mine.size());
  models::series_bands bands(s.classes.size());
  std::mutex bands_mutex;  // integer sums: any order gives the same bytes
  sim::parallel_for(mine.size(), threads_or_cores(a.threads), [&](std::size_t k) {
    const models::room_result r = models::run_scenario(s, s.seed, mine[k]);
    {
      std::lock_guard lock(bands_mutex);
      bands.add(r);
    }
    sums[k] = reports::summarize(r);
  });
  json args{{"scenario", a.scenario_path ? json(*a.scenario_path) : json(nullptr)},
            {"sets", a.sets},
            {"seed", s.seed},
            {"replications", a.replications}};
  json j = shard_header("run", shard, std::move(args), scenario_hash(s));
  if (a.scenario_path) j["sources"] = sources_json({*a.scenario_path});
  for (const auto& x : sums) {
    json waits = json::array();
    for (const auto& w : x.waits) waits.push_back(waits_json(w));
    j["units"].push_back({{"replication", x.replication},
                          {"end_time_s", x.end_time_s},
                          {"events", x.events},
                          {"table", x.table},
                          {"waits", waits}});
  }
  j["series_bands"] = {{"replications", bands.replications()},
                       {"t_s", bands.t_s()},
                       {"sum", bands.sums()},
                       {"squares_high", bands.squares_high()},
                       {"squares_low", bands.squares_low()}};
  return write_shard(a, std::move(j));
}

int merge_run(const common_args& m, const std::vector<std::string>& paths,
              const std::vector<json>& shards) {
  if (m.junit || m.csv)
    throw sim::input_error(m.junit ? "--junit" : "--csv",
                           "no --junit or --csv for run shards (use --format csv)",
                           m.junit ? "--junit" : "--csv");
  common_args a = m;
  std::uint64_t seed = 0;
  std::uint32_t reps = 0;
  in_shard(paths[0], shards.front(), [&] {
    const json& args = field(shards.front(), "args");
    if (field(args, "scenario").is_null())
      a.scenario_path.reset();
    else
      a.scenario_path = text(field(args, "scenario"));
    a.sets = texts(field(args, "sets"));
    seed = whole<std::uint64_t>(field(args, "seed"));
    reps = whole<std::uint32_t>(field(args, "replications"));
  });
  if (reps < 2 || reps > 100000)
    throw sim::input_error(paths[0] + ": /args/replications", "a number from 2 to 100000",
                           std::to_string(reps));
  models::scenario s = load(a, a.scenario_path);
  s.seed = seed;
  for (std::size_t i = 0; i < shards.size(); ++i)
    check_hash(paths[i], shards[i], 0, s, scenario_name_of(a.scenario_path));
  check_units(paths, shards, reps, [&](const json& u, const std::string& where) {
    return unit_index(u, "replication", reps, where);
  });
  const std::size_t rows = s.classes.size() + 1;
  std::vector<reports::replication_summary> sums(reps);
  for (std::size_t i = 0; i < shards.size(); ++i)
    in_shard(paths[i], shards[i], [&] {
      const auto& units = field(shards[i], "units");
      for (std::size_t k = 0; k < units.size(); ++k) {
        const auto& u = units[k];
        const std::string where = fmt::format("{}: /units/{}", paths[i], k);
        auto& x = sums[whole<std::size_t>(field(u, "replication"))];
        x.replication = whole<std::uint64_t>(field(u, "replication"));
        x.end_time_s = number(field(u, "end_time_s"));
        x.events = whole<std::uint64_t>(field(u, "events"));
        x.table = table_from_json(field(u, "table"), rows, where + "/table");
        const auto& ws = field(u, "waits");
        if (!ws.is_array() || ws.size() != rows)
          throw sim::input_error(where + "/waits", fmt::format("{} wait summaries", rows),
                                 "another shape");
        for (std::size_t c = 0; c < rows; ++c)
          x.waits.push_back(waits_from(ws[c], fmt::format("{}/waits/{}", where, c)));
      }
    });
  // The queue series' sums: each shard's, added (integers: the same as one process).
  models::series_bands bands(s.classes.size());
  for (std::size_t i = 0; i < shards.size(); ++i)
    in_shard(paths[i], shards[i], [&] {
      const json& b = field(shards[i], "series_bands");
      models::series_bands one(s.classes.size());
      // Read in the file's order, so the first damaged value is the one named.
      const auto replications = whole<std::uint64_t>(field(b, "replications"));
      auto t_s = numbers(field(b, "t_s"));
      auto sum = whole_vector<std::uint64_t>(field(b, "sum"));
      auto high = whole_vector<std::uint64_t>(field(b, "squares_high"));
      auto low = whole_vector<std::uint64_t>(field(b, "squares_low"));
      if (!one.restore(replications, std::move(t_s), std::move(sum), std::move(high),
                       std::move(low)))
        throw sim::input_error(paths[i] + ": /series_bands",
                               fmt::format("{} sums per sample time", one.columns()),
                               "another shape");
      bands.merge(one);
    });
  if (bands.replications() != reps)
    throw sim::input_error("waitroom merge", fmt::format("queue series of {} replications", reps),
                           fmt::format("{}", bands.replications()));
  check_content_hashes(paths, shards);
  // As unsharded `run --replications`: table, json or csv, and --html.
  std::optional<json> result;  // for --html and the json and csv renderers, made once
  auto result_json = [&]() -> const json& {
    if (!result) result = reports::replications_json(s, sums, 0.95, version, &bands);
    return *result;
  };
  if (m.html && write_html(*m.html, result_json(), s.name) != exit_ok) return exit_output;
  return write_result(m.out, format_of(m),
                      {.table = [&] { return reports::replications_table(s, sums, 0.95); },
                       .json = [&] { return result_json().dump(2) + "\n"; },
                       .csv = [&] { return reports::run_csv(result_json()); },
                       .markdown = [&] { return reports::replications_markdown(s, sums, 0.95); }});
}

}  // namespace waitroom::cli
