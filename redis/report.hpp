#pragma once
// What a run tells about Redis: commands sent by type, round trips, time waiting on Redis,
// reconnects, and INFO memory sampled over the run. Ready for the results' `redis` block.
#include <chrono>
#include <cstdint>

#include <nlohmann/json.hpp>

#include "redis/connection.hpp"
#include "redis/mirror.hpp"

namespace waitroom::redis {

struct memory_info {
  std::int64_t used_memory = 0;
  std::int64_t used_memory_peak = 0;
};

// INFO memory, parsed.
memory_info info_memory(connection& c);

// Waits until INFO memory's lazyfree_pending_objects is 0 (every unlinked key freed), for at
// most `limit`; false if it was not (or the server does not report it).
bool wait_for_lazy_free(connection& c,
                        std::chrono::milliseconds limit = std::chrono::milliseconds(10000));

// Keeps the largest used_memory seen and the waiting users at that moment.
class memory_sampler {
 public:
  // The first sample, Redis's own memory before the run makes a key: taken once Redis has
  // freed what earlier runs unlinked (UNLINK frees large keys in a background thread, so
  // right after the previous scenario's clean-up used_memory still holds its keys).
  void baseline(connection& c);
  void sample(connection& c, std::uint64_t waiting_users);
  std::int64_t peak_used_memory() const { return peak_; }
  std::uint64_t waiting_at_peak() const { return waiting_at_peak_; }
  std::uint64_t samples() const { return samples_; }
  // used_memory at the first sample (take it before the run makes a key): Redis's own.
  std::int64_t first_used_memory() const { return first_; }

 private:
  std::int64_t peak_ = 0;
  std::int64_t first_ = 0;
  std::uint64_t waiting_at_peak_ = 0;
  std::uint64_t samples_ = 0;
};

// {"commands": {"ZADD": n, "EVALSHA release": n, ...}, "round_trips", "wait_s",
//  "reconnects", "gap_s", "replayed", "releases", "released", "replies_checked",
//  "memory": {"peak_used_bytes", "per_waiting_user_bytes", "samples"}}.
// No URL and no password in it.
nlohmann::json redis_block(const command_stats& c, const mirror_stats& m,
                           const memory_sampler& mem);

}  // namespace waitroom::redis
