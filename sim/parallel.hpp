#pragma once
// Runs f(0) ... f(n-1) on up to `threads` threads. Each index is independent and writes its
// own slot, so the caller's results are the same whatever the thread count; only the wall
// time changes. The first exception (by index) is rethrown after all threads finish; a
// thread the system cannot start is an input_error naming --threads.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "sim/input_error.hpp"

namespace waitroom::sim {

// The error for a thread the system cannot start (a process or memory limit): bad input
// naming what asked for `requested` threads (a flag or a scenario key), exit 2 in the
// program, instead of std::terminate or a silent change of the count.
inline input_error thread_refused(const std::string& where, unsigned requested, unsigned index,
                                  const std::system_error& e, const std::string& hint) {
  return input_error(where, "a number of threads the system can start",
                     std::to_string(requested) + ": thread " + std::to_string(index + 1) +
                         " could not be started (" + e.code().message() + ")",
                     hint);
}

// Starts f on a new thread at the end of `pool`; false, with the system's error in `refusal`,
// when the thread cannot be started (the caller stops the threads already started and throws
// thread_refused).
template <class Pool, class F>
bool try_start(Pool& pool, std::optional<std::system_error>& refusal, F&& f) {
  try {
    pool.emplace_back(std::forward<F>(f));
    return true;
  } catch (const std::system_error& e) {
    refusal.emplace(e);
    return false;
  }
}

template <class F>
void parallel_for(std::size_t n, unsigned threads, F&& f) {
  threads = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(n)));
  // The error of the lowest index (not one slot per index: 100,000 replications would hold
  // 800 KB of them).
  std::mutex error_mutex;
  std::exception_ptr first_error;
  std::size_t first_index = n;
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < n;) {
      try {
        f(i);
      } catch (...) {
        std::lock_guard lock(error_mutex);
        if (i < first_index) {
          first_index = i;
          first_error = std::current_exception();
        }
      }
    }
  };
  std::optional<input_error> refused;
  {
    std::vector<std::jthread> pool;
    // A thread the system refuses (a process or memory limit) stops the run with a clear
    // message (exit 2 in the program) instead of a terminate or a silent change of --threads.
    for (unsigned t = 1; t < threads && !refused; ++t) {
      try {
        pool.emplace_back(work);
      } catch (const std::system_error& e) {
        next.store(n);  // the workers already started finish their current index and stop
        refused.emplace(
            thread_refused("--threads", threads, t, e,
                           "give a smaller --threads; the results do not depend on it"));
      }
    }
    if (!refused) work();
  }  // the pool joins here
  if (refused) throw *refused;
  if (first_error) std::rethrow_exception(first_error);
}

}  // namespace waitroom::sim
