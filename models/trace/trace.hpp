#pragma once
// An optional record of every state change of the waiting room, for troubleshooting (the
// articles recommend following tokens through the system). The room calls the sink only
// for events inside the filter; without a sink, tracing costs one pointer test.
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "models/queues/queues.hpp"
#include "models/users/users.hpp"
#include "sim/simulator.hpp"

namespace waitroom::models {

struct trace_event {
  // `user` of a visit that never queued (direct, refused): it has no serial and no token.
  static constexpr std::uint32_t unqueued = 0xffffffffu;
  std::int64_t time_ns;
  std::uint32_t user;   // the visit's serial, or `unqueued`
  std::uint64_t token;  // its queue token (the sorted-set member); 0 when unqueued
  std::uint32_t user_class;
  const char* action;  // enter, direct, refused, release, abandon, age, rescore; with a backend:
                       // reach, done, no_show, late (decided at the release), reclaim
  std::int32_t list;   // the list involved, -1 when none
  std::uint64_t queue_length;  // after the change
};

class trace_sink {
 public:
  virtual ~trace_sink() = default;
  virtual void write(const trace_event& e) = 0;
};

struct trace_filter {
  std::optional<std::int64_t> from_ns, to_ns;
  std::unordered_set<std::uint32_t> users;  // empty: every user
  bool accepts(std::int64_t t, std::uint32_t user) const {
    if (from_ns && t < *from_ns) return false;
    if (to_ns && t > *to_ns) return false;
    if (users.empty()) return true;
    return user != trace_event::unqueued && users.count(user) > 0;
  }
};

// What the components call: one line per state change, with the user's token and the
// queue length after it. Released users' later lines (reach, done, no_show, late, reclaim) keep
// the class noted at the release, as the user's own records may be freed by then.
class tracer {
 public:
  tracer(const sim::simulator& sim, const users& u, const queues& q)
      : sim_(sim), users_(u), queues_(q) {}
  void attach(trace_sink* sink, trace_filter filter) {
    sink_ = sink;
    filter_ = std::move(filter);
  }
  bool on() const { return sink_ != nullptr; }

  // Called on every state change: with tracing off, one load and a branch inline (the
  // compiler had kept the whole line out of line, a call per change); the writing is cold.
  void line(std::uint32_t user, std::uint32_t user_class, const char* action, std::int32_t list) {
    if (sink_) [[unlikely]]
      write_line(user, user_class, action, list);
  }
  // A visit that never entered the queue (admitted at once, or refused): serials and tokens
  // belong to queued users only, so the line carries neither (the next queued user's
  // would match --trace-users wrongly).
  void unqueued_line(std::uint32_t user_class, const char* action) {
    if (sink_) [[unlikely]]
      write_unqueued_line(user_class, action);
  }
  // Notes a released user's class for the lines that follow it.
  void remember(std::uint32_t user, std::uint32_t user_class) {
    if (sink_) released_class_[user] = static_cast<std::uint8_t>(user_class);
  }
  // A later line of a released user, with the class noted at the release.
  void noted_line(std::uint32_t user, const char* action) {
    if (!sink_) return;
    if (auto it = released_class_.find(user); it != released_class_.end())
      line(user, it->second, action, -1);
  }
  // The last line of a released user.
  void last_line(std::uint32_t user, const char* action) {
    if (!sink_) return;
    auto it = released_class_.find(user);
    if (it == released_class_.end()) return;
    line(user, it->second, action, -1);
    released_class_.erase(it);
  }

 private:
  [[gnu::noinline, gnu::cold]] void write_line(std::uint32_t user, std::uint32_t user_class,
                                               const char* action, std::int32_t list) {
    if (!filter_.accepts(sim_.now().ns(), user)) return;
    sink_->write(
        {sim_.now().ns(), user, users_.token_of(user), user_class, action, list, queues_.total()});
  }
  [[gnu::noinline, gnu::cold]] void write_unqueued_line(std::uint32_t user_class,
                                                        const char* action) {
    if (!filter_.accepts(sim_.now().ns(), trace_event::unqueued)) return;
    sink_->write(
        {sim_.now().ns(), trace_event::unqueued, 0, user_class, action, -1, queues_.total()});
  }

  const sim::simulator& sim_;
  const users& users_;
  const queues& queues_;
  trace_sink* sink_ = nullptr;
  trace_filter filter_;
  std::unordered_map<std::uint32_t, std::uint8_t> released_class_;
};

}  // namespace waitroom::models
