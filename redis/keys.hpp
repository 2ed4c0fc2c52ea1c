#pragma once
// The key layout of one run. Every key shares the hash tag {RUNID}, so one room's keys live in
// one Redis Cluster slot and a multi-key script may touch them all.
#include <cstdint>
#include <string>

namespace waitroom::redis {

class connection;

struct key_layout {
  std::string run_id;

  std::string prefix() const { return "waitroom:{" + run_id + "}:"; }
  // One sorted set per list (score, member = token).
  std::string list(std::uint32_t i) const { return prefix() + "list:" + std::to_string(i); }
  // A lottery's per-class set.
  std::string lottery(std::uint32_t c) const { return prefix() + "lottery:" + std::to_string(c); }
  // Every member released so far (SADD by the release script).
  std::string released() const { return prefix() + "released"; }
  // Counters (HINCRBY): `released:<list>`, users released from each list.
  std::string stats() const { return prefix() + "stats"; }
  // The recent releases of releaser r (a hash: release id -> members), so a release
  // replayed after a reconnect returns the same members instead of taking the next ones.
  std::string release_log(std::uint32_t r) const {
    return prefix() + "release_log:" + std::to_string(r);
  }
  // The list-choosing release's state (hash): the ratio's smooth weighted round-robin
  // credit and the epoch of the weights it belongs to.
  std::string selection() const { return prefix() + "selection"; }
};

// 16 hex digits from the system's random source: a run's own key prefix.
std::string new_run_id();

// UNLINKs every key under the run's prefix (SCAN, so a large run does not block Redis);
// returns how many.
std::uint64_t delete_keys(connection& c, const key_layout& keys);

// A token as its member bytes: 16 lowercase hex digits, so byte order is numeric order.
std::string hex_token(std::uint64_t token);

}  // namespace waitroom::redis
