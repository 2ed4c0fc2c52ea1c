// The `waitroom` program as a user runs it: exit codes, messages, files, determinism.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "support/cli_run.hpp"

namespace fs = std::filesystem;

namespace {

using outcome = waitroom::testing_support::cli_outcome;
using waitroom::testing_support::bounded;
using waitroom::testing_support::slurp;
outcome run(const std::string& args) {
  return waitroom::testing_support::run_cli("cli", args);
}
std::string scenario(const std::string& name) {
  return waitroom::testing_support::scenario_path(name);
}

}  // namespace

TEST(Cli, HelpAndVersion) {
  auto h = run("--help");
  EXPECT_EQ(h.code, 0);
  EXPECT_NE(h.out.find("waitroom run [SCENARIO]"), std::string::npos);
  EXPECT_NE(h.out.find("examples:"), std::string::npos);
  auto v = run("--version");
  EXPECT_EQ(v.code, 0);
  EXPECT_EQ(v.out.rfind("waitroom ", 0), 0u);
  EXPECT_EQ(run("").code, 2);
  auto u = run("frobnicate");
  EXPECT_EQ(u.code, 2);
  EXPECT_NE(u.err.find("unknown command 'frobnicate'"), std::string::npos);
}

TEST(Cli, SameSeedGivesByteIdenticalJson) {
  std::string s = scenario("clinic.json");
  auto a = run("run " + s + " --format json --seed 3");
  auto b = run("run " + s + " --format json --seed 3");
  auto c = run("run " + s + " --format json --seed 4");
  ASSERT_EQ(a.code, 0) << a.err;
  EXPECT_EQ(a.out, b.out);
  EXPECT_NE(a.out, c.out);
  auto j = nlohmann::json::parse(a.out);
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_EQ(j["seed"], 3);
  EXPECT_EQ(j["scenario"]["seed"], 3);  // the effective scenario is echoed
  EXPECT_EQ(j["scenario"]["release"]["batch"], 6);
  EXPECT_EQ(j["classes"][0]["name"], "vip");
  EXPECT_TRUE(j["classes"][0]["wait_s"].contains("p999"));
  EXPECT_FALSE(j["classes"][0]["wait_histogram"]["buckets"].empty());
}

TEST(Cli, SetOverridesAndOutFile) {
  fs::path out = fs::path(testing::TempDir()) / ("result_" + std::to_string(::getpid()) + ".json");
  fs::remove(out);
  auto r = run("run " + scenario("clinic.json") +
               " --set /release/batch=8 --set /queue/policy=fifo --out " + out.string());
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(slurp(out));
  EXPECT_EQ(j["scenario"]["release"]["batch"], 8);
  EXPECT_EQ(j["scenario"]["queue"]["policy"], "fifo");
  fs::remove(out);  // no file left behind in the temp folder
}

TEST(Cli, BadInputExitsTwoAndLeavesNoFile) {
  fs::path out = fs::path(testing::TempDir()) / ("never_" + std::to_string(::getpid()) + ".json");
  fs::remove(out);
  auto r = run("run " + scenario("clinic.json") + " --set /release/batch=-1 --out " + out.string());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("clinic.json: /release/batch: expected an integer from 1"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(out));

  auto missing = run("run /nonexistent/x.json");
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.err.find("/nonexistent/x.json: expected a readable scenario file"),
            std::string::npos);

  auto flag = run("run --sed 3");
  EXPECT_EQ(flag.code, 2);
  EXPECT_NE(flag.err.find("waitroom run"), std::string::npos) << flag.err;

  auto fmt = run("run --format xml");
  EXPECT_EQ(fmt.code, 2);
  EXPECT_NE(fmt.err.find("--format: expected table, json, csv or markdown, found 'xml'"),
            std::string::npos);

  auto unwritable = run("run " + scenario("clinic.json") + " --out /nonexistent/dir/r.json");
  EXPECT_EQ(unwritable.code, 4);
}

TEST(Cli, ValidatePrintsTheEffectiveScenario) {
  auto v = run("validate " + scenario("mmc_validation.json"));
  ASSERT_EQ(v.code, 0) << v.err;
  auto j = nlohmann::json::parse(v.out);
  EXPECT_EQ(j["release"]["slots"], 4);
  EXPECT_EQ(j["queue"]["time_unit"], "us");
  EXPECT_EQ(run("validate").code, 2);
}

// Every shipped scenario validates, runs, and keeps its books: arrivals are released or
// still waiting, and the queue-length integral matches the waits (Little's law).
TEST(Cli, EveryShippedScenarioRuns) {
  int seen = 0;
  for (const auto& entry :
       fs::directory_iterator(std::string(WAITROOM_SOURCE_DIR) + "/scenarios")) {
    if (entry.path().extension() != ".json" || entry.path().filename() == "scenario.schema.json")
      continue;
    ++seen;
    SCOPED_TRACE(entry.path().string());
    auto r = run("run " + entry.path().string() + " --format json");
    ASSERT_EQ(r.code, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    const auto& all = j["overall"];
    EXPECT_EQ(all["arrived"].get<std::uint64_t>(), all["refused"].get<std::uint64_t>() +
                                                       all["released"].get<std::uint64_t>() +
                                                       all["abandoned"].get<std::uint64_t>() +
                                                       all["waiting_at_end"].get<std::uint64_t>());
    if (j.contains("admission")) {  // never oversold
      EXPECT_LE(j["admission"]["max_outstanding_orders"], j["admission"]["stock"]);
    }
    EXPECT_GT(all["released"].get<std::uint64_t>(), 0u);
    const auto& ll = j["littles_law"];
    double area = ll["mean_queue_length"].get<double>() * j["run"]["end_time_s"].get<double>();
    // Nobody counted gave up: the abandoners' wait is null (no data), never a 0.
    const bool gave_up = all["counted"]["abandoned"].get<std::uint64_t>() > 0;
    EXPECT_EQ(all["abandon_wait_s"]["mean"].is_null(), !gave_up);
    EXPECT_EQ(all["abandon_wait_s"]["max"].is_null(), !gave_up);
    const double abandon_mean = gave_up ? all["abandon_wait_s"]["mean"].get<double>() : 0.0;
    double waits = all["wait_s"]["mean"].get<double>() * all["wait_s"]["count"].get<double>() +
                   abandon_mean * all["abandoned"].get<double>() +
                   ll["censored_wait_s"].get<double>();
    EXPECT_NEAR(area, waits, 1e-6 * area + 1e-9);
  }
  EXPECT_GE(seen, 4);
}

TEST(Cli, DefaultRunUsesTheEmbeddedConcertPresale) {
  auto r = run("run");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("scenario concert-presale"), std::string::npos);
  EXPECT_NE(r.out.find("vip"), std::string::npos);
}

TEST(Cli, CheckExitsOneOnAFailedSlaAndWritesJunit) {
  std::string s = scenario("clinic.json");
  fs::path xml = fs::path(testing::TempDir()) / ("sla_" + std::to_string(::getpid()) + ".xml");
  auto ok = run("check " + s + " --junit " + xml.string());
  EXPECT_EQ(ok.code, 0) << ok.out << ok.err;
  EXPECT_NE(ok.out.find("all SLAs hold"), std::string::npos);
  auto junit = slurp(xml);
  EXPECT_NE(
      junit.find("<testsuites name=\"waitroom check\" tests=\"3\" failures=\"0\" time=\"0\">"),
      std::string::npos)
      << junit;
  auto fail = run("check " + s + " --set /sla/targets/0/max=0.5 --junit " + xml.string());
  EXPECT_EQ(fail.code, 1);
  EXPECT_NE(fail.out.find("FAIL vip mean_wait_s <= 0.5"), std::string::npos) << fail.out;
  EXPECT_NE(slurp(xml).find("<failure message="), std::string::npos);
  EXPECT_EQ(run("check").code, 2);
  fs::path no_sla =
      fs::path(testing::TempDir()) / ("nosla_" + std::to_string(::getpid()) + ".json");
  std::ofstream(no_sla) << R"({"name": "x", "classes": [{"name": "all"}],
    "arrivals": {"process": "piecewise", "segments": [{"duration_s": 1, "rate_per_s": 1}]},
    "release": {"mode": "tick", "interval_ms": 200, "batch": 1}})";
  auto none = run("check " + no_sla.string());
  EXPECT_EQ(none.code, 2);
  EXPECT_NE(none.err.find("/sla: expected an sla block to check, found none"), std::string::npos);
}

TEST(Cli, ReplicationsGiveIntervals) {
  auto r = run("run " + scenario("clinic.json") + " --replications 4 --threads 2 --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["replications"], 4);
  const auto& mean = j["classes"][0]["mean_wait_s"];
  EXPECT_LE(mean["ci"][0].get<double>(), mean["estimate"].get<double>());
  EXPECT_GE(mean["ci"][1].get<double>(), mean["estimate"].get<double>());
  EXPECT_EQ(j["per_replication"].size(), 4u);
  EXPECT_EQ(run("run --replications 0").code, 2);
}

// The project's own SLA regression gate: every shipped scenario with an sla block holds.
TEST(CliSlow, EveryShippedSlaHolds) {
  std::string files;
  for (const auto& e : fs::directory_iterator(std::string(WAITROOM_SOURCE_DIR) + "/scenarios")) {
    if (e.path().extension() != ".json" || e.path().filename() == "scenario.schema.json") continue;
    if (nlohmann::json::parse(slurp(e.path())).contains("sla")) files += " " + e.path().string();
  }
  ASSERT_FALSE(files.empty());
  auto r = run("check" + files);
  EXPECT_EQ(r.code, 0) << r.out << r.err;
}

TEST(Cli, CompareGivesPairedDifferencesOnCommonRandomNumbers) {
  auto r = run("compare " + scenario("clinic.json") +
               " --replications 5 --format json --variant same:/name=renamed" +
               " --variant faster:/release/batch=8");
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["variants"].size(), 3u);
  // An identical configuration on the same random numbers differs by exactly zero.
  const auto& same = j["variants"][1]["classes"][0]["mean_wait_s"]["difference"];
  EXPECT_EQ(same["estimate"], 0.0);
  EXPECT_EQ(same["ci"][0], 0.0);
  // A faster backend shortens every wait: the whole interval is below zero.
  const auto& faster = j["variants"][2]["classes"][0]["mean_wait_s"]["difference"];
  EXPECT_LT(faster["ci"][1].get<double>(), 0.0);
  EXPECT_EQ(run("compare " + scenario("clinic.json") + " --variant nocolon").code, 2);
  EXPECT_EQ(run("compare " + scenario("clinic.json")).code, 2);
  auto bad = run("compare " + scenario("clinic.json") + " --variant x:/release/batch=-1");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("/release/batch"), std::string::npos);
}

TEST(Cli, EstimatePrintsTheClosedFormBesideTheSimulation) {
  auto r = run("estimate " + scenario("priority_mm1.json") + " --replications 4");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("Cobham"), std::string::npos);
  EXPECT_NE(r.out.find("5.0000"), std::string::npos);
  EXPECT_EQ(run("estimate").code, 2);
}

TEST(CliSlow, PlanAnswersTheArticlesRatioQuestion) {
  auto r = run("plan " + scenario("clinic_ratio_plan.json") +
               " --knob /release/selection/weights/0 --range 1:29:1"
               " --tie /release/selection/weights/1=30-x --threads 2");
  ASSERT_EQ(r.code, 0) << r.err;
  // VIPs need 6 of every 30 (5/s arrive); normals need 20 (20/s arrive) and their backlog.
  EXPECT_NE(r.out.find("every SLA holds for /release/selection/weights/0 from 6 to 10"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(run("plan " + scenario("clinic_ratio_plan.json") + " --knob /x --range 5:1").code, 2);
  EXPECT_EQ(run("plan " + scenario("clinic_ratio_plan.json") +
                " --knob /release/batch --range 1:2 --tie /x=y")
                .code,
            2);
  // A step of 0.05 gives 4.05 slots: the point is rejected, naming the flag and the point
  // (an integer knob's default step is whole: 4:5 takes 4 and 5).
  auto fractional =
      run("plan " + scenario("mmc_validation.json") + " --knob /release/slots --range 4:5:0.05");
  EXPECT_EQ(fractional.code, 2);
  EXPECT_NE(fractional.err.find("--range 4:5:0.05 at grid point 2 of 21 (/release/slots=4.05): "
                                "expected an integer"),
            std::string::npos)
      << fractional.err;
}

TEST(Cli, PlanSearchStartsFromTheClosedFormAndFindsTheGridsBoundary) {
  // M/M/4 with 1 s sessions: the mean-wait target (1.6 s) holds up to 3.5 arrivals/s (the
  // whole grid finds the same boundary). The end-to-end case of the search; its logic is
  // tested on fake verdicts in tests/unit/test_planning.cpp.
  const std::string args = "plan " + scenario("mmc_validation.json") +
                           " --knob /arrivals/rate_per_s --range 0.5:3.9:0.1 --quiet";
  auto search = run(args + " --search");
  ASSERT_EQ(search.code, 0) << search.err;
  EXPECT_NE(search.out.find("closed-form first guess: the mean-wait targets hold from 0.5 to 3.5"),
            std::string::npos)
      << search.out;
  EXPECT_NE(search.out.find("every SLA holds for /arrivals/rate_per_s from 0.5 to 3.5 (bisection"),
            std::string::npos)
      << search.out;
  EXPECT_NE(search.out.find("7 of 35 values simulated"), std::string::npos) << search.out;
  // Without a closed form the search runs the whole grid, and says so; two knobs cannot be
  // bisected.
  auto ratio = run("plan " + scenario("clinic_ratio_plan.json") +
                   " --knob /release/selection/weights/0 --range 1:29:4"
                   " --tie /release/selection/weights/1=30-x --search --quiet");
  ASSERT_EQ(ratio.code, 0) << ratio.err;
  EXPECT_NE(ratio.out.find("no closed-form first guess here: every value was simulated"),
            std::string::npos)
      << ratio.out;
  EXPECT_EQ(run(args + " --search --knob /release/slots --range 1:5:1").code, 2);
}

// plan --search is not sharded across processes (each probe depends on the last verdict):
// a probe's replications run on threads instead, with the same bytes for any thread count.
TEST(Cli, PlanSearchIsTheSameOnAnyThreadCount) {
  const std::string args = "plan " + scenario("mmc_validation.json") +
                           " --knob /arrivals/rate_per_s --range 2:3.8:0.2 --search --quiet"
                           " --set /run/horizon_s=3000 --set /sla/replications=4 --format json";
  auto one = run(args + " --threads 1");
  auto two = run(args + " --threads 2");
  auto three = run(args + " --threads 3");
  ASSERT_EQ(one.code, 0) << one.err;
  EXPECT_TRUE(nlohmann::json::parse(one.out)["search"].get<bool>());
  EXPECT_LT(nlohmann::json::parse(one.out)["points"].size(), 10u);  // a search, not the grid
  EXPECT_EQ(two.out, one.out);
  EXPECT_EQ(three.out, one.out);
}

// compare, estimate and check replicate on threads too (the same replicate() as run's): the
// same bytes for any thread count. Named for scripts/sanitize --thread, which runs it.
TEST(Cli, CompareEstimateAndCheckAreTheSameOnAnyThreadCount) {
  const std::string short_clinic = " --set /arrivals/segments/0/duration_s=60";
  for (const std::string& args :
       {"compare " + scenario("clinic.json") + short_clinic +
            " --replications 3 --format json --variant faster:/release/batch=8",
        "estimate " + scenario("priority_mm1.json") + " --set /run/horizon_s=2000 --replications 3",
        "check " + scenario("priority_mm1.json") +
            " --set /run/horizon_s=2000 --set /sla/replications=3 --format json"}) {
    auto one = run(args + " --threads 1");
    auto two = run(args + " --threads 2");
    EXPECT_FALSE(one.out.empty()) << args << one.err;
    EXPECT_EQ(two.code, one.code) << args << two.err;
    EXPECT_EQ(two.out, one.out) << args;
  }
}

TEST(Cli, SweepWritesAGridAsJsonAndCsvTheSameForAnyThreadCount) {
  fs::path csv = fs::path(testing::TempDir()) / ("grid_" + std::to_string(::getpid()) + ".csv");
  std::string args = "sweep " + scenario("clinic.json") +
                     " --vary /release/batch=5:7:1 --vary /classes/0/offset_ms=0:10000:10000" +
                     " --replications 3 --quiet --format json";
  auto one = run(args + " --threads 1 --csv " + csv.string());
  auto two = run(args + " --threads 2");
  ASSERT_EQ(one.code, 0) << one.err;
  EXPECT_EQ(one.out, two.out);
  auto j = nlohmann::json::parse(one.out);
  ASSERT_EQ(j["points"].size(), 6u);  // 3 x 2
  EXPECT_EQ(j["points"][1]["values"]["/classes/0/offset_ms"], 10000.0);
  EXPECT_TRUE(j["points"][0].contains("sla_holds"));
  std::string text = slurp(csv);
  EXPECT_EQ(
      text.rfind("/release/batch,/classes/0/offset_ms,class,metric,estimate,ci_low,ci_high\n", 0),
      0u);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'),
            1 + 6 * 3 * 3);  // points x classes x metrics
  EXPECT_EQ(run("sweep " + scenario("clinic.json") + " --vary /release/batch=7:5").code, 2);
  auto bad = run("sweep " + scenario("clinic.json") + " --vary /release/batch=0:1:1");
  EXPECT_EQ(bad.code, 2);  // batch 0 is invalid: the point's error names the pointer
  EXPECT_NE(bad.err.find("/release/batch"), std::string::npos);
}

TEST(Cli, ShardsRunAsSeparateProcessesMergeToTheUnshardedSweep) {
  fs::path dir = fs::path(testing::TempDir()) / ("shards_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::string args =
      "sweep " + scenario("clinic.json") + " --vary /release/batch=5:7:1 --replications 3 --quiet";
  auto full = run(args);
  ASSERT_EQ(full.code, 0) << full.err;
  // Three shards at once, as a job array would run them.
  std::string cmd;
  for (int k = 0; k < 3; ++k)
    cmd += bounded(args) + " --shard " + std::to_string(k) + "/3 --out " +
           (dir / ("s" + std::to_string(k) + ".json")).string() + " & ";
  cmd += "wait";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  auto merged = run("merge " + (dir / "s1.json").string() + " " + (dir / "s0.json").string() + " " +
                    (dir / "s2.json").string());
  ASSERT_EQ(merged.code, 0) << merged.err;
  EXPECT_EQ(merged.out, full.out);
  auto missing = run("merge " + (dir / "s0.json").string() + " " + (dir / "s1.json").string());
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.err.find("shard 2 missing"), std::string::npos);
  EXPECT_EQ(run("merge " + scenario("clinic.json")).code, 2);  // not a shard file
  EXPECT_EQ(run(args + " --shard 3/3").code, 2);
}

TEST(Cli, TraceFollowsEveryStateChangeInRedisOrder) {
  fs::path dir = fs::path(testing::TempDir());
  fs::path sc = dir / ("trace_sc_" + std::to_string(::getpid()) + ".json");
  fs::path tr = dir / ("trace_" + std::to_string(::getpid()) + ".jsonl");
  std::ofstream(sc) << R"({"name": "t", "classes": [{"name": "all"}],
    "arrivals": {"process": "piecewise", "segments": [{"duration_s": 1, "rate_per_s": 0}],
                 "backlog_users": 10},
    "queue": {"policy": "fifo"}, "release": {"mode": "tick", "interval_ms": 200, "batch": 3}})";
  auto r = run("run " + sc.string() + " --trace " + tr.string());
  ASSERT_EQ(r.code, 0) << r.err;
  std::ifstream in(tr);
  std::vector<nlohmann::json> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(nlohmann::json::parse(l));
  ASSERT_EQ(lines.size(), 20u);  // 10 enter, 10 release
  std::string last_token;
  std::uint64_t expect_len = 10;
  for (std::size_t i = 10; i < 20; ++i) {
    EXPECT_EQ(lines[i]["action"], "release");
    EXPECT_EQ(lines[i]["queue_length"], --expect_len);
    // Every score ties (all entered at t = 0): Redis releases by member bytes, ascending.
    auto token = lines[i]["token"].get<std::string>();
    EXPECT_LT(last_token, token);
    last_token = token;
  }
  auto one = run("run " + sc.string() + " --trace " + tr.string() + " --trace-users 4");
  ASSERT_EQ(one.code, 0);
  std::ifstream in2(tr);
  int n = 0;
  for (std::string l; std::getline(in2, l);) {
    EXPECT_EQ(nlohmann::json::parse(l)["user"], 4);
    ++n;
  }
  EXPECT_EQ(n, 2);
  EXPECT_EQ(run("run " + sc.string() + " --trace " + tr.string() + " --trace-users x").code, 2);
  // A trace that cannot be written is a failed write (exit 4), like --out.
  EXPECT_EQ(run("run " + sc.string() + " --trace /nonexistent/dir/t.jsonl").code, 4);
}

TEST(Cli, EstimateCoversTickReleaseAndErlangA) {
  auto tick = run("estimate " + scenario("clinic.json") +
                  " --set '/arrivals={\"process\":\"poisson\",\"rate_per_s\":27}'"
                  " --set /run/horizon_s=20000 --replications 4");
  ASSERT_EQ(tick.code, 0) << tick.err;
  EXPECT_NE(tick.out.find("tick-release Markov chain"), std::string::npos) << tick.out;
  auto ea = run("estimate " + scenario("mmc_validation.json") +
                " --set '/classes/0/patience_s={\"dist\":\"exponential\",\"mean\":2}'"
                " --set /run/horizon_s=20000 --replications 4");
  ASSERT_EQ(ea.code, 0) << ea.err;
  EXPECT_NE(ea.out.find("Erlang-A"), std::string::npos) << ea.out;
  EXPECT_NE(ea.out.find("P(abandon)"), std::string::npos);
  // FIFO M/M/4: P(wait > t) = C exp(-(4 mu - lambda) t) at the SLA's wait limits (1.6 s, 12 s).
  auto tail = run("estimate " + scenario("mmc_validation.json") +
                  " --set /run/horizon_s=2000 --replications 3 --format json");
  ASSERT_EQ(tail.code, 0) << tail.err;
  auto tj = nlohmann::json::parse(tail.out);
  ASSERT_EQ(tj["rows"].size(), 4u) << tail.out;
  EXPECT_EQ(tj["rows"][1]["name"], "P(wait > 0)");
  EXPECT_EQ(tj["rows"][2]["name"], "P(wait > 1.6 s)");
  const double c = tj["rows"][1]["closed_form"].get<double>();
  EXPECT_NEAR(tj["rows"][2]["closed_form"].get<double>(), c * std::exp(-0.5 * 1.6), 1e-15);
  EXPECT_NEAR(tj["rows"][3]["closed_form"].get<double>(), c * std::exp(-0.5 * 12), 1e-15);
}

namespace {

// Runs `args --shard K/N --out DIR/PREFIX-K.json` for every K at once (a job array's tasks)
// and returns the files.
std::vector<std::string> run_shards(const std::string& args, int n, const fs::path& dir,
                                    const std::string& prefix) {
  std::string cmd;
  std::vector<std::string> files;
  for (int k = 0; k < n; ++k) {
    files.push_back((dir / (prefix + "-" + std::to_string(k) + ".json")).string());
    cmd += std::string(WAITROOM_BINARY) + " " + args + " --shard " + std::to_string(k) + "/" +
           std::to_string(n) + " --out " + files.back() + " & ";
  }
  cmd += "wait";
  EXPECT_EQ(std::system(cmd.c_str()), 0);
  for (const auto& f : files) EXPECT_TRUE(fs::exists(f)) << f;
  return files;
}

}  // namespace

TEST(Cli, ShardedReplicationsMergeToTheUnshardedRun) {
  fs::path dir = fs::path(testing::TempDir()) / ("run_shards_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string args = "run " + scenario("clinic_ratio.json") + " --replications 5";
  auto full_json = run(args + " --format json");
  auto full_table = run(args);
  ASSERT_EQ(full_json.code, 0) << full_json.err;
  auto files = run_shards(args, 3, dir, "run");
  // Any order; JSON (with the pooled histograms, bit for bit) and the table alike.
  auto merged = run("merge " + files[2] + " " + files[0] + " " + files[1] + " --format json");
  ASSERT_EQ(merged.code, 0) << merged.err;
  EXPECT_EQ(merged.out, full_json.out);
  auto table = run("merge " + files[1] + " " + files[2] + " " + files[0]);
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_EQ(table.out, full_table.out);
  // More shards than replications: some shards are empty, the merge is still the same.
  auto many = run_shards(args, 7, dir, "many");
  std::string all;
  for (const auto& f : many) all += " " + f;
  EXPECT_EQ(run("merge" + all + " --format json").out, full_json.out);
  // A repeated shard, a missing one, a shard of other overrides: exit 2 naming the shard.
  auto twice = run("merge " + files[0] + " " + files[0] + " " + files[1]);
  EXPECT_EQ(twice.code, 2);
  EXPECT_NE(twice.err.find(files[0] + ": expected shard K of 3 given once, found shard 0 again"),
            std::string::npos)
      << twice.err;
  auto other = run_shards(args + " --set /description=other", 3, dir, "other");
  auto mixed = run("merge " + files[0] + " " + files[1] + " " + other[2]);
  EXPECT_EQ(mixed.code, 2);
  EXPECT_NE(mixed.err.find(other[2]), std::string::npos) << mixed.err;
  EXPECT_EQ(run(args + " --shard 0/3 --trace " + (dir / "t.jsonl").string()).code, 2);
  EXPECT_EQ(run("run " + scenario("clinic_ratio.json") + " --shard 0/2").code, 2);  // R = 1
  EXPECT_EQ(run(args + " --shard 1/x").code, 2);
}

TEST(Cli, ShardsOfAnEditedScenarioNeverMixNamingTheShard) {
  fs::path dir = fs::path(testing::TempDir()) / ("hash_shards_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path sc = dir / "clinic.json";
  fs::copy_file(scenario("clinic_ratio.json"), sc, fs::copy_options::overwrite_existing);
  const std::string args = "run " + sc.string() + " --replications 4";
  auto files = run_shards(args, 2, dir, "h");
  auto before = run("merge " + files[0] + " " + files[1] + " --format json");
  ASSERT_EQ(before.code, 0);
  // The same arguments on an edited file: the shard's scenario hash differs.
  auto text = slurp(sc);
  auto at = text.find("Seed 000 layer 2");
  ASSERT_NE(at, std::string::npos);
  std::ofstream(sc) << text.replace(at, 4, "Edited");
  auto edited = run_shards(args, 2, dir, "e");
  auto mixed = run("merge " + files[0] + " " + edited[1]);
  EXPECT_EQ(mixed.code, 2);
  EXPECT_NE(
      mixed.err.find(edited[1] + ": expected a shard of the same scenario content as " + files[0]),
      std::string::npos)
      << mixed.err;
  // All shards of the old content, merged after the edit: they carry the content they ran,
  // so the merge is the old content's, byte for byte.
  auto stale = run("merge " + files[0] + " " + files[1] + " --format json");
  EXPECT_EQ(stale.code, 0) << stale.err;
  EXPECT_EQ(stale.out, before.out);
  // A damaged shard: exit 2 naming it, never a crash.
  const std::string damaged = (dir / "damaged.json").string();
  auto j = nlohmann::json::parse(slurp(edited[0]));
  j["units"][0]["table"].erase(0);
  std::ofstream(damaged) << j.dump();
  auto bad = run("merge " + damaged + " " + edited[1]);
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find(damaged), std::string::npos) << bad.err;
  j = nlohmann::json::parse(slurp(edited[0]));
  j["units"][0]["waits"][0]["wait_ns"]["lower"][0] = "x";
  std::ofstream(damaged) << j.dump();
  bad = run("merge " + damaged + " " + edited[1]);
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find(damaged), std::string::npos) << bad.err;
}

// A trace's CSV is the run's input though the scenario only names it: shards run on two
// contents of the same CSV file never merge, and the shards of one content merge as before.
TEST(Cli, ShardsOfADifferentTraceCsvNeverMerge) {
  fs::path dir = fs::path(testing::TempDir()) / ("trace_shards_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path csv = dir / "arrivals.csv", sc = dir / "trace.json";
  std::ofstream(sc) << R"({"name": "t", "classes": [{"name": "vip", "share": 0.5},
      {"name": "normal", "share": 0.5}], "arrivals": {"process": "trace",
      "trace_file": "arrivals.csv"}, "release": {"mode": "tick", "interval_ms": 1000,
      "batch": 1}})";
  auto write_csv = [&](double step) {
    std::ofstream f(csv);
    f << "timestamp_s,class,user_id\n";
    for (int i = 0; i < 40; ++i)
      f << step * i << "," << (i % 3 ? "normal" : "vip") << "," << i + 1 << "\n";
  };
  const std::string args = "run " + sc.string() + " --replications 4";
  write_csv(0.5);
  auto first = run_shards(args, 2, dir, "a");
  auto first_full = run(args + " --format json");
  ASSERT_EQ(first_full.code, 0) << first_full.err;
  write_csv(0.25);  // the same scenario file, other arrivals
  auto second = run_shards(args, 2, dir, "b");
  auto second_full = run(args + " --format json");
  ASSERT_EQ(second_full.code, 0) << second_full.err;
  EXPECT_NE(first_full.out, second_full.out);
  // One shard of each content: refused, naming the shard of the other content.
  auto mixed = run("merge " + first[0] + " " + second[1] + " --format json");
  EXPECT_EQ(mixed.code, 2);
  EXPECT_NE(mixed.err.find(second[1] + ": expected a shard of the same scenario content as " +
                           first[0] + ", found another scenario sha256"),
            std::string::npos)
      << mixed.err;
  EXPECT_EQ(mixed.out, "");
  // All shards of the old content, after the CSV changed: the CSV is not in the shard files,
  // so the merge cannot rebuild that content and refuses, naming a shard.
  auto stale = run("merge " + first[0] + " " + first[1] + " --format json");
  EXPECT_EQ(stale.code, 2);
  EXPECT_NE(stale.err.find(first[0] + ": expected a shard of"), std::string::npos) << stale.err;
  // The shards of the CSV as it is now merge to the unsharded run, byte for byte.
  auto merged = run("merge " + second[1] + " " + second[0] + " --format json");
  ASSERT_EQ(merged.code, 0) << merged.err;
  EXPECT_EQ(merged.out, second_full.out);
}

TEST(Cli, ShardedCheckMergesToTheUnshardedVerdictAndJunit) {
  fs::path dir = fs::path(testing::TempDir()) / ("check_shards_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  // A failing target (VIP mean wait 1 s against 0.9 s): the verdict, its exit code and the
  // JUnit file.
  const std::string args = "check " + scenario("priority_mm1.json") + " " +
                           scenario("priority_mm1.json") +
                           " --set /sla/targets/0/max=0.9 --set /run/horizon_s=50000";
  const std::string junit = (dir / "full.xml").string(), merged_junit = (dir / "m.xml").string();
  auto full = run(args + " --junit " + junit);
  ASSERT_EQ(full.code, 1) << full.err;
  auto files = run_shards(args, 3, dir, "c");
  auto merged =
      run("merge " + files[2] + " " + files[1] + " " + files[0] + " --junit " + merged_junit);
  EXPECT_EQ(merged.code, 1) << merged.err;
  EXPECT_EQ(merged.out, full.out);
  EXPECT_EQ(slurp(merged_junit), slurp(junit));
  auto pass = run("check " + scenario("priority_mm1.json") + " --set /run/horizon_s=50000");
  ASSERT_EQ(pass.code, 0) << pass.err;
  auto pf = run_shards("check " + scenario("priority_mm1.json") + " --set /run/horizon_s=50000", 4,
                       dir, "p");
  auto pm = run("merge " + pf[0] + " " + pf[1] + " " + pf[2] + " " + pf[3]);
  EXPECT_EQ(pm.code, 0) << pm.err;
  EXPECT_EQ(pm.out, pass.out);
  // Merged shards print and write what the unsharded check does, in every format; without
  // --shard, --out is check's result file.
  for (const std::string f : {"json", "csv", "table"}) {
    auto whole =
        run("check " + scenario("priority_mm1.json") + " --set /run/horizon_s=50000 --format " + f);
    ASSERT_EQ(whole.code, 0) << whole.err;
    auto merged_f =
        run("merge " + pf[0] + " " + pf[1] + " " + pf[2] + " " + pf[3] + " --format " + f);
    EXPECT_EQ(merged_f.code, 0) << merged_f.err;
    EXPECT_EQ(merged_f.out, whole.out) << f;
  }
  const auto whole_file = (dir / "whole.json").string(),
             merged_file = (dir / "merged.json").string();
  ASSERT_EQ(run("check " + scenario("priority_mm1.json") + " --set /run/horizon_s=50000 --out " +
                whole_file)
                .code,
            0);
  ASSERT_EQ(
      run("merge " + pf[0] + " " + pf[1] + " " + pf[2] + " " + pf[3] + " --out " + merged_file)
          .code,
      0);
  EXPECT_FALSE(slurp(whole_file).empty());
  EXPECT_EQ(slurp(merged_file), slurp(whole_file));
  // Shards of different commands never merge.
  auto r = run_shards(
      "run " + scenario("priority_mm1.json") + " --replications 4 --set /run/horizon_s=1000", 4,
      dir, "r");
  EXPECT_EQ(run("merge " + pf[0] + " " + pf[1] + " " + pf[2] + " " + r[3]).code, 2);
}

TEST(Cli, EstimateJsonHasFullPrecisionAndTheNewClosedForms) {
  auto r = run("estimate " + scenario("priority_mm1.json") +
               " --replications 3 --set /run/horizon_s=20000 --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["model"], "M/G/1 non-preemptive priority, 2 levels (Cobham)");
  EXPECT_EQ(j["rows"][0]["name"], "vip");
  EXPECT_NEAR(j["rows"][0]["closed_form"].get<double>(), 1.0, 1e-15);
  EXPECT_NEAR(j["rows"][1]["closed_form"].get<double>(), 5.0, 1e-14);
  EXPECT_EQ(j["rows"][2]["name"], "P(wait > 0)");
  EXPECT_EQ(j["rows"][2]["closed_form"].get<double>(), 0.8);
  // A value with no short decimal keeps all its digits: M/M/3, two classes at 1/s.
  auto m = run("estimate " + scenario("priority_mm1.json") +
               " --set /release/slots=3 --set /arrivals/rate_per_s=2 --set /classes/0/share=0.5"
               " --set /classes/1/share=0.5 --set /run/horizon_s=5000 --replications 2"
               " --format json");
  ASSERT_EQ(m.code, 0) << m.err;
  auto mj = nlohmann::json::parse(m.out);
  EXPECT_EQ(mj["model"], "M/M/3 non-preemptive priority, 2 levels (Cobham with Erlang C)");
  EXPECT_NEAR(mj["rows"][0]["closed_form"].get<double>(), 2.0 / 9.0, 1e-16);
  EXPECT_NE(m.out.find("0.222222222222222"), std::string::npos);  // not 4 decimals
  // No closed form: the reason, and null values.
  auto none = run("estimate " + scenario("clinic_ratio.json") +
                  " --replications 2 --set /run/horizon_s=600 --format json");
  ASSERT_EQ(none.code, 0) << none.err;
  auto nj = nlohmann::json::parse(none.out);
  EXPECT_TRUE(nj["model"].is_null());
  EXPECT_FALSE(nj["reason"].get<std::string>().empty());
  EXPECT_TRUE(nj["rows"][0]["closed_form"].is_null());
}

TEST(Cli, RenewalArrivalsRunAndEstimateAgainstGM1) {
  auto r = run("estimate " + scenario("mmc_validation.json") +
               " --set '/arrivals={\"process\":\"renewal\",\"interarrival_s\":"
               "{\"dist\":\"erlang\",\"k\":2,\"mean\":1.25}}' --set /release/slots=1"
               " --set /run/horizon_s=20000 --replications 3");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("G/M/1 with erlang interarrival times"), std::string::npos) << r.out;
  auto v = run("validate " + scenario("mmc_validation.json") +
               " --set '/arrivals={\"process\":\"renewal\",\"interarrival_s\":"
               "{\"dist\":\"deterministic\",\"value\":0.5}}'");
  ASSERT_EQ(v.code, 0) << v.err;
  auto j = nlohmann::json::parse(v.out);
  EXPECT_EQ(j["arrivals"]["process"], "renewal");
  EXPECT_EQ(j["arrivals"]["interarrival_s"]["value"], 0.5);
  auto zero = run("validate " + scenario("mmc_validation.json") +
                  " --set '/arrivals={\"process\":\"renewal\",\"interarrival_s\":"
                  "{\"dist\":\"deterministic\",\"value\":0}}'");
  EXPECT_EQ(zero.code, 2);
  EXPECT_NE(zero.err.find("/arrivals/interarrival_s"), std::string::npos) << zero.err;
  auto stray = run("validate " + scenario("mmc_validation.json") +
                   " --set '/arrivals={\"process\":\"poisson\",\"rate_per_s\":1,"
                   "\"interarrival_s\":{\"dist\":\"deterministic\",\"value\":1}}'");
  EXPECT_EQ(stray.code, 2);
}

TEST(Cli, ShardedGridPlanMergesToTheUnshardedPlan) {
  fs::path dir = fs::path(testing::TempDir()) / ("plan_shards_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string args = "plan " + scenario("clinic_ratio_plan.json") +
                           " --knob /release/selection/weights/0 --range 4:12:2"
                           " --tie /release/selection/weights/1=30-x --quiet";
  const std::string csv = (dir / "full.csv").string(), merged_csv = (dir / "m.csv").string();
  auto full = run(args + " --csv " + csv);
  ASSERT_EQ(full.code, 0) << full.err;
  auto files = run_shards(args, 3, dir, "plan");
  auto merged = run("merge " + files[1] + " " + files[2] + " " + files[0] + " --csv " + merged_csv);
  ASSERT_EQ(merged.code, 0) << merged.err;
  EXPECT_EQ(merged.out, full.out);
  EXPECT_EQ(slurp(merged_csv), slurp(csv));
  EXPECT_NE(merged.out.find("from 6 to 10"), std::string::npos) << merged.out;
  // Two knobs: the feasible-region map.
  const std::string map = "plan " + scenario("mmc_validation.json") +
                          " --knob /arrivals/rate_per_s --range 2:3.8:0.6 --knob /release/slots"
                          " --range 4:5:1 --set /sla/replications=3 --set /run/horizon_s=2000";
  auto map_full = run(map);
  ASSERT_EQ(map_full.code, 0) << map_full.err;
  auto map_files = run_shards(map, 2, dir, "map");
  EXPECT_EQ(run("merge " + map_files[0] + " " + map_files[1]).out, map_full.out);
  // --search picks each value from the last verdict: it says it cannot be sharded.
  auto search = run(args + " --search --shard 0/2");
  EXPECT_EQ(search.code, 2);
  EXPECT_NE(search.err.find("without --search"), std::string::npos) << search.err;
  EXPECT_NE(search.err.find("--threads"), std::string::npos) << search.err;
  // A plan's shards and a sweep's never merge.
  auto sweep = run_shards(
      "sweep " + scenario("clinic.json") + " --vary /release/batch=5:6:1 --replications 2 --quiet",
      3, dir, "sw");
  EXPECT_EQ(run("merge " + files[0] + " " + files[1] + " " + sweep[2]).code, 2);
}

// Help per command, progress only on a terminal, check/plan/sweep outputs for
// people and programs, HTML reports from saved results.
TEST(Cli, EachCommandsHelpListsEveryOptionItAccepts) {
  auto plan = run("plan --help");
  ASSERT_EQ(plan.code, 0) << plan.err;
  for (const char* o : {"--set", "--seed", "--threads", "--replications", "--out", "--format",
                        "--html", "--csv", "--quiet", "--knob", "--range", "--tie", "--search"})
    EXPECT_NE(plan.out.find(o), std::string::npos) << o << "\n" << plan.out;
  EXPECT_NE(plan.out.find("STEP defaults to (HI - LO) / 20"), std::string::npos);
  auto check = run("check --help");
  for (const char* o : {"--set", "--seed", "--junit", "--format", "--out", "--html", "--quiet"})
    EXPECT_NE(check.out.find(o), std::string::npos) << o << "\n" << check.out;
  // The help is the parser's own list: an option it does not list is refused.
  EXPECT_EQ(check.out.find("--knob"), std::string::npos);
  EXPECT_EQ(run("check " + scenario("clinic.json") + " --knob /x").code, 2);
  EXPECT_NE(run("merge --help").out.find("--html"), std::string::npos);
  EXPECT_NE(run("report --help").out.find("--out FILE"), std::string::npos);
}

TEST(Cli, ProgressLineOnlyOnATerminalAndNeverWhenQuiet) {
  if (std::system("command -v script >/dev/null 2>&1") != 0) GTEST_SKIP() << "no script(1)";
  fs::path dir = fs::path(testing::TempDir()) / ("waitroom_tty_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  // Twelve concert replications on one thread take about two seconds (three took half a
  // second after the engine's speed-ups): long enough to show.
  std::string cmd = std::string(WAITROOM_BINARY) + " run " + scenario("concert_presale.json") +
                    " --replications 12 --threads 1 >/dev/null";
  auto tty = [&](const std::string& extra, const std::string& name) {
    fs::path log = dir / name;
    std::string s = "script -qec '" + cmd + extra + "' /dev/null >" + log.string() + " 2>&1";
    EXPECT_EQ(std::system(s.c_str()), 0);
    return slurp(log);
  };
  EXPECT_NE(tty("", "tty.txt").find("[12/12] 100% ETA"), std::string::npos);
  EXPECT_EQ(tty(" --quiet", "quiet.txt").find("ETA"), std::string::npos);
  auto piped = run("run " + scenario("concert_presale.json") + " --replications 3 --threads 1");
  EXPECT_EQ(piped.err.find("ETA"), std::string::npos) << piped.err;
}

TEST(Cli, CheckWritesJsonAndPlanShowsEveryTargetWithItsInterval) {
  auto j = run("check " + scenario("clinic.json") + " --format json");
  ASSERT_EQ(j.code, 0) << j.err;
  auto c = nlohmann::json::parse(j.out);
  EXPECT_EQ(c["kind"], "check");
  EXPECT_EQ(c["pass"], true);
  ASSERT_EQ(c["scenarios"][0]["targets"].size(), 3u);
  for (const auto& t : c["scenarios"][0]["targets"]) {
    EXPECT_LE(t["ci"][0].get<double>(), t["estimate"].get<double>());
    EXPECT_LE(t["estimate"].get<double>(), t["ci"][1].get<double>());
  }
  auto plan = run("plan " + scenario("clinic_ratio_plan.json") +
                  " --knob /release/selection/weights/0 --range 3:9:6 --tie "
                  "/release/selection/weights/1=30-x --replications 3 --quiet");
  ASSERT_EQ(plan.code, 0) << plan.err;
  // Waits up to 13 min: the whole table, limits included, in min.
  EXPECT_NE(plan.out.find("times in min"), std::string::npos) << plan.out;
  EXPECT_NE(plan.out.find("vip mean_wait_s <= 0.3333 min"), std::string::npos) << plan.out;
  EXPECT_NE(plan.out.find("normal mean_wait_s <= 2 min"), std::string::npos);
  EXPECT_NE(plan.out.find(" !"), std::string::npos);  // x = 3 fails the VIP target
  EXPECT_NE(plan.out.find("3 replications a point"), std::string::npos);
  auto pj = run("plan " + scenario("clinic_ratio_plan.json") +
                " --knob /release/selection/weights/0 --range 3:9:6 --tie "
                "/release/selection/weights/1=30-x --replications 3 --quiet --format json");
  auto p = nlohmann::json::parse(pj.out);
  EXPECT_EQ(p["kind"], "plan");
  ASSERT_EQ(p["points"].size(), 2u);
  EXPECT_EQ(p["points"][0]["sla_holds"], false);
  EXPECT_EQ(p["points"][0]["targets"][0]["pass"], false);
}

TEST(Cli, RunTableShowsP95WithOneUnitForEveryWaitColumnAndSweepATable) {
  auto r = run("run " + scenario("concert_presale.json"));
  ASSERT_EQ(r.code, 0) << r.err;
  std::istringstream lines(r.out);
  std::string line, head;
  while (std::getline(lines, line))
    if (line.rfind("class ", 0) == 0) {
      head = line;
      break;
    }
  EXPECT_NE(head.find("p95"), std::string::npos) << r.out;
  // One unit for the 7 wait columns, in their headers, none inside the figures.
  EXPECT_EQ(std::count(head.begin(), head.end(), '('), 7) << head;
  EXPECT_NE(head.find("p95 (s)"), std::string::npos) << head;
  EXPECT_EQ(r.out.find("min "), std::string::npos) << r.out;
  auto sweep = run("sweep " + scenario("clinic.json") +
                   " --vary /release/batch=6:7:1 --replications 3 --quiet --format table");
  ASSERT_EQ(sweep.code, 0) << sweep.err;
  EXPECT_NE(sweep.out.find("mean wait (s)"), std::string::npos) << sweep.out;
  EXPECT_NE(sweep.out.find("holds"), std::string::npos) << sweep.out;
}

TEST(Cli, ReportRendersASavedResultAsOneSelfContainedPage) {
  fs::path dir = fs::path(testing::TempDir()) / ("waitroom_html_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::path json = dir / "r.json", html = dir / "r.html";
  ASSERT_EQ(run("run " + scenario("clinic.json") + " --out " + json.string()).code, 0);
  auto r = run("report " + json.string());  // default: r.html beside r.json
  ASSERT_EQ(r.code, 0) << r.err;
  std::string page = slurp(html);
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(page.find("default-src 'none'"), std::string::npos);  // no request leaves the page
  EXPECT_EQ(page.find(" src="), std::string::npos);
  EXPECT_EQ(page.find("<link"), std::string::npos);
  EXPECT_NE(page.find("\"kind\":\"run\""), std::string::npos);
  EXPECT_NE(page.find("online-clinic"), std::string::npos);
  auto direct = run("run " + scenario("clinic.json") + " --html " + (dir / "d.html").string());
  ASSERT_EQ(direct.code, 0) << direct.err;
  // The same result gives the same page, but for the source it names.
  std::string same = page, from = "\"source\":\"" + json.string() + "\"";
  ASSERT_NE(same.find(from), std::string::npos);
  same.replace(same.find(from), from.size(), "\"source\":\"online-clinic\"");
  EXPECT_EQ(slurp(dir / "d.html"), same);
  auto bad = run("report " + scenario("clinic.json"));
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("expected the JSON result of waitroom run"), std::string::npos) << bad.err;
  EXPECT_FALSE(fs::exists(scenario("clinic.html")));
}

// plan over the release rate in users per second: the clinic's arrivals are 25 users/s, so a
// release of 24/s cannot keep up (the queue grows for the hour) and 36/s can.
TEST(Cli, PlanSearchesTheReleaseRateInUsersPerSecond) {
  const auto r = waitroom::testing_support::run_cli(
      "plan_rate", "plan " + waitroom::testing_support::scenario_path("clinic.json") +
                       " --unset /release/batch --set /release/rate_per_s=30"
                       " --knob /release/rate_per_s --range 24:36:12 --set /sla/replications=2"
                       " --quiet --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["points"].size(), 2u) << r.out;
  EXPECT_EQ(j["points"][0]["values"]["/release/rate_per_s"], 24.0);
  EXPECT_FALSE(j["points"][0]["sla_holds"].get<bool>());
  EXPECT_EQ(j["points"][1]["values"]["/release/rate_per_s"], 36.0);
  EXPECT_TRUE(j["points"][1]["sla_holds"].get<bool>());
}

// --scale-arrivals on the clinic (25 users/s for an hour, 1,500 waiting at opening, 20% VIP),
// against hand computations: x2 doubles the rate and the backlog; vip=3 makes the VIPs' rate
// 3 x 5 = 15/s beside the normal 20/s, so 35/s in all, VIP share 15/35, backlog 1500 x 1.4.
TEST(Cli, ScaleArrivalsMultipliesTheRatesAndOneClassMovesItsShare) {
  const std::string clinic = waitroom::testing_support::scenario_path("clinic.json");
  auto validate = [&](const std::string& scale) {
    const auto r = waitroom::testing_support::run_cli("scale", "validate " + clinic + scale);
    EXPECT_EQ(r.code, 0) << r.err;
    return nlohmann::json::parse(r.out);
  };
  auto j = validate(" --scale-arrivals 2");
  EXPECT_DOUBLE_EQ(j["arrivals"]["segments"][0]["rate_per_s"].get<double>(), 50);
  EXPECT_EQ(j["arrivals"]["backlog_users"], 3000);
  j = validate(" --scale-arrivals vip=3");
  EXPECT_DOUBLE_EQ(j["arrivals"]["segments"][0]["rate_per_s"].get<double>(), 35);
  EXPECT_NEAR(j["classes"][0]["share"].get<double>(), 15.0 / 35.0, 1e-12);
  EXPECT_NEAR(j["classes"][1]["share"].get<double>(), 20.0 / 35.0, 1e-12);
  EXPECT_EQ(j["arrivals"]["backlog_users"], 2100);
  j = validate(" --scale-arrivals 2 --scale-arrivals vip=3");  // in order: x2, then vip x3
  EXPECT_DOUBLE_EQ(j["arrivals"]["segments"][0]["rate_per_s"].get<double>(), 70);

  const auto bad =
      waitroom::testing_support::run_cli("scale", "run " + clinic + " --scale-arrivals gold=2");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("--scale-arrivals gold=2: expected a class of"), std::string::npos)
      << bad.err;
  const auto zero =
      waitroom::testing_support::run_cli("scale", "run " + clinic + " --scale-arrivals 0");
  EXPECT_EQ(zero.code, 2);
  EXPECT_NE(zero.err.find("expected a factor above 0"), std::string::npos) << zero.err;
}
