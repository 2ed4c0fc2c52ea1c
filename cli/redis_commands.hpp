#pragma once
// The commands that talk to a live Redis (docs/redis.md).
#include <string>
#include <vector>

namespace waitroom::cli {

// Exit codes of the Redis commands (also in `waitroom --help` and docs/cli.md).
inline constexpr int exit_redis_parity = 5;  // Redis answered differently from the model
inline constexpr int exit_redis = 6;         // Redis unreachable, refused, OOM, script error ...

// `waitroom run ... --redis URL [--redis-keep]`: one replication whose every queue operation
// is mirrored on Redis and checked (main.cpp sends `run` here when --redis is given).
bool wants_redis(const std::vector<std::string>& args);
int redis_run_command(const std::vector<std::string>& args);

// waitroom load SCENARIO --redis URL [--speed X|max] [--clients K] [--duration S] ...
int load_command(const std::vector<std::string>& args);
std::string load_usage();

}  // namespace waitroom::cli
