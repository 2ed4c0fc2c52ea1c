#include "redis/connection.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/time.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>
#include <mutex>
#include <thread>

#include <hiredis/hiredis.h>

namespace waitroom::redis {

const char* to_string(error_kind k) {
  switch (k) {
    case error_kind::bad_url:
      return "bad URL";
    case error_kind::refused:
      return "connection refused";
    case error_kind::unknown_host:
      return "unknown host";
    case error_kind::auth:
      return "authentication failed";
    case error_kind::timeout:
      return "timeout";
    case error_kind::connection:
      return "connection lost";
    case error_kind::oom:
      return "out of memory";
    case error_kind::script:
      return "script error";
    case error_kind::wrong_type:
      return "key of the wrong type";
    case error_kind::reply:
      return "error reply";
    case error_kind::parity:
      return "parity";
  }
  return "error";
}

error_kind classify_error_reply(std::string_view text) {
  if (text.starts_with("OOM ")) return error_kind::oom;
  if (text.starts_with("WRONGTYPE ")) return error_kind::wrong_type;
  if (text.starts_with("NOAUTH ") || text.starts_with("WRONGPASS ") ||
      text.find("invalid password") != std::string_view::npos ||
      text.find("without any password configured") != std::string_view::npos)
    return error_kind::auth;
  if (text.starts_with("NOSCRIPT ") || text.find("user_script:") != std::string_view::npos ||
      text.find("Error running script") != std::string_view::npos ||
      text.find("Error compiling script") != std::string_view::npos)
    return error_kind::script;
  return error_kind::reply;
}

namespace {

timeval to_timeval(std::chrono::milliseconds ms) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(ms.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((ms.count() % 1000) * 1000);
  return tv;
}

void free_context(redisContext* c) {
  if (c != nullptr) redisFree(c);
}

reply convert(const redisReply* r) {
  reply out;
  switch (r->type) {
    case REDIS_REPLY_STRING:
      out.type = reply::kind::string;
      out.str.assign(r->str, r->len);
      break;
    case REDIS_REPLY_STATUS:
      out.type = reply::kind::status;
      out.str.assign(r->str, r->len);
      break;
    case REDIS_REPLY_ERROR:
      out.type = reply::kind::error;
      out.str.assign(r->str, r->len);
      break;
    case REDIS_REPLY_INTEGER:
      out.type = reply::kind::integer;
      out.integer = r->integer;
      break;
    case REDIS_REPLY_ARRAY:
      out.type = reply::kind::array;
      out.elements.reserve(r->elements);
      for (std::size_t i = 0; i < r->elements; ++i) out.elements.push_back(convert(r->element[i]));
      break;
    default:
      out.type = reply::kind::nil;
  }
  return out;
}

// hiredis 0.14 keeps only a message: its text tells refused, unknown host and timeouts apart.
error_kind classify_io(std::string_view errstr) {
  if (errstr.find("refused") != std::string_view::npos ||
      errstr.find("No such file") != std::string_view::npos)
    return error_kind::refused;
  if (errstr.find("not known") != std::string_view::npos ||
      errstr.find("name resolution") != std::string_view::npos ||
      errstr.find("No address") != std::string_view::npos ||
      errstr.find("nodename nor servname") != std::string_view::npos)
    return error_kind::unknown_host;
  if (errstr.find("temporarily unavailable") != std::string_view::npos ||
      errstr.find("timed out") != std::string_view::npos)
    return error_kind::timeout;
  return error_kind::connection;
}

}  // namespace

void add_stats(command_stats& a, const command_stats& b) {
  for (const auto& [name, n] : b.sent) a.sent[name] += n;
  a.round_trips += b.round_trips;
  a.wait_ns += b.wait_ns;
  a.reconnects += b.reconnects;
  a.replayed += b.replayed;
  a.gap_ns += b.gap_ns;
  a.outages.insert(a.outages.end(), b.outages.begin(), b.outages.end());
}

std::int64_t outage_union_ns(std::vector<std::pair<std::int64_t, std::int64_t>> outages) {
  std::sort(outages.begin(), outages.end());
  std::int64_t total = 0, end = INT64_MIN;
  for (const auto& [from, to] : outages) {
    const std::int64_t start = std::max(from, end);
    if (to > start) total += to - start;
    end = std::max(end, to);
  }
  return total;
}

connection::connection(redis_url url, connect_options opt)
    : url_(std::move(url)), opt_(opt), ctx_(nullptr, free_context) {
  open();
}

connection::~connection() = default;

reply connection::simple(std::vector<std::string> args) {
  std::vector<const char*> argv;
  std::vector<std::size_t> lens;
  for (const auto& a : args) {
    argv.push_back(a.data());
    lens.push_back(a.size());
  }
  auto* raw = static_cast<redisReply*>(
      redisCommandArgv(ctx_.get(), static_cast<int>(argv.size()), argv.data(), lens.data()));
  if (raw == nullptr) io_failure(args[0]);
  reply r = convert(raw);
  freeReplyObject(raw);
  ++stats_.round_trips;
  count(args);
  return r;
}

void connection::open() {
  // A write to a server that just died must be an error, not a SIGPIPE that kills the process.
  static std::once_flag ignore_sigpipe;
  std::call_once(ignore_sigpipe, [] { ::signal(SIGPIPE, SIG_IGN); });
  auto tv = to_timeval(opt_.timeout);
  redisContext* c = url_.kind == redis_url::transport::unix_socket
                        ? redisConnectUnixWithTimeout(url_.path.c_str(), tv)
                        : redisConnectWithTimeout(url_.host.c_str(), url_.port, tv);
  if (c == nullptr) throw redis_error(error_kind::connection, "Redis: out of memory connecting");
  ctx_.reset(c);
  if (c->err != 0) {
    std::string why = c->errstr;
    auto kind = classify_io(why);
    std::string hint;
    if (kind == error_kind::refused) hint = " (is redis-server running there?)";
    if (kind == error_kind::unknown_host) hint = " (the host name does not resolve)";
    throw redis_error(kind,
                      "Redis at " + url_.describe() + ": " + to_string(kind) + ": " + why + hint);
  }
  redisSetTimeout(c, tv);
  if (!url_.password.empty()) {
    std::vector<std::string> auth{"AUTH"};
    if (!url_.user.empty()) auth.push_back(url_.user);
    auth.push_back(url_.password);
    reply r = simple(std::move(auth));
    // The reply may quote the user name but never the password, which we do not echo.
    if (r.type == reply::kind::error)
      throw redis_error(error_kind::auth,
                        "Redis at " + url_.describe() + ": authentication failed: " + r.str);
  }
  reply ping = simple({"PING"});
  if (ping.type == reply::kind::error)
    throw redis_error(classify_error_reply(ping.str),
                      "Redis at " + url_.describe() + ": PING: " + ping.str +
                          (classify_error_reply(ping.str) == error_kind::auth
                               ? " (give the password in the URL or WAITROOM_REDIS_PASSWORD)"
                               : ""));
  if (url_.db != 0) {
    reply r = simple({"SELECT", std::to_string(url_.db)});
    if (r.type == reply::kind::error)
      throw redis_error(error_kind::reply, "Redis at " + url_.describe() + ": SELECT: " + r.str);
  }
  for (auto& s : scripts_) {
    reply r = simple({"SCRIPT", "LOAD", s.body});
    if (r.type == reply::kind::error)
      throw redis_error(
          classify_error_reply(r.str),
          "Redis at " + url_.describe() + ": loading script " + s.name + ": " + r.str);
    s.sha = r.str;
  }
}

void connection::reopen() {
  mark_broken();
  while (!attempt_reconnect()) std::this_thread::sleep_until(next_try_);
}

void connection::mark_broken() {
  if (broken_) return;
  broken_ = true;
  broken_at_ = std::chrono::steady_clock::now();
  next_try_ = broken_at_;  // the first try at once, then backoff_first, doubling
  backoff_ = opt_.backoff_first;
}

bool connection::attempt_reconnect() {
  try {
    open();
  } catch (const redis_error& e) {
    if (e.kind() == error_kind::auth || e.kind() == error_kind::unknown_host ||
        e.kind() == error_kind::script)
      throw;
    const auto now = std::chrono::steady_clock::now();
    const auto spent = now - broken_at_;
    if (spent + backoff_ > opt_.give_up_after)
      throw redis_error(
          error_kind::connection,
          "Redis at " + url_.describe() + ": connection lost and not back after " +
              std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(spent).count()) +
              " ms of retries (last: " + e.what() + ")");
    next_try_ = now + backoff_;
    backoff_ = std::min(backoff_ * 2, opt_.backoff_max);
    return false;
  }
  resume();
  return true;
}

void connection::resume() {
  const auto now = std::chrono::steady_clock::now();
  broken_ = false;
  ++stats_.reconnects;
  auto ns = [](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
  };
  stats_.gap_ns += ns(now) - ns(broken_at_);
  stats_.outages.emplace_back(ns(broken_at_), ns(now));
  // Those appended while broken were never sent: they go now, but are no replay.
  replayed_left_ = pending_.size() - unsent_;
  stats_.replayed += replayed_left_;
  unsent_ = 0;
  for (const auto& p : pending_) buffer(p);
  unflushed_ = !pending_.empty();
  if (on_reconnect_) on_reconnect_();  // must not call: replies are pending
}

[[noreturn]] void connection::io_failure(std::string_view during) {
  std::string why = ctx_ && ctx_->err != 0 ? ctx_->errstr : "no reply";
  auto kind = classify_io(why);
  if (kind == error_kind::refused) kind = error_kind::connection;
  throw redis_error(kind, "Redis at " + url_.describe() + ": " + std::string(during) + ": " +
                              to_string(kind) + " (" + why + ", timeout " +
                              std::to_string(opt_.timeout.count()) + " ms)");
}

void connection::count(const std::vector<std::string>& args) {
  // The same command as the last one (a pipeline's usual case): no upper-casing, no map search.
  const bool evalsha =
      args.size() > 1 && args[0].size() == 7 && (args[0][0] == 'E' || args[0][0] == 'e');
  if (last_counter_ != nullptr && args[0] == last_command_ && (!evalsha || args[1] == last_sha_)) {
    ++*last_counter_;
    return;
  }
  std::string name = args[0];
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::toupper(ch)); });
  if (name == "EVALSHA" && args.size() > 1) {
    for (const auto& s : scripts_)
      if (s.sha == args[1]) name += " " + s.name;
  }
  last_counter_ = &stats_.sent[name];  // map nodes stay put
  last_command_ = args[0];
  last_sha_ = evalsha ? args[1] : std::string();
  ++*last_counter_;
}

void connection::buffer(const std::vector<std::string>& args) {
  // RESP written here in one pass and handed over whole: hiredis's own formatter (sdscatfmt
  // per argument) was the largest cost of a pipelined command on the client side.
  std::size_t size = 24;                             // "*N\r\n"
  for (const auto& a : args) size += a.size() + 26;  // "$LEN\r\n" + "\r\n"
  out_.resize(size);
  char* p = out_.data();
  char* const end = p + size;
  auto number = [&](char tag, std::size_t n) {
    *p++ = tag;
    p = std::to_chars(p, end, n).ptr;
    *p++ = '\r';
    *p++ = '\n';
  };
  number('*', args.size());
  for (const auto& a : args) {
    number('$', a.size());
    std::memcpy(p, a.data(), a.size());
    p += a.size();
    *p++ = '\r';
    *p++ = '\n';
  }
  if (redisAppendFormattedCommand(ctx_.get(), out_.data(),
                                  static_cast<std::size_t>(p - out_.data())) != REDIS_OK)
    throw redis_error(error_kind::connection, "Redis: out of memory buffering a command");
}

void connection::append(std::vector<std::string> args) {
  count(args);
  if (broken_)
    ++unsent_;  // resume() buffers it with the other pending ones
  else
    buffer(args);
  pending_.push_back(std::move(args));
  unflushed_ = true;
}

reply connection::read() {
  for (;;) {
    if (pending_.empty()) throw std::logic_error("redis connection: read with nothing pending");
    if (unflushed_) {
      ++stats_.round_trips;
      unflushed_ = false;
    }
    void* raw = nullptr;
    auto t0 = std::chrono::steady_clock::now();
    int rc = redisGetReply(ctx_.get(), &raw);
    stats_.wait_ns +=
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0)
            .count();
    if (rc == REDIS_OK && raw != nullptr) {
      reply r = convert(static_cast<redisReply*>(raw));
      freeReplyObject(raw);
      if (replayed_left_ > 0) {
        r.replayed = true;
        --replayed_left_;
      }
      pending_.pop_front();
      return r;
    }
    if (!opt_.reconnect) io_failure(pending_.front()[0]);
    reopen();
  }
}

reply connection::call(std::span<const std::string> args, std::string_view context) {
  if (!pending_.empty()) throw std::logic_error("redis connection: call with replies pending");
  append(std::vector<std::string>(args.begin(), args.end()));
  reply r = read();
  if (r.type == reply::kind::error) {
    auto kind = classify_error_reply(r.str);
    std::string what = "Redis at " + url_.describe() + ": " + args[0];
    if (!context.empty()) what += " " + std::string(context);
    what += ": " + r.str;
    if (kind == error_kind::oom) what += " (maxmemory reached: raise it or use a larger server)";
    if (kind == error_kind::wrong_type)
      what += " (a key of another type is already there: delete it or choose another run id)";
    throw redis_error(kind, what);
  }
  return r;
}

reply connection::call(std::initializer_list<std::string> args, std::string_view context) {
  std::vector<std::string> v(args);
  return call(std::span<const std::string>(v), context);
}

int connection::fd() const {
  return ctx_->fd;
}

void connection::set_nonblocking(bool on) {
  int flags = ::fcntl(ctx_->fd, F_GETFL);
  if (flags < 0 || ::fcntl(ctx_->fd, F_SETFL, on ? flags | O_NONBLOCK : flags & ~O_NONBLOCK) < 0)
    throw redis_error(error_kind::connection,
                      "Redis at " + url_.describe() + ": cannot change the socket's blocking mode");
  // Without REDIS_BLOCK hiredis treats EAGAIN as "try later" instead of an error (its own
  // non-blocking contexts are made the same way).
  if (on)
    ctx_->flags &= ~REDIS_BLOCK;
  else
    ctx_->flags |= REDIS_BLOCK;
}

bool connection::has_output() const {
  return ctx_->obuf != nullptr && sdslen(ctx_->obuf) > 0;
}

bool connection::flush() {
  int done = 0;
  while (done == 0) {
    const std::size_t before = sdslen(ctx_->obuf);
    if (redisBufferWrite(ctx_.get(), &done) != REDIS_OK)
      io_failure(pending_.empty() ? std::string_view("write") : pending_.back()[0]);
    if (done == 0 && sdslen(ctx_->obuf) == before) return false;  // the socket is full
  }
  return true;
}

void connection::read_ready() {
  if (redisBufferRead(ctx_.get()) != REDIS_OK)
    io_failure(pending_.empty() ? std::string_view("read") : pending_.front()[0]);
}

std::optional<reply> connection::take_reply() {
  if (pending_.empty()) return std::nullopt;
  void* raw = nullptr;
  if (redisGetReplyFromReader(ctx_.get(), &raw) != REDIS_OK) io_failure(pending_.front()[0]);
  if (raw == nullptr) return std::nullopt;
  if (unflushed_) {
    ++stats_.round_trips;
    unflushed_ = false;
  }
  reply r = convert(static_cast<redisReply*>(raw));
  freeReplyObject(raw);
  if (replayed_left_ > 0) {
    r.replayed = true;
    --replayed_left_;
  }
  pending_.pop_front();
  return r;
}

std::size_t connection::add_script(std::string name, std::string body) {
  reply r = call({"SCRIPT", "LOAD", body}, "(" + name + ")");
  scripts_.push_back({std::move(name), std::move(body), r.str});
  last_counter_ = nullptr;  // an EVALSHA of this SHA is now counted under the script's name
  return scripts_.size() - 1;
}

std::vector<std::string> connection::evalsha_args(std::size_t s, std::span<const std::string> keys,
                                                  std::span<const std::string> args) const {
  std::vector<std::string> v;
  v.reserve(3 + keys.size() + args.size());
  v.push_back("EVALSHA");
  v.push_back(scripts_[s].sha);
  v.push_back(std::to_string(keys.size()));
  v.insert(v.end(), keys.begin(), keys.end());
  v.insert(v.end(), args.begin(), args.end());
  return v;
}

}  // namespace waitroom::redis
