// Shards and saved results that were edited or damaged after waitroom wrote them: `merge`
// refuses a shard whose content does not give its content hash, or of a format or command it
// does not know; `report` refuses a result it cannot draw faithfully (another format version,
// a figure that is not a number, series of unequal lengths) and says what kind of file it was
// given when that is not a result. Each message names the file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/cli_run.hpp"

namespace fs = std::filesystem;

namespace {

using nlohmann::json;
using outcome = waitroom::testing_support::cli_outcome;
using waitroom::testing_support::slurp;

fs::path temp_dir(const std::string& name) {
  fs::path dir = fs::path(testing::TempDir()) /
                 ("waitroom_integrity_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

outcome run(const std::string& args) {
  return waitroom::testing_support::run_cli("integrity", args);
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

// Small jobs of each sharded command (seconds in all).
const std::string run_job = "run " + scenario("clinic_ratio.json") +
                            " --set /arrivals/segments/0/duration_s=60 --replications 2";
const std::string check_job = "check " + scenario("priority_mm1.json") +
                              " --set /run/horizon_s=100 --set /sla/replications=2";
const std::string sweep_job = "sweep " + scenario("clinic.json") +
                              " --set /run/horizon_s=100 --vary /release/batch=4:5:1 "
                              "--replications 2 --quiet";
const std::string plan_job = "plan " + scenario("priority_mm1.json") +
                             " --knob /release/slots --range 1:2:1 --set /run/horizon_s=100 "
                             "--set /sla/replications=2 --quiet";

// Shards 0/2 and 1/2 of `job` in `dir`.
std::vector<std::string> shards(const std::string& job, const fs::path& dir,
                                const std::string& stem) {
  std::vector<std::string> files;
  for (int k = 0; k < 2; ++k) {
    files.push_back((dir / (stem + std::to_string(k) + ".json")).string());
    const auto r = run(job + " --shard " + std::to_string(k) + "/2 --out " + files.back());
    EXPECT_EQ(r.code, 0) << r.err;
  }
  return files;
}

// The first shard edited by `edit`, written beside it.
std::string edited(const std::string& file, const std::string& name,
                   const std::function<void(json&)>& edit) {
  json j = json::parse(slurp(file));
  edit(j);
  return write(fs::path(file).parent_path() / name, j.dump());
}

// A figure changed by a factor, or replaced by null, in the first unit's metric table: the
// merge refused naming the file and the content hash, with nothing written.
void expect_hash_refusal(const std::vector<std::string>& files, const std::string& stem) {
  for (const bool to_null : {false, true}) {
    const std::string bad =
        edited(files[0], stem + (to_null ? "_null.json" : "_scaled.json"), [&](json& j) {
          json& x = j["units"][0]["table"][0][1];
          if (to_null)
            x = nullptr;
          else
            x = x.is_number() ? json(x.get<double>() * 1000 + 1) : json(1.5);
        });
    const auto r = run("merge " + bad + " " + files[1] + " --format json");
    EXPECT_EQ(r.code, 2) << stem << ": " << r.out.substr(0, 300) << r.err;
    EXPECT_TRUE(has(r.err, bad + ": /content_sha256: expected the sha256 of the shard's content"))
        << r.err;
    EXPECT_TRUE(has(r.err, "the content hash does not match, so the file was edited or corrupted"))
        << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out.substr(0, 300);
  }
}

}  // namespace

// A shard with one number changed merged with exit 0 into a wrong result; a null put in a
// figure's place turned it into "no data". Every command's shards carry the hash of their
// content, and merge refuses a mismatch.
TEST(ShardIntegrity, AChangedOrNulledFigureIsRefusedForEveryShardedCommand) {
  const auto dir = temp_dir("figure");
  expect_hash_refusal(shards(run_job, dir, "run"), "run");
  expect_hash_refusal(shards(check_job, dir, "check"), "check");
  expect_hash_refusal(shards(sweep_job, dir, "sweep"), "sweep");
  expect_hash_refusal(shards(plan_job, dir, "plan"), "plan");
}

// Run shards hold more than tables: a wait count and a queue series sum edited are refused
// too (the hash covers the whole shard, not only the tables).
TEST(ShardIntegrity, EveryPartOfARunShardIsCoveredByTheHash) {
  const auto dir = temp_dir("parts");
  const auto files = shards(run_job, dir, "run");
  for (const char* pointer : {"/units/0/waits/0/arrived", "/series_bands/sum/0", "/units/0/events",
                              "/units/0/end_time_s", "/units/0/waits/1/wait_s/1"}) {
    const std::string bad = edited(files[0], "bad.json", [&](json& j) {
      json& x = j[json::json_pointer(pointer)];
      x = x.is_number_float() ? json(x.get<double>() + 1) : json(x.get<std::uint64_t>() + 1);
    });
    const auto r = run("merge " + bad + " " + files[1] + " --format json");
    EXPECT_EQ(r.code, 2) << pointer << ": " << r.err;
    EXPECT_TRUE(has(r.err, bad + ": /content_sha256: expected the sha256"))
        << pointer << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << pointer;
  }
}

// The hash is of the content, not of the bytes: a shard re-indented or with its keys in
// another order (as a JSON tool writes it back) still merges, to the unsharded result.
TEST(ShardIntegrity, AReformattedShardStillMergesToTheUnshardedResult) {
  const auto dir = temp_dir("reformatted");
  const auto files = shards(run_job, dir, "run");
  const auto full = run(run_job + " --format json");
  ASSERT_EQ(full.code, 0) << full.err;
  // The members in reverse order, each indented.
  const json j = json::parse(slurp(files[0]));
  std::string text = "{\n";
  for (auto it = j.rbegin(); it != j.rend(); ++it) {
    // Appended piece by piece: gcc 12's -Wrestrict misfires on char* + string&&.
    text += it == j.rbegin() ? "  " : ",\n  ";
    text += json(it.key()).dump();
    text += ": ";
    text += it->dump(2);
  }
  const std::string pretty = write(dir / "pretty.json", text + "\n}\n");
  const auto r = run("merge " + pretty + " " + files[1] + " --format json");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, full.out);
}

// `waitroom_shard: 2` and unknown commands were accepted; a shard without the content hash
// (an older format) would merge unchecked. Each is refused naming what is supported.
TEST(ShardIntegrity, UnknownFormatsAndCommandsAreRefusedNamingTheSupportedOnes) {
  const auto dir = temp_dir("format");
  const auto files = shards(run_job, dir, "run");
  // `says`: the message after the file's name; `also`: further on in it.
  auto refused = [&](const std::string& says, const std::function<void(json&)>& edit,
                     const std::string& also = {}) {
    const std::string bad = edited(files[0], "bad.json", edit);
    const auto r = run("merge " + bad + " " + files[1] + " --format json");
    EXPECT_EQ(r.code, 2) << says << ": " << r.err;
    EXPECT_TRUE(has(r.err, bad + ": " + says)) << says << ": " << r.err;
    EXPECT_TRUE(has(r.err, also)) << also << ": " << r.err;
    EXPECT_TRUE(r.out.empty());
  };
  const std::string format = "/waitroom_shard: expected shard format 2 (what this waitroom";
  refused(format, [](json& j) { j["waitroom_shard"] = 3; });
  refused(format, [](json& j) { j["waitroom_shard"] = 99; });
  refused(format, [](json& j) { j["waitroom_shard"] = "2"; });
  refused(format, [](json& j) { j["waitroom_shard"] = 2.5; });
  refused(
      format,
      [](json& j) {
        j["waitroom_shard"] = 1;
        j.erase("content_sha256");
      },
      "found format 1, from an older waitroom: run the shards again with this one");
  refused(
      format, [](json& j) { j["waitroom_shard"] = 3; }, "found a number (3)");
  refused("/command: expected run, check, sweep or plan, found 'compare'",
          [](json& j) { j["command"] = "compare"; });
  refused("/command: expected run, check, sweep or plan, found none",
          [](json& j) { j.erase("command"); });
  refused("/content_sha256: expected the value waitroom writes there, found none",
          [](json& j) { j.erase("content_sha256"); });
  refused("/content_sha256: expected the sha256 of the shard's content",
          [](json& j) { j["content_sha256"] = 7; });
  // Not a shard at all: named for what it is.
  const auto result = run("merge " + scenario("clinic.json"));
  EXPECT_EQ(result.code, 2);
  EXPECT_TRUE(has(result.err,
                  "clinic.json: expected a shard file written by waitroom run, check, "
                  "sweep or plan --shard, found a scenario file"))
      << result.err;
  const auto missing = run("merge " + (dir / "none.json").string());
  EXPECT_EQ(missing.code, 2);
  EXPECT_TRUE(has(missing.err, "none.json: expected a readable shard file")) << missing.err;
}

// `report` of a run or check shard said "found one shard of a sweep": each shard is named for
// the command that wrote it, with the merge to run first.
TEST(ShardIntegrity, ReportOfAShardNamesItsCommandAndSaysToMergeFirst) {
  const auto dir = temp_dir("report_shard");
  const std::vector<std::pair<std::string, std::string>> jobs{
      {run_job, "a shard file of `waitroom run --replications R --shard K/N` (shard 0 of 2)"},
      {check_job, "a shard file of `waitroom check --shard K/N` (shard 0 of 2)"},
      {sweep_job, "a shard file of `waitroom sweep --shard K/N` (shard 0 of 2)"},
      {plan_job, "a shard file of `waitroom plan --shard K/N` (shard 0 of 2)"}};
  int n = 0;
  for (const auto& [job, says] : jobs) {
    const auto files = shards(job, dir, std::string(1, static_cast<char>('a' + n++)));
    const auto r = run("report " + files[0] + " --out " + (dir / "r.html").string());
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_TRUE(has(r.err, files[0] + ": expected the JSON result of waitroom run")) << r.err;
    EXPECT_TRUE(has(r.err, says)) << r.err;
    EXPECT_TRUE(has(r.err, "merge all the shards first: waitroom merge")) << r.err;
    EXPECT_FALSE(fs::exists(dir / "r.html"));
  }
  const auto sc = run("report " + scenario("clinic.json") + " --out " + (dir / "r.html").string());
  EXPECT_EQ(sc.code, 2);
  EXPECT_TRUE(has(sc.err, "clinic.json: expected the JSON result of waitroom run")) << sc.err;
  EXPECT_TRUE(has(sc.err, "found a scenario file (run it first")) << sc.err;
  const auto missing = run("report " + (dir / "none.json").string());
  EXPECT_EQ(missing.code, 2);
  EXPECT_TRUE(has(missing.err, "none.json: expected a readable result file")) << missing.err;
}

// `report` rendered a result with schema_version 99, a string in a numeric field and series
// of unequal lengths. Each is refused naming the file, the JSON pointer, what was expected
// and what was found; every kind of result waitroom writes still renders.
TEST(ShardIntegrity, ReportRefusesAResultItCannotDrawFaithfully) {
  const auto dir = temp_dir("report_result");
  const std::string run_json = (dir / "run.json").string();
  auto r = run("run " + scenario("clinic_degrading_backend.json") + " --out " + run_json);
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string reps_json = (dir / "reps.json").string();
  r = run(run_job + " --out " + reps_json);
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string sweep_json = (dir / "sweep.json").string();
  r = run(sweep_job + " --format json --out " + sweep_json);
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string plan_json = (dir / "plan.json").string();
  r = run(plan_job + " --format json --out " + plan_json);
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string check_json = (dir / "check.json").string();
  r = run(check_job + " --format json --out " + check_json);
  ASSERT_LE(r.code, 1) << r.err;
  const std::string compare_json = (dir / "compare.json").string();
  r = run("compare " + scenario("clinic_ratio.json") +
          " --set /arrivals/segments/0/duration_s=60 --replications 2 --variant "
          "fifo:/queue/policy=fifo --out " +
          compare_json);
  ASSERT_EQ(r.code, 0) << r.err;
  for (const auto& f : {run_json, reps_json, sweep_json, plan_json, check_json, compare_json}) {
    const auto ok = run("report " + f + " --out " + (dir / "ok.html").string());
    EXPECT_EQ(ok.code, 0) << f << ": " << ok.err;
  }
  auto refused = [&](const std::string& file, const std::string& says,
                     const std::function<void(json&)>& edit) {
    const std::string bad = edited(file, "bad.json", edit);
    const auto html = dir / "bad.html";
    const auto out = run("report " + bad + " --out " + html.string());
    EXPECT_EQ(out.code, 2) << says << ": " << out.err;
    EXPECT_TRUE(has(out.err, bad + ": " + says)) << says << ": " << out.err;
    EXPECT_FALSE(fs::exists(html)) << says;
  };
  refused(run_json, "/schema_version: expected 1 (the result format this waitroom",
          [](json& j) { j["schema_version"] = 99; });
  refused(run_json, "/schema_version: expected 1", [](json& j) { j["schema_version"] = "1"; });
  refused(run_json, "/schema_version: expected 1", [](json& j) { j.erase("schema_version"); });
  refused(sweep_json, "/kind: expected sweep, plan, check or fit",
          [](json& j) { j["kind"] = "sweeps"; });
  refused(run_json,
          "/classes/0/wait_s/mean: expected a number (or null) or an array of numbers, "
          "found a string",
          [](json& j) { j["classes"][0]["wait_s"]["mean"] = "12.5"; });
  refused(run_json, "/overall/released: expected a number (or null), found a string",
          [](json& j) { j["overall"]["released"] = "many"; });
  refused(reps_json, "/classes/0/mean_wait_s/estimate: expected a number (or null), found",
          [](json& j) { j["classes"][0]["mean_wait_s"]["estimate"] = json::object(); });
  refused(sweep_json, "/points/0/classes/0/mean_wait_s/ci: expected an interval [low, high]",
          [](json& j) { j["points"][0]["classes"][0]["mean_wait_s"]["ci"] = {1.0}; });
  refused(check_json, "/scenarios/0/targets/0/estimate: expected a number (or null)",
          [](json& j) { j["scenarios"][0]["targets"][0]["estimate"] = "0.5"; });
  refused(run_json, "/queue_length/length: expected ",
          [](json& j) { j["queue_length"]["length"].erase(0); });
  refused(run_json, "/queue_length/by_class/vip: expected ",
          [](json& j) { j["queue_length"]["by_class"]["vip"].push_back(3); });
  refused(run_json, "/backend/windows/p95_ms: expected ",
          [](json& j) { j["backend"]["windows"]["p95_ms"].erase(0); });
  refused(run_json, "/queue_length/t_s/1: expected a number (or null), found a string",
          [](json& j) { j["queue_length"]["t_s"][1] = "x"; });
  refused(reps_json, "/queue_length_bands/waiting/ci_high: expected ",
          [](json& j) { j["queue_length_bands"]["waiting"]["ci_high"].erase(0); });
}
