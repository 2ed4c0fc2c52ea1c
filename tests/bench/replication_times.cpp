// Each replication's own time when 8 replications of a scenario run on T threads (as
// models::replicate runs them: each thread takes the next index), to tell the first
// replication on each thread (memory fresh from the kernel) from the rest (docs/perf.md):
//   build/tests/bench/replication_times scenarios/concert_presale.json THREADS
#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <thread>
#include <vector>

#include "models/room/room.hpp"
#include "models/scenario/scenario.hpp"
#include "sim/memory_reuse.hpp"

int main(int argc, char** argv) try {
  using namespace waitroom;
  sim::keep_freed_memory();  // as the program does
  if (argc != 3 || std::atoi(argv[2]) < 1) {
    fmt::print(stderr, "usage: replication_times SCENARIO THREADS\n");
    return 2;
  }
  const auto threads = static_cast<unsigned>(std::atoi(argv[2]));
  const auto s = models::parse_scenario(models::read_json_file(argv[1]), argv[1], ".");
  constexpr std::uint32_t replications = 8;
  struct timing {
    unsigned thread = 0;
    double start = 0, seconds = 0;
  };
  std::vector<timing> t(replications);
  const auto origin = std::chrono::steady_clock::now();
  auto since = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - origin).count();
  };
  std::atomic<std::uint32_t> next{0};
  auto work = [&](unsigned id) {
    for (std::uint32_t r; (r = next.fetch_add(1)) < replications;) {
      const double start = since();
      const auto result = models::run_scenario(s, s.seed, r);
      t[r] = {id, start, since() - start};
    }
  };
  std::vector<std::thread> pool;
  for (unsigned k = 0; k < threads; ++k) pool.emplace_back(work, k);
  for (auto& th : pool) th.join();
  const double total = since();
  for (std::uint32_t r = 0; r < replications; ++r)
    fmt::print("replication {} on thread {}: started {:.3f} s, took {:.3f} s\n", r, t[r].thread,
               t[r].start, t[r].seconds);
  fmt::print("{} replications on {} threads: {:.3f} s\n", replications, threads, total);
  return 0;
} catch (const std::exception& e) {
  fmt::print(stderr, "replication_times: {}\n", e.what());
  return 1;
}
