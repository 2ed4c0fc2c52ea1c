#pragma once
// Load mode: the scenario's Redis command stream (redis/load_stream.hpp: the room's own
// commands) sent in wall-clock time (virtual time / speed) from K connections (driven by T
// client threads, each multiplexing its share): entries (ZADD), the release script every tick,
// every user's status lookups (ZRANK + ZCARD, and the lookup that finds the release) as the
// polling block schedules them (through the per-user status cache unless disabled),
// abandonment (ZREM), aging's moves, a lottery's draws. Reports
// per command type requested vs achieved rates per second, latency quantiles (the project's log
// histogram), errors, timeouts, and how far behind schedule the commands were sent.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "models/scenario/scenario.hpp"
#include "redis/connection.hpp"
#include "redis/keys.hpp"
#include "redis/signed_token.hpp"
#include "sim/histogram.hpp"

namespace waitroom::redis {

struct load_options {
  double speed = 1.0;         // virtual seconds per wall second
  bool max_speed = false;     // send as fast as Redis answers
  unsigned clients = 4;       // connections
  unsigned threads = 1;       // client threads driving them (redis/multiplex), at most clients
  double duration_s = 0.0;    // wall-clock limit; 0: the scenario's whole stream
  std::size_t pipeline = 64;  // most commands in flight on a connection when behind
  bool status_cache = true;   // polls within cache_s of the last lookup do not reach Redis
  connect_options connect;
  // Called about once a wall second with a one-line progress summary.
  std::function<void(const std::string&)> progress;
};

struct command_load {
  std::uint64_t requested = 0;
  std::uint64_t completed = 0;
  std::uint64_t errors = 0;
  std::uint64_t timeouts = 0;
  sim::log_histogram latency_ns;               // send to reply
  std::vector<std::uint64_t> requested_per_s;  // by scheduled wall second
  std::vector<std::uint64_t> completed_per_s;  // by completion wall second
};

// Signed tokens (scenario `redis.tokens: "signed"`): every status lookup's member verified
// by the client before its ZRANK, as a gateway would.
struct token_checks {
  std::uint64_t lookups = 0;
  std::uint64_t rejected = 0;  // failed verification: not sent
  std::int64_t ns = 0;         // time spent verifying
};

// What the releases handed out (release.consumers releasers each tick, atomic or not).
struct release_count {
  unsigned consumers = 1;
  bool atomic = true;
  std::uint64_t requested = 0;   // members the scenario's releases take
  std::uint64_t handed_out = 0;  // members the releasers got, counting repeats
  std::uint64_t distinct = 0;
  std::uint64_t duplicated = 0;  // handed_out - distinct: users admitted twice
  // requested - distinct: users the scenario released that no releaser got by the end (left
  // in Redis by a race, or a release that overtook an entry sent by another client)
  std::uint64_t lost = 0;
  std::uint64_t drawn = 0;  // lottery draws that took their member
  // Redis's own record at the end, read after the last reply (-1: not read, the run failed):
  // the released set's size and the stats counters' sum. Every member handed out (distinct)
  // and drawn is in the set, and with the script counted, unless Redis lost the state.
  std::int64_t released_set = -1;
  std::int64_t counted = -1;
};

// Why the releases are not what the scripts guarantee, or empty: users handed out twice by
// the release script, or Redis's record (released set; with the script the stats counters)
// not the members handed out and drawn. A release that found fewer members than the scenario
// (an entry sent on another connection arrived after it) leaves them waiting in Redis, which
// the scripts do not prevent: counted in `lost`, not a failure.
std::string release_failure(const release_count& r);

struct load_result {
  std::map<std::string, command_load> commands;  // ZADD, ZRANK, ZREM, EVALSHA release
  sim::log_histogram lag_ns;                     // send time - scheduled time
  double wall_s = 0.0;
  double virtual_s = 0.0;
  std::uint64_t users = 0;
  bool stopped_by_duration = false;
  bool behind = false;  // p99 of the send lag above 100 ms: Redis or the clients fell behind
  std::string first_error;
  token_checks checks;  // all zero with hex tokens
  release_count releases;
  // Reconnects (connect_options::reconnect): how many over all connections, the wall seconds
  // during which at least one was down, and the commands sent again because their replies
  // had not been read (a retried command's latency counts from its first send).
  std::uint64_t reconnects = 0;
  double gap_s = 0.0;
  std::uint64_t retried = 0;
  // Commands not sent because the run stopped at a failed command or a lost connection.
  std::uint64_t unsent = 0;
};

// Throws sim::input_error for scenarios load mode cannot drive (an
// unbounded arrival process without a horizon or --duration), redis_error on connection.
load_result run_load(const models::scenario& sc, const redis_url& url, const key_layout& keys,
                     const load_options& opt);

}  // namespace waitroom::redis
