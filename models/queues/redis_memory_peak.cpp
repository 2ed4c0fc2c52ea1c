#include "models/queues/redis_memory_peak.hpp"

#include <algorithm>

#include "models/queues/redis_memory.hpp"

namespace waitroom::models {

redis_memory_peak::redis_memory_peak(const scenario& s)
    : member_len_(s.redis.tokens == token_format::signed_hmac ? redis_memory::signed_member_len
                                                              : redis_memory::hex_member_len),
      classes_(static_cast<std::uint32_t>(s.classes.size())) {}

void redis_memory_peak::observe(const queues& q, std::uint64_t released) {
  // An empty set is no key at all in Redis.
  double bytes = released ? redis_memory::set_bytes(released, member_len_) : 0.0;
  if (q.lottery()) {
    for (std::uint32_t c = 0; c < classes_; ++c)
      if (const std::uint64_t n = q.set_size(c)) bytes += redis_memory::set_bytes(n, member_len_);
  } else {
    for (const std::uint64_t n : q.sizes())
      if (n) bytes += redis_memory::zset_bytes(n, member_len_);
  }
  peak_ = std::max(peak_, bytes);
}

}  // namespace waitroom::models
