// Runs that cannot drain (issue 12, item 4) and what replications keep (item 6).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <string>
#include <string_view>

#include "models/room/memory_estimate.hpp"
#include "models/room/replicate.hpp"
#include "models/room/summary.hpp"
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
// per 200 ms tick, as scripts/bench runs it; `queue_extra`, `release_extra` and
// `class_extra` (each class's) vary the queue.
std::string flash_json(double users, const std::string& queue_extra,
                       const std::string& release_extra, const std::string& class_extra) {
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
         R"(}, "run": {"sample_interval_s": 1, "horizon_s": 70}})";
}
// The max RSS of `waitroom run` on the scenario `json`, as a user would run it (the program
// and its libraries included, which the estimate's fixed part covers); -1 on failure.
double run_rss_bytes(const std::string& json) {
  const auto dir = testing_support::process_temp_dir("memory_estimate");
  const auto file = (dir / "scenario.json").string();
  std::ofstream(file) << json;
  const pid_t pid = fork();
  if (pid == 0) {
    // Its warnings (users still waiting at the horizon) are expected here.
    if (const int null = open("/dev/null", O_WRONLY); null >= 0) dup2(null, STDERR_FILENO);
    execl(WAITROOM_BINARY, "waitroom", "run", file.c_str(), "--format", "json", "--out",
          "/dev/null", static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  rusage u{};
  if (pid < 0 || wait4(pid, &status, 0, &u) != pid || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0)
    return -1;
  return 1024.0 * static_cast<double>(u.ru_maxrss);  // KiB
}
}  // namespace

// The refusal of a run that cannot fit trusts the estimate: it must cover what each kind of
// queue holds per waiting user (an aging list and a pending abandonment hold more than a
// sorted set, a lottery less), and not refuse a run that needs half as much.
TEST(MemoryEstimate, CoversWhatEachKindOfQueueHolds) {
  const double users = 1e6;
  const std::string two_lists =
      R"(, "lists": [{"name": "vip", "classes": ["vip"]}, {"name": "normal", "classes": ["normal"]}])";
  const std::string aging =
      R"(, "lists": [{"name": "vip", "classes": ["vip"]}, {"name": "normal", "classes": ["normal"], "max_wait_s": 20}])";
  // Patience far beyond the run: nobody gives up, every user's abandonment stays pending.
  const std::string patience = R"(, "patience_s": {"dist": "exponential", "mean": 1e6})";
  const struct {
    const char* name;
    std::string json;
  } kinds[] = {
      {"sorted set", flash_json(users, "", "", "")},
      {"two lists, strict",
       flash_json(users, two_lists, R"(, "selection": {"kind": "strict"})", "")},
      {"aging list", flash_json(users, aging, R"(, "selection": {"kind": "strict"})", "")},
      {"lottery",
       flash_json(users, "",
                  R"(, "selection": {"kind": "lottery", "class_weights": {"vip": 5, "normal": 1}})",
                  "")},
      {"patience", flash_json(users, "", "", patience)},
  };
  for (const auto& k : kinds) {
    SCOPED_TRACE(k.name);
    const auto s = scenario_from(k.json);
    const auto est = models::estimate_memory(s);
    const auto r = models::run_scenario(s, 7, 0);
    ASSERT_GT(r.peak_queue_length, 0.85 * users);  // the queue the estimate is about
    // The estimate's queue is the expected arrivals less the most the room can release: the
    // run's peak within the Poisson count's noise (5 standard deviations) and a tick's batch.
    EXPECT_NEAR(est.peak_waiting, static_cast<double>(r.peak_queue_length),
                5.0 * std::sqrt(users) + users / 3000.0);
    EXPECT_GE(est.run_bytes, static_cast<double>(r.peak_memory_bytes));
    // What the kernel counts (the model's own count misses the allocator's and vector
    // growth's share: a pending abandonment measures 88 B of RSS for 68 B counted). Not
    // under a sanitizer, whose shadow memory and quarantine would be most of it.
    if (!std::string_view(WAITROOM_SANITIZER).empty()) continue;
    const double rss = run_rss_bytes(k.json);
    ASSERT_GT(rss, 0);
    EXPECT_GE(est.run_bytes, rss);
    EXPECT_LE(est.run_bytes, 2.0 * rss);  // a run that needs half the estimate is not refused
  }
}

// Patience bounds the queue by Little's law for the patience clocks: a crowd whose users give
// up after 30 s on average waits about (rate x 30 s) at most, not every arrival of the hour.
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
  const auto unbounded = models::estimate_memory(s);
  EXPECT_GT(unbounded.peak_waiting, 0.85e6);
}
