#pragma once
// What the Redis commands share: one replication mirrored on Redis and its summary line, the
// connection's reconnect budget, and the exit code of a Redis failure.
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "models/results/result.hpp"
#include "models/scenario/scenario.hpp"
#include "redis/connection.hpp"
#include "redis/error.hpp"
#include "redis/url.hpp"

namespace waitroom::cli {

// A broken connection is retried with bounded backoff for `retry_s` seconds (20 by default),
// then the run fails with exit 6; 0 turns reconnecting off.
redis::connect_options reconnecting(std::optional<double> retry_s);

// Says on stderr what failed; returns exit_bad_input (a bad URL), exit_redis_parity or
// exit_redis.
int redis_exit(const redis::redis_error& e);

struct mirrored_run {
  models::room_result result;
  nlohmann::json block;  // redis_block + "keys"
  std::uint64_t keys_deleted = 0;
};

// One replication of `s`, every queue operation mirrored on Redis and checked, on its own keys
// (deleted at the end, and on any error, unless keep). Throws redis_error.
mirrored_run mirror_replication(const models::scenario& s, const std::string& where,
                                std::uint64_t seed, std::uint64_t replication,
                                const redis::redis_url& url, bool keep);

// "parity held over ... ; peak used_memory ..., N keys deleted" (no password: url.describe()).
std::string summary_line(const std::string& where, const nlohmann::json& block,
                         std::uint64_t keys_deleted);

}  // namespace waitroom::cli
