#include "models/room/replicate.hpp"

#include <mutex>
#include <optional>

#include "models/room/summary.hpp"
#include "sim/parallel.hpp"

namespace waitroom::models {

std::vector<room_result> replicate(const scenario& s, std::uint64_t seed,
                                   std::uint32_t replications, unsigned threads,
                                   const std::function<void()>& on_done, series_bands* bands) {
  std::mutex bands_mutex;  // integer sums: the order replications are added in does not matter
  // Empty slots until each replication fills its own: a default room_result holds dense
  // histograms (64 KiB each), which for 100,000 replications was 20 GB before any ran.
  std::vector<std::optional<room_result>> slots(replications);
  sim::parallel_for(replications, threads, [&](std::size_t r) {
    room_result one = run_scenario(s, seed, r);
    if (bands) {
      std::lock_guard lock(bands_mutex);
      bands->add(one);
    }
    keep_summary_only(one);  // replications keep no time series: --series refuses them
    slots[r] = std::move(one);
    if (on_done) on_done();
  });
  std::vector<room_result> out;
  out.reserve(replications);
  for (auto& r : slots) out.push_back(std::move(*r));
  return out;
}

}  // namespace waitroom::models
