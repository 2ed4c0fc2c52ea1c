// Input that must not hurt: failed writes exit 4 and leave
// nothing behind, durations past the clock, crashes on deep or damaged input, and every
// bad input or flag exits 2 naming it instead of an internal error or a silent change.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <thread>

#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

extern char** environ;

#include "support/cli_run.hpp"

namespace fs = std::filesystem;

namespace {

// Whether the program under test was built with the Redis backend (tests/CMakeLists.txt).
constexpr bool with_redis_backend = WAITROOM_WITH_REDIS_BUILD;

using outcome = waitroom::testing_support::cli_outcome;
using waitroom::testing_support::slurp;

fs::path temp_dir(const std::string& name) {
  fs::path dir =
      fs::path(testing::TempDir()) / ("waitroom_inputs_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// The program with a time limit; stdout to `stdout_to` when given.
outcome run(const std::string& args, const std::string& stdout_to = {}) {
  return waitroom::testing_support::run_cli("inputs", args, stdout_to);
}

std::string scenario(const std::string& name) {
  return waitroom::testing_support::scenario_path(name);
}

std::string write(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
  return p.string();
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// No FILE.tmp.PID left in `dir`.
std::vector<std::string> temp_files(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (has(e.path().filename().string(), ".tmp.")) out.push_back(e.path().string());
  return out;
}

// A small scenario as JSON text, with `extra` spliced into its top-level object.
std::string tiny(const std::string& extra = {}) {
  return R"({"name": "tiny", "classes": [{"name": "vip", "share": 0.5}, {"name": "normal", "share": 0.5}],
    "arrivals": {"process": "piecewise", "segments": [{"duration_s": 10, "rate_per_s": 5}]},
    "release": {"mode": "tick", "interval_ms": 1000, "batch": 5})" +
         extra + "}";
}

}  // namespace

// --- item 2: failed writes --------------------------------------------------------------

TEST(BadInput, AnOutputThatCannotBeWrittenExitsFourAndSaysWhy) {
  fs::path dir = temp_dir("writes");
  const std::string clinic = scenario("clinic.json") + " --set /run/horizon_s=200";
  for (const std::string& flags :
       {"--out " + dir.string(), std::string("--out ''"), "--html " + dir.string(),
        "--out " + (dir / "no" / "such" / "dir.json").string()}) {
    auto r = run("run " + clinic + " " + flags);
    EXPECT_EQ(r.code, 4) << flags << "\n" << r.err;
    EXPECT_FALSE(has(r.err, "wrote")) << flags << "\n" << r.err;
    EXPECT_TRUE(has(r.err, "could not write")) << flags << "\n" << r.err;
  }
  auto d = run("run " + clinic + " --out " + dir.string());
  EXPECT_TRUE(has(d.err, "is a directory")) << d.err;
  auto junit = run("check " + scenario("clinic.json") + " --junit " + dir.string());
  EXPECT_EQ(junit.code, 4) << junit.err;
  auto csv = run("sweep " + scenario("clinic.json") +
                 " --vary /release/batch=4:5:1 --replications 2 --set /run/horizon_s=100 --csv " +
                 dir.string());
  EXPECT_EQ(csv.code, 4) << csv.err;
  auto trace = run("run " + clinic + " --trace " + dir.string());
  EXPECT_EQ(trace.code, 4) << trace.err;
  EXPECT_TRUE(temp_files(dir).empty());
  EXPECT_TRUE(fs::is_directory(dir));
  // Standard output on a full device: a failed write, not a success.
  if (fs::exists("/dev/full")) {
    auto full = run("run " + clinic + " --format json", "/dev/full");
    EXPECT_EQ(full.code, 4) << full.err;
  }
}

TEST(BadInput, DevicesFifosAndSymlinksAreWrittenThroughNotReplaced) {
  fs::path dir = temp_dir("special");
  const std::string clinic = scenario("clinic.json") + " --set /run/horizon_s=200";
  // A symbolic link: its target gets the result, the link stays a link.
  const fs::path target = dir / "target.json", link = dir / "link.json";
  write(target, "old");
  fs::create_symlink(target, link);
  auto r = run("run " + clinic + " --out " + link.string());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_TRUE(nlohmann::json::parse(slurp(target)).contains("classes"));
  // A FIFO: the reader gets the result, the FIFO stays a FIFO.
  const fs::path fifo = dir / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const fs::path got = dir / "got.json";
  std::string cmd = "cat " + fifo.string() + " > " + got.string() + " & " +
                    std::string(WAITROOM_BINARY) + " run " + clinic + " --out " + fifo.string() +
                    " 2>/dev/null; wait";
  ASSERT_EQ(std::system(("timeout 60 sh -c '" + cmd + "'").c_str()), 0);
  EXPECT_TRUE(fs::is_fifo(fifo));
  EXPECT_TRUE(nlohmann::json::parse(slurp(got)).contains("classes"));
  // /dev/null stays the device (the old rename replaced it with a regular file as root).
  auto null = run("run " + clinic + " --out /dev/null");
  EXPECT_EQ(null.code, 0) << null.err;
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  EXPECT_TRUE(temp_files(dir).empty());
}

TEST(BadInput, InterruptingATracedRunLeavesNoTemporaryFile) {
  fs::path dir = temp_dir("sigint");
  const std::string trace = (dir / "trace.jsonl").string();
  // Long enough to be interrupted mid-run: a big flash crowd, traced.
  std::vector<std::string> argv_s{WAITROOM_BINARY,
                                  "run",
                                  scenario("clinic.json"),
                                  "--set",
                                  "/arrivals/segments=[{\"duration_s\":3000,\"rate_per_s\":3000}]",
                                  "--set",
                                  "/release/batch=10000",
                                  "--trace",
                                  trace,
                                  "--out",
                                  (dir / "result.json").string()};
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  ASSERT_EQ(::posix_spawn(&pid, WAITROOM_BINARY, nullptr, nullptr, argv.data(), environ), 0);
  // Wait until the temporary trace file exists, then interrupt.
  const auto start = std::chrono::steady_clock::now();
  bool seen = false;
  while (std::chrono::steady_clock::now() - start < std::chrono::seconds(30)) {
    if (!temp_files(dir).empty()) {
      seen = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ::kill(pid, SIGINT);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(seen) << "the traced run never opened its temporary file";
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT) << status;
  EXPECT_TRUE(temp_files(dir).empty()) << temp_files(dir).front();
  EXPECT_FALSE(fs::exists(trace));
}

// --- item 3: the clock's range ------------------------------------------------------------

TEST(BadInput, DurationsPastTheClockAreBadInputNotNegativeTimes) {
  // 100-year ticks: the third is past the int64 nanosecond clock.
  // (Samples every 10^6 s: at the default 1 s a run of centuries records 10^7 samples first,
  // seconds of work unrelated to the clock.)
  auto tick = run("run " + scenario("clinic.json") +
                  " --set /release/interval_ms=3153600000000 --set /run/sample_interval_s=1e6");
  EXPECT_EQ(tick.code, 2) << tick.out << tick.err;
  EXPECT_TRUE(has(tick.err, "292 years")) << tick.err;
  // Certain at load (clinic's 1,500 backlog users cannot give up): refused naming the key.
  EXPECT_TRUE(has(tick.err,
                  "/release/interval_ms: expected an interval that releases the "
                  "run's 1500 waiting users"))
      << tick.err;
  EXPECT_FALSE(has(tick.out, "-")) << tick.out;
  // 100-year sessions, one slot, ten users.
  fs::path dir = temp_dir("clock");
  const std::string s = write(dir / "s.json",
                              R"({"name": "long", "classes": [{"name": "all"}],
          "arrivals": {"process": "piecewise", "segments": [{"duration_s": 1, "rate_per_s": 10}]},
          "release": {"mode": "concurrency", "slots": 1,
                      "session_s": {"dist": "deterministic", "value": 3153600000}}})");
  auto session = run("run " + s + " --set /run/sample_interval_s=1e6");
  EXPECT_EQ(session.code, 2) << session.out << session.err;
  EXPECT_TRUE(has(session.err, "simulated time")) << session.err;
  // The segments' durations add up past 100 years: refused at load, naming them.
  auto segs = run("validate " + scenario("clinic.json") +
                  " --set '/arrivals/segments=[{\"duration_s\":3e9,\"rate_per_s\":0},"
                  "{\"duration_s\":3e9,\"rate_per_s\":0.000001}]'");
  EXPECT_EQ(segs.code, 2) << segs.err;
  EXPECT_TRUE(has(segs.err, "/arrivals/segments")) << segs.err;
}

TEST(BadInput, AControllerLookingEveryZeroNanosecondsIsBadInputNotALivelock) {
  // 1e-12 s is above 0 but 0 ns on the clock: the window controller's look rescheduled itself
  // at t = 0 until the livelock guard stopped it with an internal error (exit 3, ~30 s).
  auto r = run("run " + scenario("clinic_degrading_backend.json") +
               " --set /release/controller/kind=window --set /release/controller/every_s=1e-12");
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_TRUE(has(r.err,
                  "clinic_degrading_backend.json: /release/controller/every_s: expected a "
                  "duration of at least 1 ns (the clock counts whole nanoseconds), found a "
                  "number (1e-12): 0.001 ns, 0 on the clock"))
      << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

// --- item 5: crashes ----------------------------------------------------------------------

TEST(BadInput, DeeplyNestedJsonIsRefusedNotAStackOverflow) {
  fs::path dir = temp_dir("deep");
  const std::string deep = std::string(70000, '[') + std::string(70000, ']');
  auto file = run("run " + write(dir / "deep.json", deep));
  EXPECT_EQ(file.code, 2) << file.err.substr(0, 500);
  EXPECT_TRUE(has(file.err, "nested at most")) << file.err.substr(0, 500);
  auto in_object = run("run " + write(dir / "deep2.json", "{\"name\": " + deep + "}"));
  EXPECT_EQ(in_object.code, 2);
  auto set = run("validate " + scenario("clinic.json") +
                 " --set /description=" + std::string(5000, '[') + std::string(5000, ']'));
  EXPECT_EQ(set.code, 2) << set.err.substr(0, 500);
  auto report = run("report " + (dir / "deep.json").string());
  EXPECT_EQ(report.code, 2);
}

TEST(BadInput, DamagedShardsAreRefusedNamingTheFile) {
  fs::path dir = temp_dir("damaged");
  const std::string args = "sweep " + scenario("clinic.json") +
                           " --set /run/horizon_s=100 --vary /release/batch=4:5:1 "
                           "--replications 2";
  std::vector<std::string> files;
  for (int k = 0; k < 2; ++k) {
    files.push_back((dir / ("s" + std::to_string(k) + ".json")).string());
    ASSERT_EQ(run(args + " --shard " + std::to_string(k) + "/2 --out " + files.back()).code, 0);
  }
  auto full = run(args + " --format json");
  ASSERT_EQ(run("merge " + files[0] + " " + files[1] + " --format json").out, full.out);
  const auto original = nlohmann::json::parse(slurp(files[0]));
  auto damaged = [&](const std::function<void(nlohmann::json&)>& edit) {
    auto j = original;
    edit(j);
    const std::string bad = write(dir / "bad.json", j.dump());
    auto r = run("merge " + bad + " " + files[1]);
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_TRUE(has(r.err, bad)) << r.err;
  };
  damaged([](auto& j) { j["units"][0]["point"] = 99; });                       // out of range
  damaged([](auto& j) { j["units"][0]["point"] = -1; });                       // negative
  damaged([](auto& j) { j["units"][0]["point"] = 1e300; });                    // not an index
  damaged([](auto& j) { j["units"][0].erase("point"); });                      // missing
  damaged([](auto& j) { j["units"][0]["table"] = nlohmann::json::array(); });  // empty
  damaged([](auto& j) { j["units"][0]["table"][1].erase(0); });                // ragged
  damaged([](auto& j) { j["units"] = nlohmann::json::array(); });              // no units
  damaged([](auto& j) { j.erase("units"); });
  damaged([](auto& j) { j["sources"] = nlohmann::json::object(); });  // other content
  damaged([](auto& j) { j["args"]["replications"] = 0; });
}

// fuzz_shard found it (ASan: heap-use-after-free in merge): a sweep's or plan's shards whose
// /args lack a key, or a plan's without /scenario_sha256, were read through json's const
// operator[], which is undefined for a missing key (garbage, a crash, or a wrong message).
// Every shard edited alike, so they still agree with each other and reach the merge.
TEST(BadInput, ShardsMissingAnArgumentOrHashAreRefusedNamingIt) {
  fs::path dir = temp_dir("missing");
  const std::string sweep = "sweep " + scenario("clinic.json") +
                            " --set /run/horizon_s=100 --vary /release/batch=4:5:1 "
                            "--replications 2";
  const std::string plan = "plan " + scenario("priority_mm1.json") +
                           " --knob /release/slots --range 1:2:1 --set /run/horizon_s=100 "
                           "--set /sla/replications=2 --quiet";
  auto shards = [&](const std::string& args, const std::string& stem) {
    std::vector<nlohmann::json> out;
    for (int k = 0; k < 2; ++k) {
      const fs::path f = dir / (stem + std::to_string(k) + ".json");
      auto r = run(args + " --shard " + std::to_string(k) + "/2 --out " + f.string());
      EXPECT_EQ(r.code, 0) << r.err;
      out.push_back(nlohmann::json::parse(slurp(f)));
    }
    return out;
  };
  const auto sweeps = shards(sweep, "sweep"), plans = shards(plan, "plan");
  // `says`: what the message must name besides the file.
  auto refused = [&](const std::vector<nlohmann::json>& originals, const std::string& says,
                     const std::function<void(nlohmann::json&)>& edit) {
    std::string files;
    for (std::size_t k = 0; k < originals.size(); ++k) {
      auto j = originals[k];
      edit(j);
      files += ' ';  // not " " + ...: gcc 12's -Wrestrict misfires on it (char* + string&&)
      files += write(dir / ("bad" + std::to_string(k) + ".json"), j.dump());
    }
    auto r = run("merge" + files + " --format json");
    EXPECT_EQ(r.code, 2) << says << ": " << r.err;
    EXPECT_TRUE(has(r.err, (dir / "bad0.json").string())) << r.err;
    EXPECT_TRUE(has(r.err, says)) << says << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out.substr(0, 200);
  };
  // Missing, or of the wrong type: the message names the JSON path in the file.
  for (const char* key : {"replications", "scenario", "sets", "vary", "seed"}) {
    refused(sweeps, std::string(": /args/") + key, [&](auto& j) { j["args"].erase(key); });
    refused(sweeps, std::string(": /args/") + key, [&](auto& j) { j["args"][key] = -1.5; });
  }
  for (const char* key : {"scenario", "sets", "knobs", "ranges", "ties", "seed", "replications"})
    refused(plans, std::string(": /args/") + key, [&](auto& j) { j["args"][key] = {true}; });
  for (const char* key : {"scenario", "sets", "knobs", "ranges", "ties", "seed"})
    refused(plans, std::string(": /args/") + key, [&](auto& j) { j["args"].erase(key); });
  refused(sweeps, ": /args: expected an object", [](auto& j) { j["args"] = 7; });
  refused(plans, "/scenario_sha256", [](auto& j) { j.erase("scenario_sha256"); });
}

// fuzz_shard found it (UBSan: 1.5e+20 is outside the range of unsigned long): a count in a
// shard was read with json's get<unsigned>, which casts a float (undefined past the range)
// and wraps a negative. Every whole number a shard holds must be one, in range.
TEST(BadInput, ShardCountsThatAreNotWholeNumbersAreRefused) {
  fs::path dir = temp_dir("counts");
  const std::string args = "run " + scenario("clinic_ratio.json") +
                           " --set /arrivals/segments/0/duration_s=60 --replications 2";
  std::vector<std::string> files;
  for (int k = 0; k < 2; ++k) {
    files.push_back((dir / ("r" + std::to_string(k) + ".json")).string());
    ASSERT_EQ(run(args + " --shard " + std::to_string(k) + "/2 --out " + files.back()).code, 0);
  }
  ASSERT_EQ(run("merge " + files[0] + " " + files[1] + " --format json").code, 0);
  const auto original = nlohmann::json::parse(slurp(files[0]));
  for (const nlohmann::json& bad_value :
       {nlohmann::json(1.5e20), nlohmann::json(-1), nlohmann::json(2.5), nlohmann::json(-1e300)}) {
    // The message names the file and the value's JSON pointer in it.
    auto edit = [&](const std::string& pointer) {
      auto j = original;
      j[nlohmann::json::json_pointer(pointer)] = bad_value;
      const std::string bad = write(dir / "bad.json", j.dump());
      auto r = run("merge " + bad + " " + files[1] + " --format json");
      EXPECT_EQ(r.code, 2) << bad_value << ": " << r.err;
      EXPECT_TRUE(has(r.err, bad + ": " + pointer + ": expected a whole number from 0 to"))
          << bad_value << ": " << r.err;
    };
    edit("/units/0/waits/0/arrived");
    edit("/units/0/waits/1/wait_ns/count/0");
    edit("/units/0/events");
    edit("/series_bands/sum/0");
    edit("/of");
  }
}

// Every value a run or check shard holds, missing or of the wrong type, is named by the
// file and its JSON pointer (they were named by the file and nlohmann's "key 'arrived' not
// found" or "type must be number, but is string").
TEST(BadInput, DamagedRunAndCheckShardsAreNamedByTheirJsonPointer) {
  fs::path dir = temp_dir("pointer");
  auto shards = [&](const std::string& args, const std::string& stem) {
    std::vector<std::string> files;
    for (int k = 0; k < 2; ++k) {
      files.push_back((dir / (stem + std::to_string(k) + ".json")).string());
      auto r = run(args + " --shard " + std::to_string(k) + "/2 --out " + files.back());
      EXPECT_EQ(r.code, 0) << r.err;
    }
    // 0, or 1 for an SLA the check finds broken: the undamaged shards merge.
    EXPECT_LE(run("merge " + files[0] + " " + files[1] + " --format json").code, 1);
    return files;
  };
  const auto runs = shards("run " + scenario("clinic_ratio.json") +
                               " --set /arrivals/segments/0/duration_s=60 --replications 2",
                           "run");
  const auto checks = shards("check " + scenario("priority_mm1.json") +
                                 " --set /run/horizon_s=100 --set /sla/replications=2",
                             "check");
  // Both shards edited alike (so they still agree with each other and reach the reading);
  // `says`: the message after the first file's name.
  auto refused = [&](const std::vector<std::string>& files, const std::string& says,
                     const std::function<void(nlohmann::json&)>& edit) {
    std::string bad[2];
    for (int k = 0; k < 2; ++k) {
      auto j = nlohmann::json::parse(slurp(files[k]));
      edit(j);
      bad[k] = write(dir / ("bad" + std::to_string(k) + ".json"), j.dump());
    }
    auto r = run("merge " + bad[0] + " " + bad[1] + " --format json");
    EXPECT_EQ(r.code, 2) << says << ": " << r.err;
    EXPECT_TRUE(has(r.err, bad[0] + ": " + says)) << says << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out.substr(0, 200);
  };
  using nlohmann::json;
  refused(runs, "/units/0/waits/1/arrived: expected the value waitroom writes there, found none",
          [](json& j) { j["units"][0]["waits"][1].erase("arrived"); });
  refused(runs, "/units/0/waits/0/wait_s/1: expected a number, found a string",
          [](json& j) { j["units"][0]["waits"][0]["wait_s"][1] = "x"; });
  refused(runs, "/units/0/waits/0/wait_s: expected an array of more than 1 values, found",
          [](json& j) { j["units"][0]["waits"][0]["wait_s"] = json::array({3}); });
  refused(runs, "/units/0/end_time_s: expected a number, found a boolean",
          [](json& j) { j["units"][0]["end_time_s"] = true; });
  refused(runs, "/units/0/waits/2/abandon_ns/lower: expected the value waitroom writes there",
          [](json& j) { j["units"][0]["waits"][2]["abandon_ns"] = json::object(); });
  refused(runs, "/series_bands/t_s/0: expected a number, found null",
          [](json& j) { j["series_bands"]["t_s"][0] = nullptr; });
  refused(runs, "/args/sets: expected an array of strings, found a number",
          [](json& j) { j["args"]["sets"] = 3; });
  refused(runs, "/units/0/table/0/1: expected a number, found an array",
          [](json& j) { j["units"][0]["table"][0][1] = json::array(); });
  refused(runs, "/scenario_sha256: expected a string, found an object",
          [](json& j) { j["scenario_sha256"] = json::object(); });
  refused(checks, "/args/scenarios/0: expected a string, found a number",
          [](json& j) { j["args"]["scenarios"][0] = 1; });
  refused(checks, "/units/0/table: expected the value waitroom writes there, found none",
          [](json& j) { j["units"][0].erase("table"); });
}

TEST(BadInput, ShardsCarryTheirScenarioSoMergeNeedsNoFile) {
  fs::path dir = temp_dir("carry");
  const fs::path sc = dir / "clinic.json";
  fs::copy_file(scenario("clinic_ratio.json"), sc);
  const std::string args = "run " + sc.string() + " --replications 4";
  auto full = run(args + " --format json");
  ASSERT_EQ(full.code, 0) << full.err;
  std::vector<std::string> files;
  for (int k = 0; k < 2; ++k) {
    files.push_back((dir / ("r" + std::to_string(k) + ".json")).string());
    ASSERT_EQ(run(args + " --shard " + std::to_string(k) + "/2 --out " + files.back()).code, 0);
  }
  // A class added to the scenario file after the shards ran, then the file removed: the
  // merge is of what the shards ran, byte for byte.
  auto j = nlohmann::json::parse(slurp(sc));
  j["classes"].push_back({{"name", "late"}, {"share", 0.0}});
  write(sc, j.dump());
  auto edited = run("merge " + files[0] + " " + files[1] + " --format json");
  EXPECT_EQ(edited.code, 0) << edited.err;
  EXPECT_EQ(edited.out, full.out);
  fs::remove(sc);
  auto gone = run("merge " + files[1] + " " + files[0] + " --format json");
  EXPECT_EQ(gone.code, 0) << gone.err;
  EXPECT_EQ(gone.out, full.out);
  // A shard whose recorded content does not give its recorded hash: refused, named.
  auto k = nlohmann::json::parse(slurp(files[0]));
  k["sources"][sc.string()]["json"]["classes"].push_back({{"name", "x"}, {"share", 0.0}});
  const std::string bad = write(dir / "bad.json", k.dump());
  auto refused = run("merge " + bad + " " + files[1]);
  EXPECT_EQ(refused.code, 2) << refused.err;
  EXPECT_TRUE(has(refused.err, bad)) << refused.err;
}

// --- item 7: exit codes and flags ---------------------------------------------------------

TEST(BadInput, UnreadableScenarioTextIsBadInputAndSaysWhatItIs) {
  fs::path dir = temp_dir("text");
  const std::string clinic = slurp(scenario("clinic.json"));
  auto bom = run("validate " + write(dir / "bom.json", "\xEF\xBB\xBF" + clinic));
  EXPECT_EQ(bom.code, 2);
  EXPECT_TRUE(has(bom.err, "byte-order mark")) << bom.err;
  std::string utf16 = "\xFF\xFE";
  for (char c : clinic) {
    utf16 += c;
    utf16 += '\0';
  }
  auto u16 = run("validate " + write(dir / "u16.json", utf16));
  EXPECT_EQ(u16.code, 2);
  EXPECT_TRUE(has(u16.err, "UTF-16")) << u16.err;
  auto u16_no_bom = run("validate " + write(dir / "u16b.json", utf16.substr(2)));
  EXPECT_EQ(u16_no_bom.code, 2);
  EXPECT_TRUE(has(u16_no_bom.err, "UTF-16")) << u16_no_bom.err;
  auto zero = run("validate /dev/zero");
  EXPECT_EQ(zero.code, 2);
  EXPECT_TRUE(has(zero.err, "NUL byte")) << zero.err;
  auto huge = run("validate " + write(dir / "huge.json", tiny(R"(, "seed": 1e400)")));
  EXPECT_EQ(huge.code, 2) << huge.err;
  EXPECT_TRUE(has(huge.err, "1e400")) << huge.err;
  auto huge_set = run("validate " + scenario("clinic.json") + " --set /release/batch=1e400");
  EXPECT_EQ(huge_set.code, 2) << huge_set.err;
  auto twice = run("validate " + write(dir / "twice.json", tiny(R"(, "seed": 1, "seed": 2)")));
  EXPECT_EQ(twice.code, 2);
  EXPECT_TRUE(has(twice.err, "/seed: expected each key once")) << twice.err;
  auto nested =
      run("validate " + scenario("clinic.json") + " --set '/release={\"batch\":1,\"batch\":2}'");
  EXPECT_EQ(nested.code, 2);
  EXPECT_TRUE(has(nested.err, "/batch")) << nested.err;
}

// Results echo arguments (file paths, --vary, --knob) into JSON, which is UTF-8: any other
// bytes are refused up front, naming the flag they belong to, not a --set they never were.
TEST(BadInput, ArgumentsThatAreNotUtf8AreRefusedNamingTheirFlag) {
  fs::path dir = temp_dir("utf8");
  const std::string clinic = scenario("clinic.json");
  const std::string out = (dir / "r\xFF.json").string();
  struct want {
    std::string args, names;
  };
  for (const want& w :
       {want{"run " + clinic + " --set /run/horizon_s=10 --out '" + out + "'",
             "argument 6, after --out"},
        want{"run " + clinic + " --set /run/horizon_s=10 --out='" + out + "'", "--out:"},
        want{"sweep " + clinic + " --vary '/release/batch\xC0=4:5:1'", "after --vary"},
        want{"plan " + clinic + " --knob '/release/b\xFFtch' --range 4:5", "after --knob"},
        want{"plan " + clinic + " --knob /release/batch --range '4:5\xFF'", "after --range"},
        want{"validate '" + (dir / "s\xFF.json").string() + "'", "argument 2:"}}) {
    auto r = run(w.args);
    EXPECT_EQ(r.code, 2) << w.args << "\n" << r.err;
    EXPECT_TRUE(has(r.err, w.names)) << w.args << "\n" << r.err;
    EXPECT_TRUE(has(r.err, "which is not UTF-8")) << r.err;
  }
  EXPECT_FALSE(fs::exists(out));
}

TEST(BadInput, FlagsAreNeverSilentlyIgnoredOrChanged) {
  const std::string clinic = scenario("clinic.json");
  const std::string short_run = clinic + " --set /run/horizon_s=100";
  for (const std::string& args :
       {"run " + short_run + " --seed -1", "run " + short_run + " --seed 9007199254740993",
        "run " + short_run + " --threads -1", "run " + short_run + " --threads 0",
        "run " + short_run + " --replications 3 --threads 99999",
        "run " + short_run + " --trace /tmp/x --trace-from 10 --trace-to 5",
        "run " + short_run + " --trace /tmp/x --trace-from nan",
        "run " + short_run + " --trace /tmp/x --trace-to inf",
        "run " + short_run + " --trace-from 5",
        "run " + short_run + " --trace /tmp/x --replications 3",
        "sweep " + short_run + " --vary /release/batch=4:5:1 --replications 1",
        "sweep " + short_run + " --vary /release/batch=4:5:1 --vary /release/batch=6:7:1",
        "compare " + short_run + " --variant a:/release/batch=5 --replications 1",
        "compare " + short_run + " --variant base:/release/batch=5",
        "compare " + short_run + " --variant a:/release/batch=5 --variant a:/release/batch=6",
        "estimate " + short_run + " --replications 1",
        "plan " + scenario("clinic_ratio_plan.json") +
            " --knob /release/batch --range 4:5:1 --replications 1"}) {
    auto r = run(args);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.err;
    EXPECT_TRUE(has(r.err, "expected")) << args << "\n" << r.err;
  }
  // plan --replications is used, not the sla block's count.
  auto plan = run("plan " + scenario("clinic_ratio_plan.json") +
                  " --knob /release/selection/weights/0 --range 10:11:1 --tie "
                  "/release/selection/weights/1=30-x --replications 3 --set /run/horizon_s=300");
  EXPECT_EQ(plan.code, 0) << plan.err;
  EXPECT_TRUE(has(plan.out, "3 replications a point")) << plan.out;
}

TEST(BadInput, NamesAreUniqueAndNotReserved) {
  fs::path dir = temp_dir("names");
  auto all = run("validate " + scenario("clinic.json") + " --set /classes/1/name=all");
  EXPECT_EQ(all.code, 2);
  EXPECT_TRUE(has(all.err, "/classes/1/name")) << all.err;
  auto control =
      run("validate " + scenario("clinic.json") + " --set '/classes/1/name=\"a\\u0001\"'");
  EXPECT_EQ(control.code, 2) << control.err;
  // A lone class may be called "all" (it is everyone).
  EXPECT_EQ(run("validate " + scenario("mmc_validation.json")).code, 0);
}

TEST(BadInput, MessagesNameTheRightPointerAndValue) {
  auto backlog =
      run("validate " + scenario("clinic.json") + " --set /arrivals/backlog_users=2147483648");
  EXPECT_EQ(backlog.code, 2);
  EXPECT_TRUE(has(backlog.err, "/arrivals/backlog_users")) << backlog.err;
  EXPECT_TRUE(has(backlog.err, "2147483648")) << backlog.err;
  auto index = run("validate " + scenario("clinic.json") + " --set /classes/5/share=0.1");
  EXPECT_EQ(index.code, 2);
  EXPECT_TRUE(has(index.err, "/classes/5")) << index.err;
  EXPECT_TRUE(has(index.err, "an index from 0 to 2")) << index.err;
  EXPECT_FALSE(has(index.err, "/classes/2")) << index.err;
  // A huge index is refused before anything is allocated.
  auto huge = run("validate " + scenario("clinic.json") + " --set /classes/100000000/share=0.1");
  EXPECT_EQ(huge.code, 2);
  // Appending is still allowed.
  auto append = run("validate " + scenario("clinic.json") +
                    " --set '/classes/2={\"name\":\"x\",\"share\":0}'");
  EXPECT_EQ(append.code, 0) << append.err;
}

TEST(BadInput, TraceFilesAreCheckedNotGuessed) {
  fs::path dir = temp_dir("trace");
  auto with_trace = [&](const std::string& name, const std::string& csv) {
    write(dir / (name + ".csv"), csv);
    const std::string s = write(
        dir / (name + ".json"),
        R"({"name": "t", "classes": [{"name": "vip", "share": 0.5}, {"name": "normal", "share": 0.5}],
            "arrivals": {"process": "trace", "trace_file": ")" +
            name + R"(.csv"}, "release": {"mode": "tick", "interval_ms": 1000, "batch": 5}})");
    return run("run " + s);
  };
  EXPECT_EQ(with_trace("ok", "timestamp_s,class,user_id\n0.5,vip,1\n1,normal,2\n").code, 0);
  auto bom = with_trace("bom",
                        "\xEF\xBB\xBF"
                        "0.5,vip,1\n1,normal,2\n");
  EXPECT_EQ(bom.code, 2);
  EXPECT_TRUE(has(bom.err, "byte-order mark")) << bom.err;
  auto word = with_trace("word", "abc,vip,1\n1,normal,2\n");
  EXPECT_EQ(word.code, 2);
  EXPECT_TRUE(has(word.err, "word.csv:1")) << word.err;
  auto empty = with_trace("empty", "timestamp_s,class\n# nothing\n");
  EXPECT_EQ(empty.code, 2);
  EXPECT_TRUE(has(empty.err, "at least one arrival")) << empty.err;
  auto dup = with_trace("dup", "0.5,vip,7\n1,normal,7\n");
  EXPECT_EQ(dup.code, 2);
  EXPECT_TRUE(has(dup.err, "dup.csv:2")) << dup.err;
  EXPECT_TRUE(has(dup.err, "already on line 1")) << dup.err;
}

TEST(BadInput, JunitAndTracesStayValidForAnyName) {
  fs::path dir = temp_dir("xml");
  const std::string junit = (dir / "j.xml").string();
  auto r =
      run("check " + scenario("clinic.json") +
          " --set '/classes/0/name=<v&\"i\\u0027p>' --set '/sla/targets/0/class=<v&\"i\\u0027p>'"
          " --set '/name=a\\u0001b<' --junit " +
          junit);
  ASSERT_TRUE(r.code == 0 || r.code == 1) << r.err;
  const std::string py =
      "python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' " + junit;
  EXPECT_EQ(std::system(py.c_str()), 0) << slurp(junit);
  const std::string trace = (dir / "t.jsonl").string();
  const std::string quoted = write(dir / "quoted.json", tiny());
  auto t = run("run " + quoted + " --set '/classes/0/name=v\"i\\\\p' --trace " + trace);
  ASSERT_EQ(t.code, 0) << t.err;
  std::ifstream in(trace);
  std::size_t lines = 0;
  for (std::string line; std::getline(in, line); ++lines)
    EXPECT_TRUE(nlohmann::json::accept(line)) << line;
  EXPECT_GT(lines, 0u);
}

// A build without the Redis backend (-DWAITROOM_WITH_REDIS=OFF) says so for every command
// that would talk to Redis, as bad input, and still documents load.
TEST(BadInput, ABuildWithoutRedisRefusesTheRedisCommands) {
  if (with_redis_backend) GTEST_SKIP() << "this build has the Redis backend";
  const std::string why =
      "expected a build with the live Redis backend (cmake -DWAITROOM_WITH_REDIS=ON), found a "
      "build without it";
  for (const std::string& args : std::vector<std::string>{
           "run --redis redis://127.0.0.1:1",
           "check " + scenario("clinic_ratio.json") + " --redis unix:///nonexistent",
           "load " + scenario("clinic.json") + " --redis redis://127.0.0.1:1"}) {
    const auto r = run(args);
    EXPECT_EQ(r.code, 2) << args;
    EXPECT_NE(r.err.find(why), std::string::npos) << args << "\n" << r.err;
    EXPECT_TRUE(r.out.empty()) << args;
  }
  const auto help = run("load --help");
  EXPECT_EQ(help.code, 0);
  EXPECT_NE(help.out.find("--format table|json"), std::string::npos) << help.out;
}
