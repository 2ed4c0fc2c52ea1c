#pragma once
// Splitting expensive commands over processes (a job array's tasks): `run --replications R
// --shard K/N`, `check --shard K/N` and `sweep --shard K/N` each write a shard file of the
// units whose index is K modulo N; `waitroom merge` combines all N into exactly what the
// unsharded command writes. Every shard carries the SHA-256 of each effective scenario, so
// shards of different scenarios (or of an edited file) never merge, and the SHA-256 of its
// own content, so a shard edited or damaged after it was written never merges either.
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

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

// `run --replications R --shard K/N`: replications K, K + N, ... as a shard file.
int run_shard(const common_args& a, const models::scenario& s);
// `check --shard K/N`: the units are (scenario, replication) pairs in order.
int check_shard(const common_args& a, const std::vector<models::scenario>& scenarios);

// check's verdict from each scenario's metric tables (one per replication): the tables, the
// final line and the exit code; the same code for `check` and for `merge` of its shards.
// redis (check --redis): added to the JSON as "redis" and to the table before the verdict.
int check_output(const common_args& a, const std::vector<models::scenario>& scenarios,
                 const std::vector<std::vector<models::metric_table>>& tables,
                 const nlohmann::json& redis = nullptr, const std::string& redis_text = {});

// `merge` of run and check shards (already read: paths[i] is shards[i]'s file).
int merge_run(const common_args& m, const std::vector<std::string>& paths,
              const std::vector<nlohmann::json>& shards);
int merge_check(const common_args& m, const std::vector<std::string>& paths,
                const std::vector<nlohmann::json>& shards);

// Checks that the shards are one job's: same command and arguments, each K of N given once.
// Throws input_error naming the offending shard file.
void check_shard_set(const std::vector<std::string>& paths,
                     const std::vector<nlohmann::json>& shards);
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

}  // namespace waitroom::cli
