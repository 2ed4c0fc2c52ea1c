// waitroom_bench: end-to-end throughput and memory of the engine on the issue's two
// reference workloads. Reports the median of several runs (this machine is noisy).
//
//   waitroom_bench [--runs N] [--scale F] [--only NAME]
//
// (a) priority_mm1: two-class non-preemptive priority M/M/1 (lambda 0.2 + 0.6, mu 1),
//     10M customers, level-prefix policy, concurrency release with one slot.
// (b) flash_crowd: 10M users arrive within 60 s, 20% VIP with a 10 s offset, 200 ms ticks
//     releasing 3,334 users each (drains in about 10 minutes).
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "models/room/room.hpp"
#include "models/scenario/scenario.hpp"
#include "models/zset/zset.hpp"
#include "sim/random.hpp"

using namespace waitroom;

namespace {

struct workload {
  std::string name;
  std::string json;
};

std::vector<workload> workloads(double scale) {
  double n = 10e6 * scale;
  std::string mm1 = fmt::format(R"({{"name": "priority_mm1",
    "classes": [{{"name": "vip", "share": 0.25, "level": 0}}, {{"name": "normal", "share": 0.75, "level": 1}}],
    "arrivals": {{"process": "piecewise", "segments": [{{"duration_s": {}, "rate_per_s": 0.8}}]}},
    "queue": {{"policy": "level", "time_unit": "us"}},
    "release": {{"mode": "concurrency", "slots": 1, "session_s": {{"dist": "exponential", "mean": 1.0}}}},
    "run": {{"sample_interval_s": 100000}}}})",
                                n / 0.8);
  // The flash crowd under each selection policy (issue 3: none may fall below half of the
  // offset policy's users/s). Two lists, VIP first, where a policy needs lists.
  auto flash = [&](const std::string& queue_extra, const std::string& selection,
                   const std::string& top_extra = "") {
    return fmt::format(R"({{"name": "flash_crowd",
    "classes": [{{"name": "vip", "share": 0.2, "offset_ms": 10000}}, {{"name": "normal", "share": 0.8}}],
    "arrivals": {{"process": "piecewise", "segments": [{{"duration_s": 60, "rate_per_s": {}}}]}},
    "queue": {{"policy": "offset", "time_unit": "ms"{}}},
    "release": {{"mode": "tick", "interval_ms": 200, "batch": {}{}}},
    "run": {{"sample_interval_s": 1}}{}}})",
                       n / 60.0, queue_extra, static_cast<int>(n / 3000.0 + 1), selection,
                       top_extra);
  };
  const std::string two_lists =
      R"(, "lists": [{"name": "vip", "classes": ["vip"]}, {"name": "normal", "classes": ["normal"]}])";
  const std::string aging_lists =
      R"(, "lists": [{"name": "vip", "classes": ["vip"]}, {"name": "normal", "classes": ["normal"], "max_wait_s": 120}])";
  return {
      {"priority_mm1", mm1},
      {"flash_crowd", flash("", "")},
      // Issue 4: the same crowd polling every 3 s through a 10 s status cache, 0.1% of users
      // followed through every poll (about 100 polls each while the queue drains).
      {"flash_polling",
       flash("", "", R"(, "polling": {"interval_s": 3, "cache_s": 10, "follow_share": 0.001})")},
      // The same without following anyone: the population's command counts alone.
      {"flash_polling_counts",
       flash("", "", R"(, "polling": {"interval_s": 3, "cache_s": 10, "follow_share": 0})")},
      {"flash_strict", flash(two_lists, R"(, "selection": {"kind": "strict"})")},
      {"flash_ratio", flash(two_lists, R"(, "selection": {"kind": "ratio", "weights": [7, 3]})")},
      {"flash_probabilistic",
       flash(two_lists,
             R"(, "selection": {"kind": "probabilistic", "start_probabilities": [0.9, 0.1]})")},
      {"flash_aging", flash(aging_lists, R"(, "selection": {"kind": "strict"})")},
      {"flash_temp_vip",
       flash(
           R"(, "compensation": {"threshold_s": 120, "offset_ms": 10000, "classes": ["normal"]})",
           "",
           R"(, "returns": {"probability": 0.1, "delay_s": {"dist": "exponential", "mean": 120}})")},
      {"flash_sku_scheduler",
       flash(R"(, "lists": [{"name": "vip", "classes": ["vip"]}, {"name": "a", "skus": ["a"]},
                {"name": "b", "skus": ["b"]}, {"name": "c", "skus": ["c"]}])",
             R"(, "selection": {"kind": "scheduler", "age_weight": 1, "length_weight": 0.001})",
             R"(, "skus": [{"name": "a", "share": 0.6}, {"name": "b", "share": 0.3},
                {"name": "c", "share": 0.1}])")},
      {"flash_lottery",
       flash("",
             R"(, "selection": {"kind": "lottery", "class_weights": {"vip": 5, "normal": 1}})")},
      {"flash_lottery_by_wait",
       flash("", R"(, "selection": {"kind": "lottery", "class_weights": {"vip": 5, "normal": 1},
                    "wait_scale_s": 60})")}};
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

long max_rss_kib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

// Bytes per member of the sorted set alone (tree plus a store of integer members with
// stored scores), for three insertion orders.
void zset_memory(std::uint32_t n) {
  fmt::print("\n{:<34} {:>10} {:>14} {:>12}\n", "zset (token_store)", "members", "bytes/member",
             "inserts/s");
  struct order {
    const char* name;
    double (*score)(std::uint32_t, sim::rng&);
  };
  const order orders[] = {
      {"ascending scores", [](std::uint32_t i, sim::rng&) { return static_cast<double>(i); }},
      {"random scores", [](std::uint32_t, sim::rng& r) { return r.uniform01(); }},
      {"ms ties, 20% 10 s back (offset)",
       [](std::uint32_t i, sim::rng& r) {
         double ms = static_cast<double>(i / 166);  // 166k users/s
         return r.below(5) == 0 ? ms - 10000 : ms;
       }},
  };
  for (const auto& o : orders) {
    models::token_zset z(7);
    sim::rng r(3);
    auto t0 = std::chrono::steady_clock::now();
    for (std::uint32_t i = 0; i < n; ++i) z.zadd(o.score(i, r), i);
    double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    fmt::print("{:<34} {:>10} {:>14.1f} {:>12.0f}\n", o.name, n,
               static_cast<double>(z.memory_bytes()) / n, n / dt);
  }
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 5;
  double scale = 1.0;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--runs" && i + 1 < argc) {
      runs = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--scale" && i + 1 < argc) {
      scale = std::atof(argv[++i]);
    } else if (a == "--only" && i + 1 < argc) {
      only = argv[++i];
    } else {
      fmt::print(stderr, "usage: waitroom_bench [--runs N] [--scale F] [--only WORKLOAD|zset]\n");
      return 2;
    }
  }
  fmt::print("{:<20} {:>11} {:>14} {:>14} {:>12} {:>16} {:>12}\n", "workload", "customers",
             "customers/s", "events/s", "wall_s", "bytes/waiting", "peak_wait");
  for (const auto& w : workloads(scale)) {
    if (!only.empty() && w.name != only) continue;
    auto s = models::parse_scenario(models::parse_json_text(w.json, w.name), w.name, ".");
    std::vector<double> cps, eps, wall, bpu;
    std::uint64_t customers = 0, peak = 0;
    for (int r = 0; r < runs; ++r) {
      auto t0 = std::chrono::steady_clock::now();
      auto res = models::run_scenario(s, 1, static_cast<std::uint64_t>(r));
      double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      customers = res.overall.arrived;
      peak = res.peak_queue_length;
      cps.push_back(static_cast<double>(customers) / dt);
      eps.push_back(static_cast<double>(res.events) / dt);
      wall.push_back(dt);
      bpu.push_back(peak ? static_cast<double>(res.peak_memory_bytes) / static_cast<double>(peak)
                         : 0.0);
    }
    fmt::print("{:<20} {:>11} {:>14.0f} {:>14.0f} {:>12.3f} {:>16.1f} {:>12}\n", w.name, customers,
               median(cps), median(eps), median(wall), median(bpu), peak);
  }
  if (only.empty() || only == "zset")
    zset_memory(static_cast<std::uint32_t>(1e6 * std::max(scale, 0.01)));
  fmt::print("process max RSS: {:.1f} MiB\n", static_cast<double>(max_rss_kib()) / 1024.0);
  return 0;
}
