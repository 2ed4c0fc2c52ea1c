#pragma once
// The peak over a run of the Redis memory the room's sets would take (redis_memory.hpp's
// estimate): the waiting users' sorted sets (a lottery's class sets) and the released set the
// release script fills. What a Redis holding only this run's keys adds to its used_memory.
#include <cstdint>

#include "models/queues/queues.hpp"
#include "models/spec/scenario.hpp"

namespace waitroom::models {

class redis_memory_peak {
 public:
  explicit redis_memory_peak(const scenario& s);
  // The sets as they are now, with `released` members in the released set. The estimate only
  // falls when users leave (release, abandonment), so calling this before each release and at
  // the end finds its peak but for abandonments between two releases.
  void observe(const queues& q, std::uint64_t released);
  double peak_bytes() const { return peak_; }

 private:
  std::uint64_t member_len_;
  std::uint32_t classes_;
  double peak_ = 0;
};

}  // namespace waitroom::models
