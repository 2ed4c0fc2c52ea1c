#include "models/room/replicate.hpp"

#include <map>
#include <mutex>

#include "models/room/summary.hpp"
#include "sim/parallel.hpp"

namespace waitroom::models {

void replicate_each(const scenario& s, std::uint64_t seed, std::uint32_t replications,
                    unsigned threads, const std::function<void(room_result&&)>& consume,
                    const std::function<void()>& on_done, series_bands* bands) {
  std::mutex mutex;  // bands' integer sums do not depend on the order replications come in
  std::map<std::uint32_t, room_result> finished;  // waiting for an earlier one
  std::uint32_t next = 0;                         // the replication consume takes next
  sim::parallel_for(replications, threads, [&](std::size_t r) {
    room_result one = run_scenario(s, seed, r);
    if (bands) {
      std::lock_guard lock(mutex);
      bands->add(one);
    }
    keep_summary_only(one);  // replications keep no time series: --series refuses them
    std::lock_guard lock(mutex);
    finished.emplace(static_cast<std::uint32_t>(r), std::move(one));
    for (auto it = finished.begin(); it != finished.end() && it->first == next;
         it = finished.erase(it), ++next)
      consume(std::move(it->second));
    if (on_done) on_done();
  });
}

std::vector<room_result> replicate(const scenario& s, std::uint64_t seed,
                                   std::uint32_t replications, unsigned threads,
                                   const std::function<void()>& on_done, series_bands* bands) {
  std::vector<room_result> out;
  out.reserve(replications);
  replicate_each(
      s, seed, replications, threads, [&out](room_result&& r) { out.push_back(std::move(r)); },
      on_done, bands);
  return out;
}

}  // namespace waitroom::models
