#pragma once
// An optional record of every state change of the waiting room, for troubleshooting (the
// articles recommend following tokens through the system). The room calls the sink only
// for events inside the filter; without a sink, tracing costs one pointer test.
#include <cstdint>
#include <optional>
#include <unordered_set>

namespace waitroom::models {

struct trace_event {
  std::int64_t time_ns;
  std::uint32_t user;   // the visit's serial
  std::uint64_t token;  // its queue token (the sorted-set member)
  std::uint32_t user_class;
  const char* action;  // enter, direct, refused, release, abandon, age, rescore; with a backend:
                       // reach, no_show, late (decided at the release), reclaim
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
    return users.empty() || users.count(user) > 0;
  }
};

}  // namespace waitroom::models
