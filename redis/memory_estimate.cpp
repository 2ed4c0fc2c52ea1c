// The estimate itself lives in models/queues/redis_memory.hpp (the model sizes Redis without
// linking hiredis); here its figures are checked at compile time against hand-computed ones.
#include "models/queues/redis_memory.hpp"

namespace waitroom::redis {
namespace rm = models::redis_memory;
static_assert(rm::jemalloc_class(24) == 32);
static_assert(rm::jemalloc_class(40) == 48);
static_assert(rm::jemalloc_class(136) == 160);
static_assert(rm::jemalloc_class(257) == 320);
static_assert(rm::sds_bytes(16) == 32);  // 1 + 16 + 1 = 18
static_assert(rm::sds_bytes(81) == 96);  // 3 + 81 + 1 = 85
static_assert(rm::dict_table_bytes(1'000'000) == 8u << 20);
}  // namespace waitroom::redis
