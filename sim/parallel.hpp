#pragma once
// Runs f(0) ... f(n-1) on up to `threads` threads. Each index is independent and writes its
// own slot, so the caller's results are the same whatever the thread count; only the wall
// time changes. The first exception (by index) is rethrown after all threads finish.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <system_error>
#include <thread>
#include <vector>

namespace waitroom::sim {

template <class F>
void parallel_for(std::size_t n, unsigned threads, F&& f) {
  threads = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(n)));
  std::vector<std::exception_ptr> errors(n);
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < n;) {
      try {
        f(i);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  {
    std::vector<std::jthread> pool;
    // A thread the system refuses (a process or memory limit) is one fewer worker: results
    // do not depend on the thread count, and the calling thread always works.
    for (unsigned t = 1; t < threads; ++t) {
      try {
        pool.emplace_back(work);
      } catch (const std::system_error&) {
        break;
      }
    }
    work();
  }
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace waitroom::sim
