#pragma once
// Concurrent releasers: K threads, each with its own connection (as K gateway instances),
// release from one list until it is empty, with the atomic Lua script or with the articles'
// non-atomic ZRANGE-then-ZREM. Every member each releaser got is logged; duplicates and
// losses are counted from the logs and from the released set.
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "redis/connection.hpp"
#include "redis/keys.hpp"

namespace waitroom::redis {

struct releasers_result {
  std::uint64_t users = 0;         // members added to the list first
  std::uint64_t releases = 0;      // release calls that returned members
  std::uint64_t handed_out = 0;    // members returned to releasers, counting repeats
  std::uint64_t distinct = 0;      // distinct members returned
  std::uint64_t duplicated = 0;    // handed_out - distinct: users admitted twice
  std::uint64_t lost = 0;          // users - distinct: users never admitted
  std::uint64_t released_set = 0;  // SCARD of the released set at the end
  std::uint64_t left_in_list = 0;  // ZCARD at the end
  double seconds = 0.0;            // wall time of the release phase
};

struct releasers_options {
  std::uint64_t users = 1'000'000;
  std::uint64_t batch = 100;  // N of each release
  unsigned releasers = 8;
  bool atomic = true;
  connect_options connect;
  // What set `releasers`, named when the system cannot start that many threads (exit 2).
  std::string releasers_from = "/release/consumers";
};

// One release of up to n members from `list_key` on c, as releaser `releaser` would: the
// release script (`script`, loaded on c; it also counts them under `released:<list>`), or the
// articles' non-atomic ZRANGE, then ZREM + SADD in a second round trip. Returns the members.
// An error reply throws redis_error of its kind. A release_id above 0 (the script only) logs
// the release under it in the releaser's release log and forgets the one `log_window` before
// it: replayed after a reconnect, it returns the same members instead of taking the next.
std::vector<std::string> release_once(connection& c, std::size_t script, const key_layout& keys,
                                      const std::string& list_key, std::uint32_t list,
                                      std::uint64_t n, std::uint32_t releaser, bool atomic,
                                      std::uint64_t release_id = 0, std::uint64_t log_window = 8);

// K releasers, each a thread with its own connection (as K gateway instances), kept for a
// whole run. release() hands releaser i parts[i] members to take from one list and lets them
// all go at once; it returns when every one has answered. The threads and connections live
// as long as the pool.
class releaser_pool {
 public:
  // Connects every releaser (a refused connection throws here) and loads the script. With
  // opt.reconnect each releaser's connection reconnects as the mirror's own does, and its
  // releases carry ids (release_once) so a replayed one is not taken twice. releasers_from
  // names what set `releasers` when the system refuses a thread (input_error, exit 2).
  releaser_pool(const redis_url& url, const key_layout& keys, unsigned releasers, bool atomic,
                const connect_options& opt = {}, std::string releasers_from = "/release/consumers");
  ~releaser_pool();
  releaser_pool(const releaser_pool&) = delete;
  releaser_pool& operator=(const releaser_pool&) = delete;

  // Each releaser's members, in the order it got them. Rethrows the first releaser's error.
  std::vector<std::vector<std::string>> release(const std::string& list_key, std::uint32_t list,
                                                std::span<const std::uint64_t> parts);
  unsigned size() const { return static_cast<unsigned>(workers_.size()); }
  bool atomic() const { return atomic_; }
  // Every releaser's commands, added up.
  command_stats stats() const;
  // Called by release(), on its caller's thread, after a release during which a releaser's
  // connection reconnected (the mirror then compares Redis's state with the model's).
  void on_reconnect(std::function<void()> f) { on_reconnect_ = std::move(f); }

 private:
  struct worker {
    std::unique_ptr<connection> conn;
    std::size_t script = 0;
    std::vector<std::string> got;
    std::exception_ptr error;
    std::thread thread;
    std::uint64_t releases = 0;  // this releaser's release ids so far
  };
  std::uint64_t reconnects() const;
  void loop(std::uint32_t i);
  void stop();

  const key_layout& keys_;
  bool atomic_;
  std::vector<std::unique_ptr<worker>> workers_;
  std::mutex m_;
  std::condition_variable go_, done_;
  std::uint64_t generation_ = 0;  // one per release()
  unsigned running_ = 0;
  bool stop_ = false;
  std::string list_key_;
  std::uint32_t list_ = 0;
  std::vector<std::uint64_t> parts_;
  std::function<void()> on_reconnect_;
  std::uint64_t reconnects_seen_ = 0;
};

// Splits n as evenly as possible into k parts (the first n % k one larger).
std::vector<std::uint64_t> split_release(std::uint64_t n, unsigned k);

releasers_result run_concurrent_releasers(const redis_url& url, const key_layout& keys,
                                          const releasers_options& opt);

}  // namespace waitroom::redis
