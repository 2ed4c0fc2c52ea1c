// waitroom_bench: throughput and memory of the engine on the reference workloads, each
// measured against a plain baseline in the same invocation (docs/perf.md).
//
//   waitroom_bench [--rounds N] [--scale F] [--only A,B,...] [--presale FILE]
//   waitroom_bench --once NAME [--scale F]     (one run in this process: the perf gate)
//
// (a) priority_mm1: two-class non-preemptive priority M/M/1 (lambda 0.2 + 0.6, mu 1),
//     10M customers, level-prefix policy, concurrency release with one slot.
//     Baseline: plain_mm1, the same queue as a plain heap-and-two-FIFOs loop.
// (b) flash_crowd: 10M users arrive within 60 s, 20% VIP with a 10 s offset, 200 ms ticks
//     releasing 3,334 users each (drains in about 10 minutes), and the same crowd under
//     every selection policy. Baseline: pbds_flash, the same crowd on a GNU pb_ds tree.
//
// Every run is a forked child, so its max RSS is its own. Rounds alternate the order of
// workload and baseline, and ratios are the median of per-round ratios: on a shared
// machine the load changes between rounds, much less within one.
#include <sched.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "baselines.hpp"
#include "models/room/room.hpp"
#include "models/run/replicate.hpp"
#include "models/scenario/scenario.hpp"
#include "models/zset/zset.hpp"
#include "report.hpp"
#include "sim/memory_reuse.hpp"
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
  // The flash crowd under each selection policy (the target: none below half of the
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
      // The same crowd polling every 3 s through a 10 s status cache, 0.1% of users
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

long max_rss_kib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

// "AMD EPYC (family 26, model 2)": some hypervisors hide the marketing name, so the family
// and model numbers go beside it.
std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line, name = "unknown", family, model;
  auto value = [&] { return line.substr(line.find(':') + 2); };
  while (std::getline(in, line) && line.find(':') != std::string::npos) {
    if (line.rfind("model name", 0) == 0)
      name = value();
    else if (line.rfind("cpu family", 0) == 0)
      family = value();
    else if (line.rfind("model\t", 0) == 0)
      model = value();
  }
  return family.empty() ? name : fmt::format("{} (family {}, model {})", name, family, model);
}

// One measured run. Trivially copyable: it crosses a pipe from the child.
struct measurement {
  double wall_s = 0;
  // The run's CPU time in user mode: the kernel's first touch of fresh memory, which on this
  // VM costs 0.06 s or 0.5 s of system time for the same run (docs/perf.md), is
  // in the wall clock but not here.
  double user_s = 0;
  std::uint64_t customers = 0;
  std::uint64_t events = 0;
  std::uint64_t peak_waiting = 0;
  std::uint64_t model_bytes = 0;  // the model's own peak count; 0 where it keeps none
  long max_rss_kib = 0;           // filled in by the parent from wait4
  bool ok = false;

  double rate() const { return wall_s > 0 ? static_cast<double>(customers) / wall_s : 0.0; }
  double user_rate() const { return user_s > 0 ? static_cast<double>(customers) / user_s : 0.0; }
};

struct job {
  std::string name;
  std::function<measurement()> run;
};

// 8 replications of the scenario on `threads` threads.
job replications_job(std::string name, const models::scenario& s, unsigned threads) {
  return {std::move(name), [&s, threads] {
            measurement m;
            for (const auto& x : models::replicate(s, s.seed, 8, threads))
              m.customers += x.overall.arrived;
            return m;
          }};
}

// Kept out of line so that `valgrind --toggle-collect=*measured_region*` counts exactly the
// simulation (not start-up or scenario parsing) in the perf gate.
[[gnu::noinline]] measurement measured_region(const job& j) {
  return j.run();
}

double user_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec) + static_cast<double>(u.ru_utime.tv_usec) * 1e-6;
}

measurement timed(const std::function<measurement()>& f) {
  const double u0 = user_seconds();
  auto t0 = std::chrono::steady_clock::now();
  measurement m = f();
  m.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  m.user_s = user_seconds() - u0;
  m.ok = true;
  return m;
}

// Runs `j` in a forked child, pinned to `cpu` when one is given; the child's max RSS is its
// own (plus the few MiB of this small parent it inherits).
measurement in_child(const job& j, std::optional<int> cpu = std::nullopt) {
  std::fflush(stdout);
  int fd[2];
  if (pipe(fd) != 0) return {};
  pid_t pid = fork();
  if (pid == 0) {
    close(fd[0]);
    if (cpu) {
      cpu_set_t set;
      CPU_ZERO(&set);
      CPU_SET(*cpu, &set);
      if (sched_setaffinity(0, sizeof set, &set) != 0) _exit(1);
    }
    measurement m = timed([&] { return measured_region(j); });
    auto n = write(fd[1], &m, sizeof m);
    _exit(n == static_cast<ssize_t>(sizeof m) ? 0 : 1);
  }
  close(fd[1]);
  measurement m;
  bool got = pid > 0 && read(fd[0], &m, sizeof m) == static_cast<ssize_t>(sizeof m);
  close(fd[0]);
  int status = 0;
  rusage u{};
  if (pid > 0) wait4(pid, &status, 0, &u);
  if (!got || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fmt::print(stderr, "waitroom_bench: {} failed (status {})\n", j.name, status);
    return {};
  }
  m.max_rss_kib = u.ru_maxrss;
  return m;
}

struct options {
  int rounds = 5;
  double scale = 1.0;
  std::vector<std::string> only;
  std::string presale;
  std::string once;
  bool selected(const std::string& n) const {
    return only.empty() || std::find(only.begin(), only.end(), n) != only.end();
  }
};

measurement from_room(const models::room_result& r) {
  measurement m;
  m.customers = r.overall.arrived;
  m.events = r.events;
  m.peak_waiting = r.peak_queue_length;
  m.model_bytes = r.peak_memory_bytes;
  return m;
}

measurement from_baseline(const bench::baseline_result& b) {
  measurement m;
  m.customers = b.customers;
  m.events = b.events;
  m.peak_waiting = b.peak_waiting;
  return m;
}

// Every job at this scale, baselines first. `round` picks the seed.
std::vector<job> all_jobs(const options& o, const std::vector<models::scenario>& scenarios,
                          const std::vector<std::string>& names, std::uint64_t round) {
  const double n = 10e6 * o.scale;
  std::vector<job> out;
  out.push_back(
      {"plain_mm1", [=] { return from_baseline(bench::plain_priority_mm1(n / 0.8, round + 1)); }});
  out.push_back(
      {"pbds_flash", [=] {
         return from_baseline(bench::pbds_flash_crowd(
             static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(n / 3000.0 + 1), round + 1));
       }});
  for (std::size_t i = 0; i < scenarios.size(); ++i) {
    const models::scenario* s = &scenarios[i];
    out.push_back({names[i], [=] { return from_room(models::run_scenario(*s, 1, round)); }});
  }
  return out;
}

const char* baseline_of(const std::string& workload) {
  if (workload == "priority_mm1") return "plain_mm1";
  if (workload.rfind("flash", 0) == 0) return "pbds_flash";
  return nullptr;
}

// bench::target_line's arguments, its defaults included.
template <class... Args>
void print_targets_line(Args&&... args) {
  fmt::print("{}", bench::target_line(std::forward<Args>(args)...));
}
using bench::ratio_text;

}  // namespace

int main(int argc, char** argv) {
  sim::keep_freed_memory();  // as the program does (cli/main.cpp)
  options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        fmt::print(stderr, "waitroom_bench: {} needs a value\n", a);
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--rounds" || a == "--runs") {
      o.rounds = std::max(1, std::atoi(value().c_str()));
    } else if (a == "--scale") {
      o.scale = std::atof(value().c_str());
      if (!(o.scale > 0)) {
        fmt::print(stderr, "waitroom_bench: --scale expects a positive number\n");
        return 2;
      }
    } else if (a == "--only") {
      std::string list = value();
      for (std::size_t p = 0; p <= list.size();) {
        auto c = list.find(',', p);
        if (c == std::string::npos) c = list.size();
        if (c > p) o.only.push_back(list.substr(p, c - p));
        p = c + 1;
      }
    } else if (a == "--presale") {
      o.presale = value();
    } else if (a == "--once") {
      o.once = value();
    } else {
      fmt::print(stderr,
                 "usage: waitroom_bench [--rounds N] [--scale F] [--only A,B,...] "
                 "[--presale FILE] | --once NAME [--scale F]\n");
      return 2;
    }
  }

  std::vector<models::scenario> scenarios;
  std::vector<std::string> names;
  for (const auto& w : workloads(o.scale)) {
    scenarios.push_back(
        models::parse_scenario(models::parse_json_text(w.json, w.name), w.name, "."));
    names.push_back(w.name);
  }

  if (!o.once.empty()) {  // one run in this process, for callgrind
    for (const auto& j : all_jobs(o, scenarios, names, 0))
      if (j.name == o.once) {
        measurement m = measured_region(j);
        fmt::print("{} customers={} events={}\n", j.name, m.customers, m.events);
        return 0;
      }
    fmt::print(stderr, "waitroom_bench: --once: no job named '{}'\n", o.once);
    return 2;
  }

  // What runs: the selected workloads, their baselines, and flash_crowd beside any other
  // policy (the policies are quoted as ratios to it).
  std::vector<std::string> run_names;
  for (const auto& n : names)
    if (o.selected(n)) {
      if (const char* b = baseline_of(n))
        if (std::find(run_names.begin(), run_names.end(), b) == run_names.end())
          run_names.push_back(b);
      if (n.rfind("flash", 0) == 0 &&
          std::find(run_names.begin(), run_names.end(), "flash_crowd") == run_names.end())
        run_names.push_back("flash_crowd");
      if (std::find(run_names.begin(), run_names.end(), n) == run_names.end())
        run_names.push_back(n);
    }
  std::optional<models::scenario> presale;
  if (o.selected("replications") && !o.presale.empty())
    presale = models::parse_scenario(models::read_json_file(o.presale), o.presale, ".");

  fmt::print("CPU: {} ({} logical CPUs online); scale {} ({:.0f} users), {} rounds\n", cpu_model(),
             sysconf(_SC_NPROCESSORS_ONLN), o.scale, 10e6 * o.scale, o.rounds);
  std::map<std::string, std::vector<measurement>> runs;
  std::vector<double> t1, t2;
  // The replications' speed-up is bounded by the CPUs' own speeds: on a VM one vCPU can be
  // much slower than the other (the host's load), which 2 threads cannot beat. So each round
  // also times the 8 replications on 1 thread pinned to each CPU this process may use (at
  // most max_pinned of them, spread over the list: on a large machine each costs a run).
  std::vector<int> cpus;
  if (cpu_set_t mine; sched_getaffinity(0, sizeof mine, &mine) == 0)
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &mine)) cpus.push_back(c);
  constexpr std::size_t max_pinned = 4;
  if (cpus.size() > max_pinned) {
    auto spread = bench::spread_cpus(cpus, max_pinned);
    fmt::print("replications pinned to {} of the {} CPUs this process may use: {}\n", spread.size(),
               cpus.size(), fmt::join(spread, ", "));
    cpus = std::move(spread);
  }
  std::map<int, std::vector<double>> per_cpu;
  for (int r = 0; r < o.rounds; ++r) {
    auto jobs = all_jobs(o, scenarios, names, static_cast<std::uint64_t>(r));
    std::vector<const job*> order;
    for (const auto& n : run_names)
      for (const auto& j : jobs)
        if (j.name == n) order.push_back(&j);
    if (r % 2) std::reverse(order.begin(), order.end());  // alternate who runs first
    for (const job* j : order) {
      measurement m = in_child(*j);
      if (!m.ok) return 1;
      runs[j->name].push_back(m);
    }
    if (presale) {
      for (int k = 0; k < 2; ++k) {
        unsigned threads = (r + k) % 2 ? 2 : 1;
        measurement m = in_child(replications_job("replications", *presale, threads));
        if (!m.ok) return 1;
        (threads == 1 ? t1 : t2).push_back(m.wall_s);
      }
      const job one = replications_job("replications pinned", *presale, 1);
      // Informational: a CPU that cannot be pinned (a cpuset changed) is left out, not fatal.
      // The order alternates by round, as the workloads' does.
      for (std::size_t k = 0; k < cpus.size(); ++k) {
        const int c = cpus[r % 2 ? cpus.size() - 1 - k : k];
        measurement m = in_child(one, c);
        if (m.ok) per_cpu[c].push_back(m.wall_s);
      }
    }
    fmt::print(stderr, "round {}/{} done\n", r + 1, o.rounds);
  }

  // Rounds too short to time give no ratio and no rate (report.hpp).
  auto per_round = [&](const std::string& a, bool user_cpu) {
    std::vector<double> v;
    for (const auto& m : runs[a]) v.push_back(user_cpu ? m.user_rate() : m.rate());
    return v;
  };
  auto ratio_to = [&](const std::string& a, const std::string& b, bool user_cpu = false) {
    return bench::median_ratio(per_round(a, user_cpu), per_round(b, user_cpu));
  };
  auto rates = [&](const std::string& a) {
    std::vector<double> v;
    for (double r : per_round(a, false))
      if (r > 0) v.push_back(r);
    return bench::median(v).value_or(0.0);
  };
  // Nobody waited (or the model counted nothing): no figure, and no verdict on it.
  auto bytes_model = [&](const std::string& a) {
    const auto& m = runs[a].back();
    return bench::per_user(static_cast<double>(m.model_bytes), m.peak_waiting);
  };
  auto bytes_rss = [&](const std::string& a) {
    long rss = 0;
    for (const auto& m : runs[a]) rss = std::max(rss, m.max_rss_kib);
    return bench::per_user(static_cast<double>(rss) * 1024.0, runs[a].back().peak_waiting);
  };

  fmt::print("\n{:<22} {:>11} {:>12} {:>11} {:>12} {:>7} {:>9} {:>10} {:>10} {:>10} {:>9}\n",
             "workload", "customers", "customers/s", "baseline", "baseline/s", "ratio", "ratio CPU",
             "B/wait mdl", "B/wait RSS", "peak wait", "RSS MiB");
  for (const auto& n : run_names) {
    const auto& m = runs[n].back();
    const char* b = baseline_of(n);
    long rss = 0;
    for (const auto& x : runs[n]) rss = std::max(rss, x.max_rss_kib);
    const auto bm = bytes_model(n);
    const auto br = bytes_rss(n);
    fmt::print("{:<22} {:>11} {:>12.0f} {:>11} {:>12} {:>7} {:>9} {:>10} {:>10} {:>10} {:>9.1f}\n",
               n, m.customers, rates(n), b ? b : "-", b ? fmt::format("{:.0f}", rates(b)) : "-",
               b ? ratio_text(ratio_to(n, b)) : "-", b ? ratio_text(ratio_to(n, b, true)) : "-",
               bm ? fmt::format("{:.1f}", *bm) : "-", br ? fmt::format("{:.1f}", *br) : "-",
               m.peak_waiting, static_cast<double>(rss) / 1024.0);
  }

  bool any_policy = false;
  for (const auto& n : run_names)
    if (n.rfind("flash_", 0) == 0 && n != "flash_crowd") any_policy = true;
  if (any_policy) {
    fmt::print(
        "\nratio to flash_crowd (offset policy), median of per-round ratios (wall, user CPU):\n");
    for (const auto& n : run_names)
      if (n.rfind("flash_", 0) == 0 && n != "flash_crowd")
        fmt::print("  {:<24} {:>4}  {:>4}\n", n, ratio_text(ratio_to(n, "flash_crowd")),
                   ratio_text(ratio_to(n, "flash_crowd", true)));
  }
  std::optional<double> speedup;
  if (!t1.empty() && !t2.empty()) {
    speedup = bench::median_ratio(t1, t2);  // none when no round could be timed
    fmt::print(
        "\nreplications: 8 of {} on 1 thread {:.3f} s, on 2 threads {:.3f} s (medians); "
        "speed-up {} (median of per-round ratios)\n",
        o.presale, bench::median(t1).value_or(0.0), bench::median(t2).value_or(0.0),
        ratio_text(speedup));
    std::vector<double> cpu_s;
    std::string listed;
    for (int c : cpus) {
      const auto t = bench::median(per_cpu[c]);
      cpu_s.push_back(t.value_or(0.0));
      listed += fmt::format("{}cpu{} {}", listed.empty() ? "" : ", ", c,
                            !t       ? std::string("not timed (could not be pinned)")
                            : *t > 0 ? fmt::format("{:.3f} s", *t)
                                     : std::string("too short to time"));
    }
    const auto ideal = bench::parallel_ideal_seconds(cpu_s, 2, 1);
    const auto t2_median = bench::median(t2);
    std::erase_if(cpu_s, [](double t) { return !(t > 0); });  // too short to time
    std::sort(cpu_s.begin(), cpu_s.end());
    if (!listed.empty())
      fmt::print("the same on 1 thread pinned to each CPU (medians): {}{}\n", listed,
                 cpu_s.size() >= 2
                     ? fmt::format(" (the slower takes {:.2f}x the time)", cpu_s[1] / cpu_s[0])
                     : "");
    if (ideal && t2_median && *t2_median > 0)
      fmt::print(
          "both CPUs at their own speeds would take {:.3f} s; 2 threads took {:.3f} s (efficiency "
          "{:.2f}): over the faster CPU alone they gain {:.2f}, where {:.2f} is the most\n",
          *ideal, *t2_median, *ideal / *t2_median, cpu_s[0] / *t2_median, cpu_s[0] / *ideal);
  }

  fmt::print("\ntargets (ratios in this run; wall clock, and user CPU time):\n");
  if (runs.count("priority_mm1")) {
    print_targets_line("(a) priority_mm1 / plain_mm1", ratio_to("priority_mm1", "plain_mm1"), 0.8,
                       true);
    print_targets_line("(a) priority_mm1 / plain_mm1, user CPU",
                       ratio_to("priority_mm1", "plain_mm1", true), 0.8, true);
  }
  if (runs.count("flash_crowd")) {
    print_targets_line("(b) flash_crowd / pbds_flash", ratio_to("flash_crowd", "pbds_flash"), 3.5,
                       true);
    print_targets_line("(b) flash_crowd / pbds_flash, user CPU",
                       ratio_to("flash_crowd", "pbds_flash", true), 3.5, true);
    print_targets_line("(b) bytes per waiting user, model's count", bytes_model("flash_crowd"), 40,
                       false);
    print_targets_line("(b) bytes per waiting user, max RSS / peak waiting",
                       bytes_rss("flash_crowd"), 40, false);
    for (const auto& n : run_names)
      if (n.rfind("flash_", 0) == 0 && n != "flash_crowd")
        print_targets_line(fmt::format("{} / flash_crowd", n), ratio_to(n, "flash_crowd"), 0.5,
                           true);
  }
  if (!t1.empty() && !t2.empty())
    print_targets_line("replications, 2 threads / 1 thread", speedup, 1.9, true,
                       "no round of the replications could be timed");

  if (o.selected("zset")) zset_memory(static_cast<std::uint32_t>(1e6 * std::max(o.scale, 0.01)));
  fmt::print("bench process max RSS: {:.1f} MiB\n", static_cast<double>(max_rss_kib()) / 1024.0);
  return 0;
}
