#pragma once
// Concurrent releasers: K threads, each with its own connection (as K gateway instances),
// release from one list until it is empty, with the atomic Lua script or with the articles'
// non-atomic ZRANGE-then-ZREM. Every member each releaser got is logged; duplicates and
// losses are counted from the logs and from the released set.
#include <cstdint>

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
};

releasers_result run_concurrent_releasers(const redis_url& url, const key_layout& keys,
                                          const releasers_options& opt);

}  // namespace waitroom::redis
