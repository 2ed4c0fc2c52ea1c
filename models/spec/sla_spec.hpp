#pragma once
// Service-level targets: the scenario's "sla" block, validated when the scenario loads.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace waitroom::models {

enum class sla_metric {
  mean_wait_s,
  p50_wait_s,
  p90_wait_s,
  p95_wait_s,
  p99_wait_s,
  p999_wait_s,
  max_wait_s,
  refused_share,         // refused / arrived
  waiting_at_end_share,  // still waiting at the end / arrived (starvation)
  abandoned_share,       // gave up / arrived
  // With polling (followed users of the class): the Redis ZSet VIP article's smoothed-rounds ETA,
  // mean absolute error; share of users whose shown (smoothed) rank moved backwards at least once.
  eta_mae_s,
  rank_moved_back_share,
  // Whole-room figures (the same for every class): peak Redis commands in a second (with the
  // status cache), backend response time p95 and error rate.
  redis_peak_per_s,
  backend_p95_rt_s,
  backend_error_rate,
  // Whole-room: the peak Redis memory of the room's sets in MB (10^6 bytes), estimated by the
  // model (models/queues/redis_memory_peak.hpp); needs no Redis.
  redis_memory_mb,
};
// Metrics that need a `polling` or a `backend` block.
bool needs_polling(sla_metric m);
bool needs_backend(sla_metric m);
// Metrics that are a share or a rate of users or requests, within [0, 1].
bool is_share(sla_metric m);
// The quantile a percentile wait metric stands for (p95_wait_s: 0.95); none for the others.
std::optional<double> quantile_of(sla_metric m);

struct sla_target {
  std::int32_t user_class = -1;  // -1: all users
  sla_metric metric = sla_metric::mean_wait_s;
  std::optional<double> max;
  std::optional<double> min;
};

struct sla_spec {
  double confidence = 0.95;
  std::uint32_t replications = 10;
  std::vector<sla_target> targets;
};

const std::vector<std::string>& sla_metric_names();
const char* to_string(sla_metric m);

}  // namespace waitroom::models
