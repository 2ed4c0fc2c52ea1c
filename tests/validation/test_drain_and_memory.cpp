// Runs that cannot drain and what replications keep.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <numbers>
#include <string>
#include <string_view>
#include <vector>

#include "models/run/memory_estimate.hpp"
#include "models/run/replicate.hpp"
#include "models/run/summary.hpp"
#include "reports/report.hpp"
#include "sim/input_error.hpp"
#include "support/cli_run.hpp"
#include "support/test_support.hpp"

using namespace waitroom;
using testing_support::scenario_from;

namespace {
// Two lists under a ratio; 300 users over 60 s, one released a second: the queue outlasts
// the arrivals, so what the ratio does after them decides whether the run drains.
std::string ratio_room(const std::string& selection, const std::string& run = "{}") {
  return R"({"name": "r", "seed": 2,
    "classes": [{"name": "vip", "share": 0.3}, {"name": "normal", "share": 0.7}],
    "arrivals": {"process": "piecewise", "segments": [{"duration_s": 60, "rate_per_s": 5}]},
    "queue": {"lists": [{"name": "vip", "classes": ["vip"]},
                        {"name": "normal", "classes": ["normal"]}]},
    "release": {"mode": "tick", "interval_ms": 1000, "batch": 1, "selection": )" +
         selection + R"(}, "run": )" + run + "}";
}

// A backend behind a tick release, 200 users over 20 s.
std::string backend_room(const std::string& release, const std::string& backend,
                         const std::string& run = "{}") {
  return R"({"name": "b", "seed": 4, "classes": [{"name": "all", "share": 1}],
    "arrivals": {"process": "piecewise", "segments": [{"duration_s": 20, "rate_per_s": 10}]},
    "release": )" +
         release + R"(, "backend": )" + backend + R"(, "run": )" + run + "}";
}

std::string stall_message(const models::scenario& s) {
  try {
    models::run_scenario(s, s.seed);
  } catch (const models::stall_error& e) {
    return e.what();
  }
  return "(no stall_error)";
}
}  // namespace

TEST(Drain, ARatioListOfWeightZeroIsRefusedAtLoadWithoutAHorizon) {
  for (const char* wc : {"false", "true"}) {
    try {
      scenario_from(ratio_room(
          std::string(R"({"kind": "ratio", "weights": [0, 1], "work_conserving": )") + wc + "}"));
      ADD_FAILURE() << "accepted with work_conserving " << wc;
    } catch (const sim::input_error& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("/release/selection/weights/0"), std::string::npos) << m;
      EXPECT_NE(m.find("horizon"), std::string::npos) << m;
    }
  }
  // With a horizon it runs, and says who was left waiting.
  auto s =
      scenario_from(ratio_room(R"({"kind": "ratio", "weights": [0, 1], "work_conserving": false})",
                               R"({"horizon_s": 400})"));
  auto r = models::run_scenario(s, 1);
  EXPECT_EQ(r.stop_reason, "horizon");
  EXPECT_EQ(r.by_class[0].released, 0u);
  EXPECT_EQ(r.by_class[0].waiting_at_end, r.by_class[0].arrived);
  EXPECT_GT(r.by_class[0].arrived, 0u);
}

TEST(Drain, WeightsScheduledToZeroStopTheRunWithAMessage) {
  auto s = scenario_from(ratio_room(
      R"({"kind": "ratio", "weights": [1, 1], "work_conserving": false,
          "schedule": [{"at_s": 5, "weights": [0, 1]}]})"));
  const std::string m = stall_message(s);
  EXPECT_NE(m.find("nothing can leave"), std::string::npos) << m;
  EXPECT_NE(m.find("/release/selection/weights"), std::string::npos) << m;
  EXPECT_NE(m.find("/run/horizon_s"), std::string::npos) << m;
}

TEST(Drain, ABackendLeftWithNoWorkerStopsTheRun) {
  auto s =
      scenario_from(backend_room(R"({"mode": "tick", "interval_ms": 200, "batch": 5})",
                                 R"({"workers": 2, "service_s": {"dist": "exponential", "mean": 1},
          "capacity": [{"at_s": 10, "workers": 0}]})"));
  const std::string m = stall_message(s);
  EXPECT_NE(m.find("backend"), std::string::npos) << m;
  EXPECT_NE(m.find("/backend/capacity"), std::string::npos) << m;
  // Capacity that comes back lets it drain.
  auto back =
      scenario_from(backend_room(R"({"mode": "tick", "interval_ms": 200, "batch": 5})",
                                 R"({"workers": 2, "service_s": {"dist": "exponential", "mean": 1},
          "capacity": [{"at_s": 10, "workers": 0}, {"at_s": 500, "workers": 2}]})"));
  auto r = models::run_scenario(back, 1);
  EXPECT_EQ(r.stop_reason, "drained");
  EXPECT_EQ(r.overall.released, r.overall.arrived);
}

TEST(Drain, ATieredControllerCutToZeroStopsTheRun) {
  const std::string release =
      R"({"mode": "tick", "interval_ms": 200, "batch": 5,
          "controller": {"kind": "tiered", "factors": [1, 0, 0, 0], "floor": 0}})";
  const std::string backend = R"({"workers": 1, "service_s": {"dist": "exponential", "mean": 2}})";
  const std::string m = stall_message(scenario_from(backend_room(release, backend)));
  EXPECT_NE(m.find("rate controller"), std::string::npos) << m;
  // With a horizon the same run stops there, users still waiting.
  auto r = models::run_scenario(
      scenario_from(backend_room(release, backend, R"({"horizon_s": 300})")), 1);
  EXPECT_EQ(r.stop_reason, "horizon");
  EXPECT_GT(r.overall.waiting_at_end, 0u);
}

TEST(Drain, RunsThatDrainSlowlyAreNotStopped) {
  // Weight 1 : 1000 and one release a tick: the vip list is picked once in 1001 ticks, so
  // it sits through whole sample intervals without a release and still drains.
  auto s = scenario_from(
      ratio_room(R"({"kind": "ratio", "weights": [1, 1000], "work_conserving": false})"));
  auto r = models::run_scenario(s, 1);
  EXPECT_EQ(r.stop_reason, "drained");
  EXPECT_EQ(r.overall.released, r.overall.arrived);
}

TEST(ReplicationMemory, ASummaryKeepsAFewKilobytesAndTheSameFigures) {
  auto s = scenario_from(R"({"name": "tiny", "seed": 3,
    "classes": [{"name": "vip", "share": 0.2, "offset_ms": 10000}, {"name": "normal", "share": 0.8}],
    "arrivals": {"process": "piecewise", "segments": [{"duration_s": 5, "rate_per_s": 5}]},
    "release": {"mode": "tick", "interval_ms": 200, "batch": 1}})");
  auto rs = models::replicate(s, 3, 6, 2);
  std::vector<models::room_result> full;
  for (std::uint64_t r = 0; r < 6; ++r) full.push_back(models::run_scenario(s, 3, r));
  // Every figure the reports read is the same from the summaries.
  EXPECT_EQ(reports::replications_json(s, rs, 0.95, "t").dump(),
            reports::replications_json(s, full, 0.95, "t").dump());
  for (const auto& r : rs) {
    EXPECT_TRUE(r.overall.wait_ns.compacted());
    EXPECT_TRUE(r.samples.empty());
    EXPECT_LT(models::summary_heap_bytes(r), 4096u);  // was ~200 KB: three 64 KiB histograms
  }
  EXPECT_GT(models::summary_heap_bytes(full[0]), 3u * 65536u);
  // The up-front estimate bounds what a summary keeps.
  const auto est = models::estimate_memory(s);
  for (const auto& r : rs)
    EXPECT_LE(static_cast<double>(sizeof(r) + models::summary_heap_bytes(r)), est.summary_bytes);
}

TEST(ReplicationMemory, AnUnstableQueueIsEstimatedFromItsRates) {
  // 1000 users/s in for 1000 s, 5 out: about 995,000 waiting at the end.
  auto s = scenario_from(R"({"name": "u", "classes": [{"name": "all", "share": 1}],
    "arrivals": {"process": "poisson", "rate_per_s": 1000},
    "release": {"mode": "tick", "interval_ms": 200, "batch": 1}, "run": {"horizon_s": 1000}})");
  const auto m = models::estimate_memory(s);
  EXPECT_NEAR(m.peak_waiting, 995000, 1);
  EXPECT_GT(m.run_bytes, 995000 * models::bytes_per_waiting_user(s));
  // A stable one stays at its backlog.
  auto stable = scenario_from(R"({"name": "s", "classes": [{"name": "all", "share": 1}],
    "arrivals": {"process": "poisson", "rate_per_s": 4, "backlog_users": 100},
    "release": {"mode": "tick", "interval_ms": 200, "batch": 1}, "run": {"horizon_s": 1000}})");
  EXPECT_EQ(models::estimate_memory(stable).peak_waiting, 100);
}

namespace {
// The flash crowd of `users` users in 60 s (20% VIP 10 s ahead), releasing a 3000th of them
// per 200 ms tick, as scripts/bench runs it, stopped at 70 s; `queue_extra`,
// `release_extra`, `class_extra` (each class's) and `top_extra` vary it.
std::string flash_json(double users, const std::string& queue_extra,
                       const std::string& release_extra, const std::string& class_extra,
                       const std::string& top_extra = "") {
  return R"({"name": "flash", "seed": 7,
    "classes": [{"name": "vip", "share": 0.2, "offset_ms": 10000)" +
         class_extra + R"(}, {"name": "normal", "share": 0.8)" + class_extra +
         R"(}],
    "arrivals": {"process": "piecewise", "segments": [{"duration_s": 60, "rate_per_s": )" +
         std::to_string(users / 60.0) + R"(}]},
    "queue": {"policy": "offset", "time_unit": "ms")" +
         queue_extra + R"(},
    "release": {"mode": "tick", "interval_ms": 200, "batch": )" +
         std::to_string(static_cast<int>(users / 3000.0) + 1) + release_extra +
         R"(}, "run": {"sample_interval_s": 1, "horizon_s": 70})" + top_extra + "}";
}

// The max RSS of `waitroom run` on the scenario `json`, as a user would run it (the program
// and its libraries included, which the estimate's fixed part covers), under the CLI tests'
// time limit; -1 on failure. The kernel starts a child's max RSS at its parent's peak (at
// fork, and at exec after posix_spawn's shared memory), so this process must be small.
double run_rss_bytes(const std::string& json) {
  const auto dir = testing_support::process_temp_dir("memory_estimate");
  const auto file = (dir / "scenario.json").string();
  std::ofstream(file) << json;
  const std::string limit = std::to_string(testing_support::cli_timeout_s);
  std::vector<std::string> args = {"timeout", "-k",       "5",    limit,   WAITROOM_BINARY, "run",
                                   file,      "--format", "json", "--out", "/dev/null"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  // Its warnings (users still waiting at the horizon) are expected here.
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const int failed = posix_spawnp(&pid, "timeout", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (failed != 0) return -1;
  int status = 0;
  rusage u{};  // the waited-for child's and its own children's: the program's max RSS
  if (wait4(pid, &status, 0, &u) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return -1;
  return 1024.0 * static_cast<double>(u.ru_maxrss);  // KiB
}

// This process's peak resident memory (VmHWM), in bytes; 0 when it cannot be read.
double own_peak_rss_bytes() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmHWM:", 0) == 0) return 1024.0 * std::stod(line.substr(6));  // kB
  return 0;
}

const std::string two_lists =
    R"(, "lists": [{"name": "vip", "classes": ["vip"]}, {"name": "normal", "classes": ["normal"]}])";
const std::string strict = R"(, "selection": {"kind": "strict"})";
const std::string lottery =
    R"(, "selection": {"kind": "lottery", "class_weights": {"vip": 5, "normal": 1}})";
// Patience far beyond the run: nobody gives up, every user's abandonment stays pending.
const std::string long_patience = R"(, "patience_s": {"dist": "exponential", "mean": 1e6})";
}  // namespace

// The refusal of a run that cannot fit trusts the estimate: it must cover what each kind of
// queue holds (an aging list and pending abandonments hold more than a sorted set, a lottery
// less), and not refuse a run that needs half as much. The model's own count at 1M users in
// this process; the program's max RSS at 2M, where the fixed part weighs less.
TEST(MemoryEstimate, CoversWhatEachKindOfQueueHolds) {
  const std::string aging =
      R"(, "lists": [{"name": "vip", "classes": ["vip"]}, {"name": "normal", "classes": ["normal"], "max_wait_s": 20}])";
  const auto kinds = [&](double users) {
    struct kind {
      const char* name;
      std::string json;
      double most;  // the estimate's most over the RSS
    };
    // Returns: the estimate takes visits as ending at the highest rate they could, which a
    // crowd shorter than the delay never reaches (2.8x at 1M).
    return std::vector<kind>{
        {"sorted set", flash_json(users, "", "", ""), 2.0},
        {"two lists, strict", flash_json(users, two_lists, strict, ""), 2.0},
        {"aging list", flash_json(users, aging, strict, ""), 2.0},
        {"lottery", flash_json(users, "", lottery, ""), 2.0},
        {"patience", flash_json(users, "", "", long_patience), 2.0},
        {"followed pollers",
         flash_json(users, "", "", "", R"(, "polling": {"interval_s": 3, "follow_share": 0.2})"),
         2.0},
        {"return visits",
         flash_json(
             users, "", "", "",
             R"(, "returns": {"probability": 0.9, "delay_s": {"dist": "exponential", "mean": 5}})"),
         4.0},
    };
  };
  // What the kernel counts (the model's own count misses the allocator's and vector
  // growth's share: a pending abandonment measures 66 B of RSS for about 45 B counted). Not
  // under a sanitizer, whose shadow memory and quarantine would be most of it.
  // First, while this process is small: a spawned child's max RSS starts at its peak (ctest
  // runs each case in a process of its own; the whole binary at once has run others).
  const bool small = own_peak_rss_bytes() < 32e6;
  if (!small)
    std::fprintf(stderr, "max RSS not checked: this process already peaked at %.0f MB\n",
                 own_peak_rss_bytes() / 1e6);
  if (std::string_view(WAITROOM_SANITIZER).empty() && small) {
    for (const auto& k : kinds(2e6)) {
      SCOPED_TRACE(k.name);
      const auto est = models::estimate_memory(scenario_from(k.json));
      const double rss = run_rss_bytes(k.json);
      ASSERT_GT(rss, own_peak_rss_bytes());
      EXPECT_GE(est.run_bytes, rss);
      EXPECT_LE(est.run_bytes, k.most * rss);  // a run that needs far less is not refused
    }
  }
  for (const auto& k : kinds(1e6)) {
    SCOPED_TRACE(k.name);
    const auto s = scenario_from(k.json);
    const auto est = models::estimate_memory(s);
    const auto r = models::run_scenario(s, 7, 0);
    ASSERT_GT(r.peak_queue_length, 850'000u);  // the queue the estimate is about
    // The estimate's queue is the expected arrivals less the most the room can release: the
    // run's peak within the Poisson count's noise (5 standard deviations) and a tick's batch.
    if (!s.returns) {
      EXPECT_NEAR(est.peak_waiting, static_cast<double>(r.peak_queue_length),
                  5.0 * std::sqrt(1e6) + 1e6 / 3000.0);
    }
    EXPECT_GE(est.run_bytes, static_cast<double>(r.peak_memory_bytes));
  }
}

// Patience bounds the queue by Little's law for the patience clocks: a crowd whose users give
// up after 30 s on average waits about (rate x 30 s) at most, not every arrival.
TEST(MemoryEstimate, PatienceBoundsTheQueueOnlyWhenEveryClassHasIt) {
  auto s = scenario_from(
      flash_json(1e6, "", "", R"(, "patience_s": {"dist": "exponential", "mean": 30})"));
  const auto est = models::estimate_memory(s);
  EXPECT_NEAR(est.peak_waiting, 1e6 / 60.0 * 30.0, 1.0);
  EXPECT_NE(est.peak_reason.find("gives up"), std::string::npos) << est.peak_reason;
  const auto r = models::run_scenario(s, 7, 0);
  EXPECT_LE(static_cast<double>(r.peak_queue_length), est.peak_waiting);
  // A class without patience waits as long as it takes: the queue the release leaves.
  s.classes[0].patience_s.reset();
  EXPECT_GT(models::estimate_memory(s).peak_waiting, 0.85e6);
}

// Where the rate is no bound on a window, or the patience's mean says nothing of its draws,
// the queue is counted as if nobody gave up (checked without running: the estimates alone).
TEST(MemoryEstimate, NoPatienceBoundWhereItWouldNotHold) {
  const double unbounded =
      models::estimate_memory(scenario_from(flash_json(1e6, "", "", ""))).peak_waiting;
  const auto peak = [](const std::string& json) {
    return models::estimate_memory(scenario_from(json)).peak_waiting;
  };
  const std::string short_patience = R"(, "patience_s": {"dist": "exponential", "mean": 0.1})";
  ASSERT_LT(peak(flash_json(1e6, "", "", short_patience)), 0.01 * unbounded);  // the bound
  // Patience drawn from a normal of mean 0 is cut at 0: half give up at once, half wait
  // |X| (a mean of sigma / sqrt(2 pi), not 0).
  const auto normal = peak(
      flash_json(1e6, "", "", R"(, "patience_s": {"dist": "normal", "mean": 0, "stddev": 1e4})"));
  EXPECT_NEAR(normal, std::min(unbounded, 1e6 / 60.0 * 1e4 / std::sqrt(2 * std::numbers::pi)), 1.0);
  // A lognormal whose mean is past the doubles: no bound, and a finite estimate.
  auto s = scenario_from(flash_json(1e6, "", "", short_patience));
  for (auto& c : s.classes) c.patience_s = sim::distribution::lognormal(0.0, 40.0);
  const auto huge = models::estimate_memory(s);
  EXPECT_EQ(huge.peak_waiting, unbounded);
  EXPECT_TRUE(std::isfinite(huge.run_bytes));
  // Returning users come on top of the arrival rate.
  EXPECT_EQ(
      peak(flash_json(
          1e6, "", "", short_patience,
          R"(, "returns": {"probability": 0.5, "delay_s": {"dist": "exponential", "mean": 60}})")),
      unbounded);
  // A trace can bring everyone at once, whatever its rate over a second.
  auto burst = scenario_from(flash_json(1e6, "", "", short_patience));
  burst.arrivals.kind = models::arrival_kind::trace;
  burst.arrivals.trace.assign(100'000, sim::trace_record{sim::sim_time::from_seconds(5), 1, 0});
  EXPECT_NEAR(models::estimate_memory(burst).peak_waiting, 100'000 - 5 * 334 / 0.2, 1.0);
}

// Bounds from the scenario's own limits, and no runaway from returns of returns.
TEST(MemoryEstimate, AStockCapAndReturnsOfReturnsStayBounded) {
  // Each user who waits holds a unit of the stock: the queue is at most the stock.
  const auto capped = models::estimate_memory(
      scenario_from(flash_json(1e6, "", "", "", R"(, "admission": {"stock": 50000})")));
  EXPECT_EQ(capped.peak_waiting, 50000);
  // Returns of returns count only the generations that fit in the run (70 s, delays of
  // 60 s: two), so p = 1 is finite and close to p = 0.99.
  const auto with_p = [](double p) {
    return models::estimate_memory(scenario_from(flash_json(
                                       1e6, "", "", "",
                                       R"(, "returns": {"probability": )" + std::to_string(p) +
                                           R"(, "delay_s": {"dist": "exponential", "mean": 60}})")))
        .run_bytes;
  };
  const double none = models::estimate_memory(scenario_from(flash_json(1e6, "", "", ""))).run_bytes;
  EXPECT_TRUE(std::isfinite(with_p(1.0)));
  EXPECT_GT(with_p(1.0), with_p(0.5));
  EXPECT_GT(with_p(0.5), none);
  EXPECT_LT(with_p(1.0), 1.05 * with_p(0.99));
}
