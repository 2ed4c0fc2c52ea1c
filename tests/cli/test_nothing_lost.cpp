// The program as a user runs it, where a slip would lose or misread data: an output onto an
// input or onto another output, runs that would take hours, series cut at the sample cap,
// grid values blamed on the scenario, settings that contradict each other, names that
// rewrite the terminal, and counts read as something else.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <sys/stat.h>
#include <unistd.h>

#include "models/planning/grid.hpp"
#include "sim/input_error.hpp"
#include "support/cli_run.hpp"

namespace fs = std::filesystem;
using waitroom::testing_support::cli_outcome;
using waitroom::testing_support::process_temp_dir;
using waitroom::testing_support::scenario_path;
using waitroom::testing_support::slurp;

namespace {

cli_outcome run(const std::string& args) {
  return waitroom::testing_support::run_cli("lost", args);
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A folder of the test's own holding a copy of the clinic scenario as s.json.
fs::path folder_with_scenario(const std::string& tag) {
  const fs::path dir = process_temp_dir("lost_" + tag);
  fs::copy_file(scenario_path("clinic.json"), dir / "s.json", fs::copy_options::overwrite_existing);
  return dir;
}

// A small scenario (two classes, a short Poisson stream) with `extra` spliced into its top
// level, written to dir/name.
fs::path small_scenario(
    const fs::path& dir, const std::string& name, const std::string& extra,
    const std::string& classes =
        R"([{"name": "vip", "share": 0.2}, {"name": "normal", "share": 0.8}])") {
  const fs::path p = dir / name;
  std::ofstream(p) << R"({"name": "small", "classes": )" << classes
                   << R"(, "arrivals": {"process": "poisson", "rate_per_s": 5},
      "release": {"mode": "tick", "interval_ms": 200, "batch": 2}, "run": {"horizon_s": 20})"
                   << extra << "}";
  return p;
}

}  // namespace

// --- Two paths that are one file ---------------------------------------------------------

TEST(NothingLost, AnOutputOntoTheScenarioIsRefusedBeforeRunning) {
  const fs::path dir = folder_with_scenario("onto_input");
  const std::string before = slurp(dir / "s.json");
  const auto r = run("run " + (dir / "s.json").string() + " --out " + (dir / "s.json").string());
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(has(r.err, "--out")) << r.err;
  EXPECT_TRUE(has(r.err, "the same file as the scenario file")) << r.err;
  EXPECT_EQ(slurp(dir / "s.json"), before);
}

TEST(NothingLost, TwoOutputsOntoOneFileAreRefused) {
  const fs::path dir = folder_with_scenario("two_outputs");
  const std::string s = (dir / "s.json").string(), x = (dir / "x").string();
  for (const std::string& args :
       {"run " + s + " --html " + x + " --out " + x, "run " + s + " --trace " + x + " --out " + x,
        "run " + s + " --series " + x + " --out " + x,
        "check " + s + " --junit " + x + " --out " + x,
        "sweep " + s + " --vary /release/batch=8:9:1 --replications 2 --out " + x + " --csv " +
            x}) {
    const auto r = run(args);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.err;
    EXPECT_TRUE(has(r.err, "the same file as --")) << args << "\n" << r.err;
    EXPECT_FALSE(fs::exists(x)) << args;  // refused before anything was written
  }
  // check --junit onto the scenario it checks.
  const std::string before = slurp(s);
  const auto r = run("check " + s + " --junit " + s);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(slurp(s), before);
}

TEST(NothingLost, LinksToTheInputAreTheInput) {
  const fs::path dir = folder_with_scenario("links");
  const std::string s = (dir / "s.json").string(), before = slurp(s);
  fs::create_hard_link(dir / "s.json", dir / "hard.json");
  fs::create_symlink("s.json", dir / "soft.json");
  for (const char* out : {"hard.json", "soft.json"}) {
    const auto r = run("run " + s + " --out " + (dir / out).string());
    EXPECT_EQ(r.code, 2) << out << "\n" << r.err;
    EXPECT_EQ(slurp(s), before) << out;
  }
  // A symbolic link that names the input through another folder.
  fs::create_directories(dir / "sub");
  fs::create_symlink("../s.json", dir / "sub" / "up.json");
  const auto r = run("run " + (dir / "sub" / "up.json").string() + " --out " + s);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(slurp(s), before);
}

TEST(NothingLost, DevicesMayBeNamedTwice) {
  const fs::path dir = folder_with_scenario("devices");
  const auto r =
      run("run " + (dir / "s.json").string() + " --out /dev/null --series /dev/null --format json");
  EXPECT_EQ(r.code, 0) << r.err;
}

// docs/cli.md: a symbolic link is followed and the link stays, a dangling one too.
TEST(NothingLost, ADanglingLinkAsOutputKeepsTheLink) {
  const fs::path dir = folder_with_scenario("dangling");
  fs::create_directories(dir / "results");
  fs::create_symlink("results/target.json", dir / "link.json");
  const auto r = run("run " + (dir / "s.json").string() + " --out " + (dir / "link.json").string());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(dir / "link.json")));
  ASSERT_TRUE(fs::is_regular_file(dir / "results" / "target.json"));
  EXPECT_TRUE(has(slurp(dir / "results" / "target.json"), "\"schema_version\""));
}

TEST(NothingLost, AnOutputOntoTheArrivalsTraceIsRefused) {
  const fs::path dir = process_temp_dir("lost_trace");
  std::ofstream(dir / "arrivals.csv") << "timestamp_s,class\n0,vip\n0.5,normal\n1,normal\n";
  std::ofstream(dir / "t.json") << R"({"name": "t", "classes": [{"name": "vip", "share": 0.5},
      {"name": "normal", "share": 0.5}], "arrivals": {"process": "trace",
      "trace_file": "arrivals.csv"}, "release": {"mode": "tick", "interval_ms": 1000,
      "batch": 1}})";
  const std::string before = slurp(dir / "arrivals.csv");
  const auto r =
      run("run " + (dir / "t.json").string() + " --out " + (dir / "arrivals.csv").string());
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(has(r.err, "trace_file")) << r.err;
  EXPECT_EQ(slurp(dir / "arrivals.csv"), before);
}

TEST(NothingLost, ReportAndImportNeverWriteOntoTheirInputs) {
  const fs::path dir = folder_with_scenario("report_import");
  const std::string result = (dir / "r.json").string();
  ASSERT_EQ(run("run " + (dir / "s.json").string() + " --out " + result).code, 0);
  const std::string before = slurp(result);
  const auto report = run("report " + result + " --out " + result);
  EXPECT_EQ(report.code, 2) << report.err;
  EXPECT_TRUE(has(report.err, "the same file as the result file")) << report.err;
  EXPECT_EQ(slurp(result), before);
  const std::string cf = std::string(WAITROOM_SOURCE_DIR) + "/scenarios/cloudflare/";
  for (const char* f : {"room.json", "arrivals.json", "event.json"})
    fs::copy_file(cf + f, dir / f, fs::copy_options::overwrite_existing);
  for (const char* f : {"room.json", "arrivals.json", "event.json"}) {
    const std::string room_before = slurp(dir / f);
    const auto r = run("import cloudflare " + (dir / "room.json").string() + " --arrivals " +
                       (dir / "arrivals.json").string() + " --event " +
                       (dir / "event.json").string() + " --out " + (dir / f).string());
    EXPECT_EQ(r.code, 2) << f << "\n" << r.err;
    EXPECT_EQ(slurp(dir / f), room_before) << f;
  }
}

// --- Runaway runs -----------------------------------------------------------------------------

TEST(NothingLost, ARunOfHoursIsRefusedUpFrontUnlessAllowed) {
  const auto r = run("run " + scenario_path("clinic.json") + " --set /release/interval_ms=1e-6");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(has(r.err, "--max-events")) << r.err;
  EXPECT_TRUE(has(r.err, "events")) << r.err;
  // Allowed further, the estimate passes and the scenario's own bound stops the run.
  const auto allowed = run("run " + scenario_path("clinic.json") +
                           " --set /release/interval_ms=1e-6 --set /run/max_events=200000 "
                           "--format json");
  EXPECT_EQ(allowed.code, 0) << allowed.err;
  const auto bad = run("run " + scenario_path("clinic.json") + " --max-events -3");
  EXPECT_EQ(bad.code, 2);
  EXPECT_TRUE(has(bad.err, "--max-events: expected a whole number")) << bad.err;
}

TEST(NothingLost, ASeriesTheCapWouldCutIsRefused) {
  const auto r = run("run " + scenario_path("clinic.json") + " --set /run/sample_interval_s=1e-6");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(has(r.err, "/run/sample_interval_s")) << r.err;
  EXPECT_TRUE(has(r.err, "10000000 queue-length samples")) << r.err;
}

TEST(NothingLost, AxesTakeAtMostTenThousandValues) {
  using waitroom::models::planning::parse_range;
  EXPECT_EQ(parse_range("1:10000:1", "--range").size(), 10000u);
  EXPECT_THROW(parse_range("1:10001:1", "--range"), waitroom::sim::input_error);
  const auto plan = run("plan " + scenario_path("clinic_ratio_plan.json") +
                        " --knob /release/batch --range 1:10001:1");
  EXPECT_EQ(plan.code, 2) << plan.err;
  EXPECT_TRUE(has(plan.err, "at most 10000 values")) << plan.err;
  const auto sweep =
      run("sweep " + scenario_path("clinic.json") + " --vary /release/batch=1:10001:1");
  EXPECT_EQ(sweep.code, 2) << sweep.err;
}

TEST(NothingLost, LongWorkWritesAHeartbeatToALog) {
  // stderr is a file here: a whole line every WAITROOM_PROGRESS_S seconds, never a redraw.
  const auto r = waitroom::testing_support::run_cli(
      "lost", "run " + scenario_path("mmc_validation.json") +
                  " --set /run/horizon_s=20000 --replications 40 --threads 1");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(has(r.err, "\r")) << r.err;
  const std::string cmd = "WAITROOM_PROGRESS_S=0.05 " WAITROOM_BINARY " run " +
                          scenario_path("mmc_validation.json") +
                          " --set /run/horizon_s=20000 --replications 40 --threads 1 "
                          ">/dev/null 2>" +
                          (process_temp_dir("lost_beat") / "err.txt").string();
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  const std::string err = slurp(process_temp_dir("lost_beat") / "err.txt");
  EXPECT_TRUE(has(err, "waitroom: [")) << err;
  EXPECT_TRUE(has(err, "% after ")) << err;
  EXPECT_FALSE(has(err, "\r")) << err;
  // --quiet: nothing.
  const std::string quiet = "WAITROOM_PROGRESS_S=0.05 " WAITROOM_BINARY " run " +
                            scenario_path("mmc_validation.json") +
                            " --set /run/horizon_s=20000 --replications 40 --threads 1 --quiet "
                            ">/dev/null 2>" +
                            (process_temp_dir("lost_beat") / "quiet.txt").string();
  ASSERT_EQ(std::system(quiet.c_str()), 0);
  EXPECT_FALSE(has(slurp(process_temp_dir("lost_beat") / "quiet.txt"), "waitroom: ["));
}

// --- Grid values name their flag --------------------------------------------------------------

TEST(NothingLost, AGridValueTheScenarioRefusesNamesItsFlagAndPoint) {
  const auto plan = run("plan " + scenario_path("clinic_ratio_plan.json") +
                        " --knob /release/batch --range 4:8:0.5");
  EXPECT_EQ(plan.code, 2) << plan.err;
  EXPECT_TRUE(has(plan.err, "waitroom: --range 4:8:0.5 at grid point 2 of 9 (/release/batch=4.5)"))
      << plan.err;
  const auto sweep =
      run("sweep " + scenario_path("clinic.json") + " --vary /release/batch=4:8:0.5");
  EXPECT_EQ(sweep.code, 2) << sweep.err;
  EXPECT_TRUE(has(sweep.err, "waitroom: --vary /release/batch=4:8:0.5 at grid point 2 of 9"))
      << sweep.err;
}

TEST(NothingLost, AnIntegerKnobGetsAWholeDefaultStep) {
  const auto r = run("sweep " + scenario_path("mmc_validation.json") +
                     " --set /run/horizon_s=50 --vary /release/slots=2:6 --replications 2 "
                     "--format json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["points"].size(), 5u) << r.out;  // 2, 3, 4, 5, 6: not 2, 2.2, 2.4, ...
  EXPECT_EQ(j["points"][1]["values"]["/release/slots"], 3);
}

// --- Contradictions ----------------------------------------------------------------------------

TEST(NothingLost, ContradictionsAreRefused) {
  const fs::path dir = process_temp_dir("lost_contra");
  struct refused {
    std::string pointer, value, where;
  };
  for (const auto& [pointer, value, where] : std::vector<refused>{
           {"/backend", R"({"workers": 4, "service_s": {"dist": "exponential", "mean": 0.1}})", ""},
           {"/release/controller", R"({"kind": "window", "floor": 10, "ceiling": 2})",
            "/release/controller/floor: expected a floor at most the ceiling (2)"},
           {"/sla", R"({"targets": [{"metric": "abandoned_share", "max": 5}]})",
            "/sla/targets/0/max"}}) {
    // Each setting in turn on top of the ones before (the controller needs the backend).
    const fs::path p = dir / "c.json";
    if (!fs::exists(p)) small_scenario(dir, "c.json", "");
    nlohmann::json j = nlohmann::json::parse(slurp(p));
    j[nlohmann::json::json_pointer(pointer)] = nlohmann::json::parse(value);
    std::ofstream(p) << j.dump();
    const auto r = run("validate " + p.string());
    if (where.empty()) {
      EXPECT_EQ(r.code, 0) << r.err;
      continue;
    }
    EXPECT_EQ(r.code, 2) << value << "\n" << r.err;
    EXPECT_TRUE(has(r.err, where)) << r.err;
    const nlohmann::json::json_pointer ptr(pointer);  // undone for the next
    j[ptr.parent_pointer()].erase(ptr.back());
    std::ofstream(p) << j.dump();
  }
  const auto keep = run("run " + scenario_path("clinic.json") + " --redis-keep");
  EXPECT_EQ(keep.code, 2) << keep.err;
  EXPECT_TRUE(has(keep.err, "--redis-keep: expected --redis URL")) << keep.err;
  const auto tiny = run("validate " + scenario_path("mmc_validation.json") +
                        " --set /arrivals/rate_per_s=1e-400");
  EXPECT_EQ(tiny.code, 2) << tiny.err;
  EXPECT_TRUE(has(tiny.err, "'1e-400', which would read as 0")) << tiny.err;
  std::ofstream(dir / "under.json") << R"({"name": "u", "classes": [{"name": "all"}],
      "arrivals": {"process": "poisson", "rate_per_s": 1e-400}, "run": {"horizon_s": 10}})";
  const auto file = run("validate " + (dir / "under.json").string());
  EXPECT_EQ(file.code, 2) << file.err;
  EXPECT_TRUE(has(file.err, "under.json: line 2")) << file.err;
}

TEST(NothingLost, SettingsAUserMayMeanAreWarnedOf) {
  const fs::path dir = process_temp_dir("lost_warn");
  const auto zero = run("run " + small_scenario(dir, "zero.json", "").string() +
                        " --set '/arrivals={\"process\": \"piecewise\", \"segments\": "
                        "[{\"duration_s\": 10, \"rate_per_s\": 0}]}'");
  EXPECT_EQ(zero.code, 0) << zero.err;
  EXPECT_TRUE(has(zero.err, "warning: ")) << zero.err;
  EXPECT_TRUE(has(zero.err, "/arrivals: no user arrives")) << zero.err;
  const auto share = run("run " + small_scenario(dir, "share.json", "").string() +
                         " --set /classes/0/share=0 --set /classes/1/share=1");
  EXPECT_EQ(share.code, 0) << share.err;
  EXPECT_TRUE(has(share.err, "/classes/0/share: class vip has share 0")) << share.err;
  const auto level = run("run " + small_scenario(dir, "level.json", "").string() +
                         " --set /classes/0/offset_ms=10000 --set '/queue={\"policy\":\"level\"}'");
  EXPECT_EQ(level.code, 0) << level.err;
  EXPECT_TRUE(has(level.err, "/classes/0/offset_ms: ignored under /queue/policy level"))
      << level.err;
  // Said once, not once per grid point.
  const auto sweep = run("sweep " + small_scenario(dir, "sweep.json", "").string() +
                         " --set /classes/0/share=0 --set /classes/1/share=1 "
                         "--vary /release/batch=1:3:1 --replications 2 --format json");
  EXPECT_EQ(sweep.code, 0) << sweep.err;
  EXPECT_EQ(sweep.err.find("share 0"), sweep.err.rfind("share 0")) << sweep.err;
}

// --- Names --------------------------------------------------------------------------------------

TEST(NothingLost, NamesThatWouldRewriteTheTerminalAreRefused) {
  const fs::path dir = process_temp_dir("lost_names");
  struct bad_name {
    std::string pointer, json_value, shown;
  };
  for (const auto& [pointer, value, shown] : std::vector<bad_name>{
           {"/name", R"("two\nlines")", "U+000A"},
           {"/name", R"("bell\u0007")", "U+0007"},
           {"/name", R"("")", "an empty name"},
           {"/name", R"("   ")", "a blank name"},
           {"/classes/1/name", R"("abc\u202edef")", "U+202E"},
           {"/classes/1/name", R"("x\u0085")", "U+0085"},
       }) {
    const fs::path p = small_scenario(dir, "n.json", "");
    nlohmann::json j = nlohmann::json::parse(slurp(p));
    j[nlohmann::json::json_pointer(pointer)] = nlohmann::json::parse(value);
    std::ofstream(p) << j.dump();
    const auto r = run("validate " + p.string());
    EXPECT_EQ(r.code, 2) << value << "\n" << r.err;
    EXPECT_TRUE(has(r.err, pointer)) << r.err;
    EXPECT_TRUE(has(r.err, shown)) << r.err;
    // The message itself carries no raw control or override character.
    for (char c : r.err) EXPECT_FALSE(static_cast<unsigned char>(c) < 0x20 && c != '\n') << r.err;
    EXPECT_FALSE(has(r.err, "\u202e")) << r.err;
  }
  const auto variant = run("compare " + scenario_path("mmc_validation.json") +
                           " --set /run/horizon_s=50 --replications 2 --variant \"$(printf "
                           "'x\\033'):/release/slots=4\"");
  EXPECT_EQ(variant.code, 2) << variant.err;
  EXPECT_TRUE(has(variant.err, "U+001B")) << variant.err;
}

// --- Messages -----------------------------------------------------------------------------------

TEST(NothingLost, ANegativeCountIsNamedAsWritten) {
  const auto r = run("run " + scenario_path("clinic.json") + " --replications -1");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(has(r.err, "--replications: expected a whole number from 1 to 100000, found '-1'"))
      << r.err;
  EXPECT_FALSE(has(r.err, "4294967295")) << r.err;
}

// --- Replications' memory ---------------------------------------------------------------------

namespace {
// The child's peak resident memory in KB, from GNU time's "%M".
long peak_kb(const std::string& args) {
  const fs::path dir = process_temp_dir("lost_rss");
  const fs::path rss = dir / "rss.txt";
  const std::string cmd = "/usr/bin/time -f %M -o " + rss.string() + " " WAITROOM_BINARY " " +
                          args + " >/dev/null 2>&1";
  if (std::system(cmd.c_str()) != 0) return -1;
  return std::stol(slurp(rss));
}
}  // namespace

// Each replication is reduced as it finishes: 10,000 replications of a small scenario need
// little more memory than 10 (what each keeps is a 40-byte row). Kept whole, each held a few
// KB of summary, 40+ MB here.
TEST(NothingLost, ReplicationsDoNotGrowMemoryWithTheirNumber) {
  if (std::string(WAITROOM_SANITIZER) != "") GTEST_SKIP() << "RSS under a sanitizer";
  if (!fs::exists("/usr/bin/time")) GTEST_SKIP() << "GNU time is not installed";
  const std::string base = "run " + scenario_path("mmc_validation.json") +
                           " --set /run/horizon_s=50 --threads 2 --quiet --replications ";
  const long ten = peak_kb(base + "10"), many = peak_kb(base + "10000");
  ASSERT_GT(ten, 0);
  ASSERT_GT(many, 0);
  EXPECT_LT(many, 2 * ten) << "10 replications: " << ten << " KB, 10000: " << many << " KB";
}

// Each input file is called what it is, not "a scenario file".
TEST(NothingLost, ImportNamesEachKindOfFile) {
  const std::string cf = std::string(WAITROOM_SOURCE_DIR) + "/scenarios/cloudflare/";
  const auto event = run("import cloudflare " + cf + "room.json --arrivals " + cf +
                         "arrivals.json --event /nonexistent/e.json");
  EXPECT_EQ(event.code, 2);
  EXPECT_TRUE(has(event.err, "/nonexistent/e.json: expected a readable Cloudflare event file"))
      << event.err;
  const auto arrivals = run("import cloudflare " + cf + "room.json --arrivals /nonexistent/a.json");
  EXPECT_EQ(arrivals.code, 2);
  EXPECT_TRUE(has(arrivals.err, "expected a readable arrivals file")) << arrivals.err;
  EXPECT_FALSE(has(arrivals.err, "scenario file")) << arrivals.err;
}
