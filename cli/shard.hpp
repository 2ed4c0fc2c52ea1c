#pragma once
// Splitting expensive commands over processes (a job array's tasks): `run --replications R
// --shard K/N`, `check --shard K/N` and `sweep --shard K/N` each write a shard file of the
// units whose index is K modulo N; `waitroom merge` combines all N into exactly what the
// unsharded command writes (the file's format: shard_format.hpp).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/scenario/scenario.hpp"
#include "options.hpp"
#include "shard_format.hpp"

namespace waitroom::cli {

// `run --replications R --shard K/N`: replications K, K + N, ... as a shard file.
int run_shard(const common_args& a, const models::scenario& s);
// `check --shard K/N`: the units are (scenario, replication) pairs in order.
int check_shard(const common_args& a, const std::vector<models::scenario>& scenarios);

// `merge` of run and check shards (already read: paths[i] is shards[i]'s file).
int merge_run(const common_args& m, const std::vector<std::string>& paths,
              const std::vector<nlohmann::json>& shards);
int merge_check(const common_args& m, const std::vector<std::string>& paths,
                const std::vector<nlohmann::json>& shards);
// `merge` of sweep and grid plan shards: the grid rebuilt from the shards' arguments.
int merge_sweep(const common_args& m, const std::vector<std::string>& paths,
                const std::vector<nlohmann::json>& shards);
int merge_plan(const common_args& m, const std::vector<std::string>& paths,
               const std::vector<nlohmann::json>& shards);

}  // namespace waitroom::cli
