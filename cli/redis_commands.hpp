#pragma once
// The commands that talk to a live Redis (docs/redis.md).
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/scenario/scenario.hpp"

namespace waitroom::cli {

// Exit codes of the Redis commands (also in `waitroom --help` and docs/cli.md).
inline constexpr int exit_redis_parity = 5;  // Redis answered differently from the model
inline constexpr int exit_redis = 6;         // Redis unreachable, refused, OOM, script error ...

// `waitroom run ... --redis URL [--redis-keep]`: one replication whose every queue operation
// is mirrored on Redis and checked (main.cpp sends `run` here when --redis is given).
bool wants_redis(const std::vector<std::string>& args);
int redis_run_command(const std::vector<std::string>& args);

// `--redis URL [--redis-keep]` of check and compare, taken out of args (so the rest parses
// as without them). No url: --redis was not given (--redis-keep alone is bad input).
struct redis_request {
  std::optional<std::string> url;
  bool keep = false;
};
redis_request take_redis_flags(std::vector<std::string>& args);
// Nothing in a build with the Redis backend; else throws input_error naming --redis (exit 2).
void require_redis_backend();
// Throws input_error for what cannot be mirrored (an mser5 warm-up runs the room twice).
void refuse_unmirrorable(const models::scenario& s, const std::string& where);

// Replication 0 of each scenario (the one check and compare run first, same seed) mirrored on
// Redis, each on its own keys. json: one redis block per scenario with `name_key`: its name;
// text: one summary line each. Returns exit_ok, or after printing the error exit_redis_parity,
// exit_redis or exit_bad_input (a bad URL): then the caller writes nothing.
struct mirrored_blocks {
  nlohmann::json json;
  std::string text;
};
int mirror_first_replications(const redis_request& req,
                              const std::vector<const models::scenario*>& scenarios,
                              const std::vector<std::string>& names, const std::string& name_key,
                              mirrored_blocks& out);

// waitroom load SCENARIO --redis URL [--speed X|max] [--clients K] [--duration S] ...
int load_command(const std::vector<std::string>& args);
std::string load_usage();

}  // namespace waitroom::cli
