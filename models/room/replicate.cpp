#include "models/room/replicate.hpp"

#include <optional>

#include "models/room/summary.hpp"
#include "sim/parallel.hpp"

namespace waitroom::models {

std::vector<room_result> replicate(const scenario& s, std::uint64_t seed,
                                   std::uint32_t replications, unsigned threads,
                                   const std::function<void()>& on_done) {
  // Empty slots until each replication fills its own: a default room_result holds dense
  // histograms (64 KiB each), which for 100,000 replications was 20 GB before any ran.
  std::vector<std::optional<room_result>> slots(replications);
  sim::parallel_for(replications, threads, [&](std::size_t r) {
    room_result one = run_scenario(s, seed, r);
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
