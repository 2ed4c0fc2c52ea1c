#include "models/run/replicate.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>

#include "models/run/summary.hpp"
#include "sim/parallel.hpp"

namespace waitroom::models {

void replicate_each(const scenario& s, std::uint64_t seed, std::uint32_t replications,
                    unsigned threads, const std::function<void(room_result&&)>& consume,
                    const std::function<void()>& on_done, series_bands* bands,
                    const std::atomic<bool>* stop) {
  threads = std::max(1u, std::min(threads, replications));
  // A replication starts only within `window` of the oldest one not yet consumed, so that a
  // slow or descheduled one never leaves thousands of finished ones waiting behind it.
  const std::uint32_t window = 2 * threads;
  std::mutex mutex;  // bands' integer sums do not depend on the order replications come in
  std::condition_variable turn;
  std::map<std::uint32_t, room_result> finished;  // waiting for an earlier one
  std::uint32_t next = 0;                         // the replication consume takes next
  bool failed = false;                            // stop waiting: an error ends the run
  std::atomic<std::uint32_t> claim{0};
  sim::parallel_for(threads, threads, [&](std::size_t) {
    for (std::uint32_t r; (r = claim.fetch_add(1)) < replications;) {
      {
        std::unique_lock lock(mutex);
        turn.wait(lock, [&] { return failed || r < next + window; });
        if (failed) return;
      }
      try {
        room_result one = stop ? run_scenario(s, seed, r,
                                              [stop](double, std::uint64_t, std::uint64_t) {
                                                if (stop->load(std::memory_order_relaxed))
                                                  throw replications_stopped();
                                              })
                               : run_scenario(s, seed, r);
        if (bands) {
          std::lock_guard lock(mutex);
          bands->add(one);
        }
        keep_summary_only(one);  // replications keep no time series: --series refuses them
        std::lock_guard lock(mutex);
        finished.emplace(r, std::move(one));
        for (auto it = finished.begin(); it != finished.end() && it->first == next;
             it = finished.erase(it), ++next)
          consume(std::move(it->second));
      } catch (...) {
        {
          std::lock_guard lock(mutex);
          failed = true;
        }
        turn.notify_all();
        throw;
      }
      turn.notify_all();
      if (on_done) on_done();
    }
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
