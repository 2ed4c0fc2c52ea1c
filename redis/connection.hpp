#pragma once
// One connection to Redis over hiredis: a timeout on every call, AUTH and SELECT from the URL,
// pipelining, scripts loaded once and called with EVALSHA, counts of what was sent, and a
// bounded reconnect that replays the commands whose replies were not read.
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "redis/error.hpp"
#include "redis/url.hpp"

struct redisContext;

namespace waitroom::redis {

struct reply {
  enum class kind { string, integer, array, nil, status, error };
  kind type = kind::nil;
  long long integer = 0;
  std::string str;  // string, status or error text
  std::vector<reply> elements;
  bool replayed = false;  // sent again after a reconnect: it may have run twice
};

struct connect_options {
  std::chrono::milliseconds timeout{2000};  // connect and every read or write
  bool reconnect = false;                   // on a broken connection: retry, replay
  std::chrono::milliseconds backoff_first{10};
  std::chrono::milliseconds backoff_max{500};
  std::chrono::milliseconds give_up_after{20000};  // then redis_error{connection}
};

struct command_stats {
  std::map<std::string, std::uint64_t> sent;  // by command (EVALSHA by script name)
  std::uint64_t round_trips = 0;
  std::int64_t wait_ns = 0;  // blocked writing or reading
  std::uint64_t reconnects = 0;
  std::uint64_t replayed = 0;  // commands sent again after a reconnect
  std::int64_t gap_ns = 0;     // from the broken call to the connection back
  // Each gap as [from, to) in steady_clock nanoseconds, so gaps of several connections can
  // be merged into the wall time during which any was down.
  std::vector<std::pair<std::int64_t, std::int64_t>> outages;
};

// Adds b's counts to a (the stats of several connections as one).
void add_stats(command_stats& a, const command_stats& b);
// Wall nanoseconds covered by at least one of the outages (overlaps counted once).
std::int64_t outage_union_ns(std::vector<std::pair<std::int64_t, std::int64_t>> outages);

// A Lua script known by name; its SHA1 is filled in when loaded.
struct script {
  std::string name;
  std::string body;
  std::string sha;
};

// An error reply's kind: OOM, WRONGTYPE, script errors, auth errors, others.
error_kind classify_error_reply(std::string_view text);

class connection {
 public:
  connection(redis_url url, connect_options opt = {});
  ~connection();
  connection(const connection&) = delete;
  connection& operator=(const connection&) = delete;

  // One command, one round trip. An error reply throws redis_error of its kind; `context`
  // (e.g. the key) is added to the message.
  reply call(std::span<const std::string> args, std::string_view context = {});
  reply call(std::initializer_list<std::string> args, std::string_view context = {});

  // Pipelining: append commands, then read their replies in order (error replies are
  // returned, not thrown, so the caller can name the command).
  void append(std::vector<std::string> args);
  reply read();
  std::size_t pending() const { return pending_.size(); }

  // Loads the script now and again after every reconnect; returns its index for evalsha.
  std::size_t add_script(std::string name, std::string body);
  std::vector<std::string> evalsha_args(std::size_t script, std::span<const std::string> keys,
                                        std::span<const std::string> args) const;
  const script& script_at(std::size_t i) const { return scripts_[i]; }

  // Multiplexing (redis/multiplex.hpp): one thread drives several connections through these.
  // An I/O error throws redis_error; with opt.reconnect the multiplexer then calls
  // mark_broken() and attempt_reconnect() when next_attempt() is due, so one connection's
  // backoff never blocks the others.
  int fd() const;
  std::chrono::milliseconds timeout() const { return opt_.timeout; }
  // Non-blocking socket: flush and read_ready never wait; call/read must not be used then.
  void set_nonblocking(bool on);
  bool flush();  // writes what the socket takes now; true when nothing is left to write
  bool has_output() const;
  void read_ready();  // reads what the socket holds (poll() said readable); EOF throws
  std::optional<reply> take_reply();  // the next complete reply already read, if any

  // Reconnecting step by step. mark_broken(): the socket is unusable from now (the gap starts;
  // commands appended meanwhile wait in pending()). attempt_reconnect(): one try; true when
  // back (scripts reloaded, every pending command buffered again, counted as replayed, the
  // socket blocking again), false when it should be tried again at next_attempt(); throws
  // redis_error{connection} once the give_up_after budget is spent, and auth, unknown-host
  // and script errors at once (retrying cannot help them).
  void mark_broken();
  bool broken() const { return broken_; }
  bool attempt_reconnect();
  std::chrono::steady_clock::time_point next_attempt() const { return next_try_; }
  const connect_options& options() const { return opt_; }

  const command_stats& stats() const { return stats_; }
  const redis_url& url() const { return url_; }
  // Called after each reconnect (the mirror checks Redis's state against the model's).
  void on_reconnect(std::function<void()> f) { on_reconnect_ = std::move(f); }

 private:
  void open();    // connect, AUTH, SELECT, load scripts; throws
  void reopen();  // bounded backoff; throws redis_error{connection} when given up
  void resume();  // after open() succeeded on a broken connection: count, replay
  void buffer(const std::vector<std::string>& args);
  reply simple(std::vector<std::string> args);  // on a fresh context, no replay
  [[noreturn]] void io_failure(std::string_view during);
  void count(const std::vector<std::string>& args);

  redis_url url_;
  connect_options opt_;
  std::unique_ptr<redisContext, void (*)(redisContext*)> ctx_;
  std::vector<script> scripts_;
  // Commands written but whose replies are not yet read (replayed after a reconnect).
  std::deque<std::vector<std::string>> pending_;
  std::size_t replayed_left_ = 0;  // the first pending commands are replays
  bool unflushed_ = false;         // appended since the last read: the next read is a round trip
  command_stats stats_;
  // count()'s last command, so a run of the same one is counted without a map search.
  std::uint64_t* last_counter_ = nullptr;
  std::string last_command_, last_sha_;
  std::string out_;  // buffer()'s RESP, reused
  std::function<void()> on_reconnect_;
  // Reconnect state (mark_broken / attempt_reconnect).
  bool broken_ = false;
  std::chrono::steady_clock::time_point broken_at_{}, next_try_{};
  std::chrono::milliseconds backoff_{0};
  std::size_t unsent_ = 0;  // the last pending commands, appended while broken
};

}  // namespace waitroom::redis
