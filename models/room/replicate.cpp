#include "models/room/replicate.hpp"

#include "models/room/summary.hpp"
#include "sim/parallel.hpp"

namespace waitroom::models {

std::vector<room_result> replicate(const scenario& s, std::uint64_t seed,
                                   std::uint32_t replications, unsigned threads,
                                   const std::function<void()>& on_done) {
  std::vector<room_result> out(replications);
  sim::parallel_for(replications, threads, [&](std::size_t r) {
    out[r] = run_scenario(s, seed, r);
    keep_summary_only(out[r]);  // replications keep no time series: --series refuses them
    if (on_done) on_done();
  });
  return out;
}

}  // namespace waitroom::models
