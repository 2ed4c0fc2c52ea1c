// Run-loop cost per event: 1,000 entities, each rescheduling itself a pseudo-random
// 1..1024 ns later (an M/M/1-like heap of ~1,000 events), 4M events.
#include <cstdio>
#include "sim/simulator.hpp"
using namespace waitroom::sim;
struct model {
  simulator* s;
  std::uint64_t x = 88172645463325252ull, n = 0;
  void handle(const event& e) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    ++n;
    s->schedule(sim_time::from_ns(e.time_ns + 1 + static_cast<std::int64_t>(x & 1023)), 0, 0,
                e.arg);
  }
  bool done() const { return false; }
};
int main() {
  simulator s;
  model m{&s};
  for (std::uint32_t i = 0; i < 1000; ++i) s.schedule(sim_time::from_ns(i), 0, 0, i);
  stop_conditions stop;
  stop.max_events = 4'000'000;
  s.run(m, stop);
  std::printf("%llu events, now %lld\n", static_cast<unsigned long long>(m.n),
              static_cast<long long>(s.now().ns()));
}
