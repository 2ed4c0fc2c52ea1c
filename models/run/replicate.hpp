#pragma once
// Independent replications of one scenario: replication r draws from streams keyed by
// (seed, r), so the results do not depend on how many threads ran them.
#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <vector>

#include "models/room/room.hpp"
#include "models/run/series_bands.hpp"

namespace waitroom::models {

struct replications_stopped : std::exception {
  const char* what() const noexcept override { return "replications stopped"; }
};

// Runs the replications on `threads` threads and hands each finished one to `consume` in
// replication order (0, 1, ...), one call at a time, so that what the caller keeps need not
// grow with their number: a finished replication waits only while one before it still runs.
// on_done and bands as for replicate(). When `stop` (optional) becomes true, every running
// replication ends at its next sample and replications_stopped is thrown (a caller's Ctrl-C).
void replicate_each(const scenario& s, std::uint64_t seed, std::uint32_t replications,
                    unsigned threads, const std::function<void(room_result&&)>& consume,
                    const std::function<void()>& on_done = {}, series_bands* bands = nullptr,
                    const std::atomic<bool>* stop = nullptr);

// on_done (optional) is called after each replication finishes, from the thread that ran it.
// bands (optional, empty) receives every replication's queue samples before they are dropped.
std::vector<room_result> replicate(const scenario& s, std::uint64_t seed,
                                   std::uint32_t replications, unsigned threads,
                                   const std::function<void()>& on_done = {},
                                   series_bands* bands = nullptr);

}  // namespace waitroom::models
