#pragma once
// One thread driving several connections, as redis-benchmark's event loop does: the commands
// appended on every connection are written together, poll() waits on all their sockets at
// once, and each reply is handed back in order with the tag its command was given. Several
// client threads each run one multiplexer over their share of the connections, instead of a
// thread per connection fighting redis-server for the cores.
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "redis/connection.hpp"

namespace waitroom::redis {

class multiplexer {
 public:
  // A reply to the command appended with `tag` on connection `conn` (error replies included:
  // the caller counts them per command).
  using reply_fn = std::function<void(std::size_t conn, std::uint64_t tag, reply&& r)>;
  // Connection `conn` failed (I/O error, closed by the server, or no reply within its
  // timeout) and is not reconnecting: its connect_options say no reconnect, or its
  // give_up_after budget is spent (or the retry cannot help: auth, unknown host). `lost` are
  // the tags of its commands without a reply. It is dead from then on.
  // With connect_options::reconnect a failed connection is retried instead, with its bounded
  // backoff, between steps (the others go on meanwhile); once back, every command without a
  // reply is sent again (connection::stats().replayed) and its reply handed back under its
  // first tag, as if nothing had happened.
  using failure_fn =
      std::function<void(std::size_t conn, const redis_error& e, std::vector<std::uint64_t> lost)>;

  // The connections stay the caller's; they are made non-blocking here and blocking again
  // by the destructor (those still alive), so the caller may go on with call() afterwards.
  explicit multiplexer(std::vector<connection*> conns);
  ~multiplexer();
  multiplexer(const multiplexer&) = delete;
  multiplexer& operator=(const multiplexer&) = delete;

  std::size_t size() const { return slots_.size(); }
  connection& at(std::size_t conn) { return *slots_[conn].c; }
  bool alive(std::size_t conn) const { return slots_[conn].alive; }
  // Broken and being retried (alive still: append() queues until it is back).
  bool reconnecting(std::size_t conn) const { return slots_[conn].reconnecting; }
  std::size_t in_flight(std::size_t conn) const { return slots_[conn].tags.size(); }
  std::size_t in_flight() const { return in_flight_; }

  // Buffers a command on a live connection; it is written by the next step().
  void append(std::size_t conn, std::vector<std::string> args, std::uint64_t tag = 0);

  // Writes every connection's buffered commands, waits at most `wait` for a reply (or for
  // wake()), reads what arrived and hands every complete reply to on_reply, in order per
  // connection. Callbacks may append. A connection whose commands got no reply for its
  // connect_options timeout fails with error_kind::timeout. Returns the replies handed back.
  std::size_t step(std::chrono::nanoseconds wait, const reply_fn& on_reply,
                   const failure_fn& on_failure);

  // Thread-safe: makes the step waiting in poll() (or the next one) return at once.
  void wake();

 private:
  using clock = std::chrono::steady_clock;
  struct slot {
    connection* c;
    std::deque<std::uint64_t> tags;  // commands without a reply yet, oldest first
    bool alive = true;
    bool reconnecting = false;  // broken; the connection's next_attempt() says when to retry
    bool output = false;        // buffered bytes not yet written
    clock::time_point since;    // the last progress (a reply, or the first command in flight)
  };
  void fail(std::size_t i, const redis_error& e, const failure_fn& on_failure);
  // A failure: retried if the connection reconnects, else fail().
  void broke(std::size_t i, const redis_error& e, const failure_fn& on_failure);
  // Tries every broken connection whose backoff is over.
  void retry_broken(const failure_fn& on_failure);

  std::vector<slot> slots_;
  std::size_t in_flight_ = 0;
  int wake_fd_ = -1;  // an eventfd in every poll()
};

}  // namespace waitroom::redis
