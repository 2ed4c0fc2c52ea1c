#pragma once
// The shard file format (/waitroom_shard 2): its header, the content and scenario hashes, the
// scenario files it carries, its units and the values in them. Every shard carries the SHA-256
// of each effective scenario, so shards of different scenarios (or of an edited file) never
// merge, and the SHA-256 of its own content, so a shard edited or damaged after it was written
// never merges either.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/results/result.hpp"
#include "models/scenario/scenario.hpp"
#include "models/sla/sla.hpp"
#include "options.hpp"
#include "shard_reader.hpp"

namespace waitroom::cli {

struct shard_spec {
  std::uint32_t index = 0;
  std::uint32_t count = 1;
  bool mine(std::size_t unit) const { return unit % count == index; }
};
// "K/N" with 0 <= K < N (the flag's text in errors); none: the whole job.
shard_spec parse_shard(const std::optional<std::string>& text);

// The shard format this program writes and reads (/waitroom_shard), and the commands whose
// shards it merges (/command).
inline constexpr int shard_format = 2;
inline constexpr const char* shard_commands = "run, check, sweep or plan";

// A shard's members before its units: format, command, K of N, the arguments to rebuild the
// job from and the scenario hash(es); "units" an empty array.
nlohmann::json shard_header(const char* command, shard_spec shard, nlohmann::json args,
                            nlohmann::json hashes);
// The shard's content hash: the SHA-256 of its compact JSON (keys sorted, as nlohmann writes
// it) without the /content_sha256 member itself. Reading a shard and writing it again gives
// the same text (numbers are written in their shortest round-trip form), so this is the hash
// of what was written whatever whitespace or key order the file has since been given.
std::string shard_content_hash(const nlohmann::json& shard);
// Adds /content_sha256 to `shard` and writes it to --out (or stdout).
int write_shard(const common_args& a, nlohmann::json shard);
// Refuses (input_error naming the file) what is not a shard this program merges: not an
// object, another /waitroom_shard format, an unknown /command, no units or arguments.
void check_shard_header(const std::string& path, const nlohmann::json& shard);
// Refuses a shard whose content does not give its /content_sha256 (edited or corrupted).
// Called once every value has been read, so a damaged value is named by its JSON pointer
// first, and before anything is written.
void check_content_hashes(const std::vector<std::string>& paths,
                          const std::vector<nlohmann::json>& shards);

// The content hash of an effective scenario (every default filled in, overrides applied).
std::string scenario_hash(const models::scenario& s);
// The scenario a shard was run on, loaded again here, must be the same content: its
// /scenario_sha256 (element i when it is an array) against s's hash.
void check_hash(const std::string& path, const nlohmann::json& shard, std::size_t i,
                const models::scenario& s, const std::string& scenario_file);

// Checks that the shards are one job's: same command and arguments, each K of N given once.
// Throws input_error naming the offending shard file.
void check_shard_set(const std::vector<std::string>& paths,
                     const std::vector<nlohmann::json>& shards);
// Each unit of every shard exactly once: `total` units, unit u in shard u mod N; unit_of gives
// a unit's number (the second argument names it in errors).
void check_units(
    const std::vector<std::string>& paths, const std::vector<nlohmann::json>& shards,
    std::size_t total,
    const std::function<std::size_t(const nlohmann::json&, const std::string&)>& unit_of);
// The scenario files' content for a shard file ("sources": {path: {"json", "dir"}}), so
// `merge` needs neither the files nor the same working directory.
nlohmann::json sources_json(const std::vector<std::string>& scenario_paths);
// Checks that every shard carries the same sources and hands them to load() through
// m.embedded (shards written before sources were recorded: nothing, the files are read).
void adopt_sources(common_args& m, const std::vector<std::string>& paths,
                   const std::vector<nlohmann::json>& shards);
// A unit's index field (point, replication, scenario): a whole number below `bound`.
std::size_t unit_index(const nlohmann::json& unit, const char* key, std::size_t bound,
                       const std::string& where);

// A metric table from a shard file (NaN written as null), checked to have `rows` rows of
// every metric; throws input_error naming `where`.
models::metric_table table_from_json(const nlohmann::json& j, std::size_t rows,
                                     const std::string& where);
// A replication's wait summary (a run shard's unit), bit for bit through JSON; reading throws
// shard_fault or input_error naming `where`.
nlohmann::json waits_json(const models::wait_stats& w);
models::wait_stats waits_from(const nlohmann::json& j, const std::string& where);

}  // namespace waitroom::cli
