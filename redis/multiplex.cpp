#include "redis/multiplex.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace waitroom::redis {

multiplexer::multiplexer(std::vector<connection*> conns) {
  wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ < 0)
    throw redis_error(
        error_kind::connection,
        std::string("Redis client: cannot create an eventfd (") + std::strerror(errno) + ")");
  slots_.reserve(conns.size());
  try {
    for (auto* c : conns) {
      c->set_nonblocking(true);
      slots_.push_back({c, {}, true, false, false, clock::now()});
    }
  } catch (...) {
    for (auto& s : slots_) s.c->set_nonblocking(false);
    ::close(wake_fd_);
    throw;
  }
}

multiplexer::~multiplexer() {
  for (auto& s : slots_) {
    if (!s.alive || s.reconnecting) continue;
    try {
      s.c->set_nonblocking(false);
    } catch (const redis_error&) {
      // A socket whose mode cannot change is unusable anyway; the caller's next call fails.
    }
  }
  ::close(wake_fd_);
}

void multiplexer::append(std::size_t conn, std::vector<std::string> args, std::uint64_t tag) {
  auto& s = slots_.at(conn);
  if (!s.alive) throw std::logic_error("redis multiplexer: append on a failed connection");
  s.c->append(std::move(args));
  if (s.tags.empty()) s.since = clock::now();
  s.tags.push_back(tag);
  s.output = true;
  ++in_flight_;
}

void multiplexer::wake() {
  const std::uint64_t one = 1;
  // A full counter (2^64 - 2 wakes unread) already wakes the poll; nothing else can fail here.
  [[maybe_unused]] auto n = ::write(wake_fd_, &one, sizeof one);
}

void multiplexer::broke(std::size_t i, const redis_error& e, const failure_fn& on_failure) {
  auto& s = slots_[i];
  if (!s.c->options().reconnect) {
    fail(i, e, on_failure);
    return;
  }
  s.c->mark_broken();
  s.reconnecting = true;
  s.output = false;
}

void multiplexer::retry_broken(const failure_fn& on_failure) {
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    auto& s = slots_[i];
    if (!s.alive || !s.reconnecting || clock::now() < s.c->next_attempt()) continue;
    try {
      if (!s.c->attempt_reconnect()) continue;
      s.reconnecting = false;
      s.c->set_nonblocking(true);
      s.output = s.c->has_output();  // the commands without a reply, buffered again
      s.since = clock::now();
    } catch (const redis_error& e) {
      s.reconnecting = false;
      fail(i, e, on_failure);  // the budget is spent (or retrying cannot help)
    }
  }
}

void multiplexer::fail(std::size_t i, const redis_error& e, const failure_fn& on_failure) {
  auto& s = slots_[i];
  s.alive = false;
  s.output = false;
  std::vector<std::uint64_t> lost(s.tags.begin(), s.tags.end());
  in_flight_ -= s.tags.size();
  s.tags.clear();
  on_failure(i, e, std::move(lost));
}

std::size_t multiplexer::step(std::chrono::nanoseconds wait, const reply_fn& on_reply,
                              const failure_fn& on_failure) {
  retry_broken(on_failure);
  // Write first: every connection's commands leave before we wait for any reply.
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    auto& s = slots_[i];
    if (!s.alive || s.reconnecting || !s.output) continue;
    try {
      s.output = !s.c->flush();
    } catch (const redis_error& e) {
      broke(i, e, on_failure);
    }
  }
  thread_local std::vector<pollfd> fds;
  thread_local std::vector<std::size_t> which;
  fds.clear();
  which.clear();
  fds.push_back({wake_fd_, POLLIN, 0});
  auto now = clock::now();
  auto deadline = now + wait;
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    auto& s = slots_[i];
    if (s.alive && s.reconnecting) deadline = std::min(deadline, s.c->next_attempt());
    if (!s.alive || s.reconnecting || s.tags.empty()) continue;
    fds.push_back({s.c->fd(), static_cast<short>(POLLIN | (s.output ? POLLOUT : 0)), 0});
    which.push_back(i);
    deadline = std::min(deadline, s.since + s.c->timeout());
  }
  auto left = std::max(deadline - now, clock::duration::zero());
  auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(left).count();
  timespec ts{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
  int ready = ::ppoll(fds.data(), fds.size(), &ts, nullptr);
  if (ready < 0 && errno != EINTR)
    throw redis_error(error_kind::connection,
                      std::string("Redis client: poll failed (") + std::strerror(errno) + ")");
  std::size_t delivered = 0;
  if (ready > 0) {
    if ((fds[0].revents & POLLIN) != 0) {
      std::uint64_t count = 0;
      [[maybe_unused]] auto n = ::read(wake_fd_, &count, sizeof count);
    }
    now = clock::now();
    for (std::size_t k = 1; k < fds.size(); ++k) {
      const short ev = fds[k].revents;
      const std::size_t i = which[k - 1];
      auto& s = slots_[i];
      if (!s.alive || s.reconnecting || ev == 0) continue;
      try {
        if ((ev & (POLLIN | POLLHUP | POLLERR)) != 0) s.c->read_ready();
        while (!s.tags.empty()) {
          auto r = s.c->take_reply();
          if (!r) break;
          const std::uint64_t tag = s.tags.front();
          s.tags.pop_front();
          --in_flight_;
          s.since = now;
          ++delivered;
          on_reply(i, tag, std::move(*r));
          if (!s.alive) break;  // the callback cannot fail it, but stay safe
        }
      } catch (const redis_error& e) {
        broke(i, e, on_failure);
      }
    }
  }
  // Commands in flight for longer than the connection's timeout without any reply.
  now = clock::now();
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    auto& s = slots_[i];
    if (!s.alive || s.reconnecting || s.tags.empty() || now - s.since < s.c->timeout()) continue;
    broke(i,
          redis_error(error_kind::timeout, "Redis at " + s.c->url().describe() + ": no reply for " +
                                               std::to_string(s.c->timeout().count()) +
                                               " ms with " + std::to_string(s.tags.size()) +
                                               " commands in flight (timeout)"),
          on_failure);
  }
  return delivered;
}

}  // namespace waitroom::redis
