#pragma once
// Load mode's command stream: the scenario's own Redis commands, in simulated time. The room
// (models::room) runs in a producer thread with a queue_mirror that turns each change of its
// lists into the commands mirror mode sends for it (ZADD / SADD, ZREM / SREM, the move script
// for aging and in-place credits, the release script per list released from, a lottery's
// draw of exactly the model's member). Every waiting user's status lookups are merged in by
// time as the scenario's polling model schedules them (models/polling: the interval the
// server suggests, refreshed from the queue length, the cached answer carrying the old
// suggestion; the per-user start phase; the status cache, or every poll without it), and the
// lookup that finds a released user released. So the stream follows every policy the
// simulator has, and the same scenario and seed give the same stream.
//
// The producer hands the commands over in chunks through a bounded channel: memory stays
// bounded and an endless arrival process works with --duration. stop() (or the destructor)
// makes the producer stop at its next hand-over or the room's next sample, whichever comes
// first; an error in the room reaches the consumer from next().
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <iterator>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "models/scenario/scenario.hpp"
#include "redis/keys.hpp"
#include "redis/signed_token.hpp"

namespace waitroom::redis {

// Command types as load mode reports them. t_zrange_release is the articles' non-atomic
// release (release.atomic false): ZRANGE, then ZREM + SADD of what it read (run_load makes it
// from a t_release).
enum cmd_type : std::uint8_t {
  t_zadd,
  t_zrank,
  t_zrem,
  t_release,
  t_zrange_release,
  t_zcard,
  t_sismember,
  t_scard,
  t_sadd,
  t_srem,
  t_move,
  t_draw,
  t_count
};
inline constexpr const char* type_names[] = {
    "ZADD",  "ZRANK", "ZREM", "EVALSHA release", "ZRANGE+ZREM release", "ZCARD", "SISMEMBER",
    "SCARD", "SADD",  "SREM", "EVALSHA move",    "EVALSHA draw"};
static_assert(std::size(type_names) == t_count);

struct stream_op {
  std::int64_t at_ns = 0;  // simulated time
  cmd_type type = t_zadd;
  // A user's commands carry its token: they go to one connection, in order. 0 for releases.
  std::uint64_t route = 0;
  // For t_release: EVALSHA sha 4 list released stats release_log N "released:<list>" "" "".
  std::vector<std::string> args;
};

// The scripts the stream calls, in the order connections load them (the release script first:
// run_load's clients fill its SHA from script 0).
struct stream_script {
  const char* name;
  const char* body;
};
const std::vector<stream_script>& stream_scripts();

class load_stream {
 public:
  // Every release mode the room has (tick, concurrency, active users, serving counter): the
  // room makes the releases. Nothing runs until the first next().
  load_stream(const models::scenario& sc, const key_layout& keys, bool status_cache,
              const token_signer* signer);
  ~load_stream();  // stops the producer and joins it
  load_stream(const load_stream&) = delete;
  load_stream& operator=(const load_stream&) = delete;

  // Whether the arrivals have no end and the scenario no horizon (load needs --duration).
  bool unbounded() const { return unbounded_; }

  // The next command in simulated time; false when the stream is over. Rethrows what stopped
  // the room (an input or stall error).
  bool next(stream_op& op);
  // The producer stops at its next hand-over of commands or the room's next sample (the
  // consumer is done with them); next() then ends the stream. May be called from another
  // thread while next() waits, once next() has been called.
  void stop();

  std::uint64_t users() const { return users_; }           // entries handed out so far
  std::int64_t now_ns() const { return now_ns_; }          // the last command's time
  std::uint64_t chunks_waited() const { return waited_; }  // next() found the channel empty

  // Bounds of the channel: commands per chunk, chunks in flight.
  static constexpr std::size_t chunk_ops = 2048;
  static constexpr std::size_t max_chunks = 16;

 private:
  class recorder;
  void produce();
  // The producer's hand-over: blocks while the channel is full; throws when stopped.
  void publish(std::vector<stream_op>& chunk);

  models::scenario sc_;  // a copy: the room reads it, and followed users are turned off
  key_layout keys_;
  bool status_cache_;
  const token_signer* signer_;
  bool unbounded_ = false;

  std::mutex m_;
  std::condition_variable cv_;
  std::deque<std::vector<stream_op>> full_;    // chunks made, in order
  std::vector<std::vector<stream_op>> spare_;  // consumed chunks, their capacity kept
  bool stopping_ = false, finished_ = false;
  std::atomic<bool> stop_requested_{false};  // stopping_, read by the room's sampler unlocked
  std::exception_ptr error_;
  std::thread producer_;
  bool started_ = false;

  // The consumer's side.
  std::vector<stream_op> current_;
  std::size_t at_ = 0;
  std::uint64_t users_ = 0;
  std::int64_t now_ns_ = 0;
  std::uint64_t waited_ = 0;
};

}  // namespace waitroom::redis
