#include "baselines.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <functional>
#include <queue>
#include <utility>
#include <vector>

#include <ext/pb_ds/assoc_container.hpp>
#include <ext/pb_ds/tree_policy.hpp>

#include "sim/random.hpp"

namespace waitroom::bench {

baseline_result plain_priority_mm1(double duration_s, std::uint64_t seed) {
  // The streams waitroom's room uses for the same draws.
  sim::rng arrivals(seed, 0, "arrivals");
  sim::rng classes(seed, 0, "class");
  sim::rng service(seed, 0, "service");
  auto exponential = [](sim::rng& r, double mean) { return -mean * std::log(r.uniform_open0()); };

  struct event {
    double t;
    std::uint64_t seq;  // ties in insertion order, as in waitroom's heap
    int kind;           // 0 arrival, 1 departure
    bool operator>(const event& o) const { return t != o.t ? t > o.t : seq > o.seq; }
  };
  std::priority_queue<event, std::vector<event>, std::greater<>> heap;
  std::deque<double> waiting[2];  // entry times, VIP first
  std::uint64_t seq = 0;
  bool busy = false;
  double wait_sum[2] = {0, 0};
  std::uint64_t served[2] = {0, 0};
  baseline_result out;

  auto start_service = [&](double now, int c, double entered) {
    busy = true;
    wait_sum[c] += now - entered;
    ++served[c];
    heap.push({now + exponential(service, 1.0), seq++, 1});
  };

  heap.push({exponential(arrivals, 1.0 / 0.8), seq++, 0});
  while (!heap.empty()) {
    event e = heap.top();
    heap.pop();
    ++out.events;
    if (e.kind == 0) {
      ++out.customers;
      double next = e.t + exponential(arrivals, 1.0 / 0.8);
      if (next < duration_s) heap.push({next, seq++, 0});
      int c = classes.uniform01() < 0.25 ? 0 : 1;
      if (!busy) {
        start_service(e.t, c, e.t);
      } else {
        waiting[c].push_back(e.t);
        out.peak_waiting =
            std::max<std::uint64_t>(out.peak_waiting, waiting[0].size() + waiting[1].size());
      }
    } else {
      busy = false;
      int c = waiting[0].empty() ? 1 : 0;
      if (!waiting[c].empty()) {
        double entered = waiting[c].front();
        waiting[c].pop_front();
        start_service(e.t, c, entered);
      }
    }
  }
  for (int c = 0; c < 2; ++c)
    out.mean_wait_s[c] = served[c] ? wait_sum[c] / static_cast<double>(served[c]) : 0.0;
  return out;
}

baseline_result pbds_flash_crowd(std::uint64_t users, std::uint64_t batch, std::uint64_t seed) {
  using key = std::pair<std::int64_t, std::uint64_t>;  // (score ms, serial * 2 + is_vip)
  using tree = __gnu_pbds::tree<key, __gnu_pbds::null_type, std::less<key>, __gnu_pbds::rb_tree_tag,
                                __gnu_pbds::tree_order_statistics_node_update>;
  constexpr std::int64_t vip_offset_ms = 10000;
  constexpr std::int64_t tick_ms = 200;
  sim::rng arrivals(seed, 0, "arrivals");
  sim::rng classes(seed, 0, "class");
  const double rate_per_s = static_cast<double>(users) / 60.0;

  tree waiting;
  baseline_result out;
  double wait_sum_ms[2] = {0, 0};
  std::uint64_t released[2] = {0, 0};
  std::uint64_t serial = 0;
  double t_s = -std::log(arrivals.uniform_open0()) / rate_per_s;
  std::int64_t next_tick_ms = tick_ms;
  for (;;) {
    const bool arrivals_open = t_s < 60.0;
    if (arrivals_open && t_s * 1e3 < static_cast<double>(next_tick_ms)) {
      const auto now_ms = static_cast<std::int64_t>(t_s * 1e3);
      const bool vip = classes.uniform01() < 0.2;
      waiting.insert({vip ? now_ms - vip_offset_ms : now_ms, serial++ * 2 + (vip ? 1 : 0)});
      ++out.customers;
      ++out.events;
      out.peak_waiting = std::max<std::uint64_t>(out.peak_waiting, waiting.size());
      t_s -= std::log(arrivals.uniform_open0()) / rate_per_s;
      continue;
    }
    if (!arrivals_open && waiting.empty()) break;
    ++out.events;  // a tick
    for (std::uint64_t i = 0; i < batch && !waiting.empty(); ++i) {
      auto head = waiting.begin();
      const int c = static_cast<int>(head->second & 1);
      const std::int64_t entered = head->first + (c ? vip_offset_ms : 0);
      wait_sum_ms[1 - c] += static_cast<double>(next_tick_ms - entered);
      ++released[1 - c];
      waiting.erase(head);
    }
    next_tick_ms += tick_ms;
  }
  for (int c = 0; c < 2; ++c)
    out.mean_wait_s[c] =
        released[c] ? wait_sum_ms[c] * 1e-3 / static_cast<double>(released[c]) : 0.0;
  return out;
}

}  // namespace waitroom::bench
