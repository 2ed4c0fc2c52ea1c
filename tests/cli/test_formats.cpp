// --format: one rule for the default (json with --out, else table) in every command, and a
// format a command does not write refused naming the flag, what it writes and what was given.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/cli_run.hpp"

namespace {

using waitroom::testing_support::cli_outcome;
using waitroom::testing_support::process_temp_dir;
using waitroom::testing_support::scenario_path;
using waitroom::testing_support::slurp;

cli_outcome run(const std::string& args) {
  return waitroom::testing_support::run_cli("formats", args);
}

bool is_json(const std::string& text) {
  return nlohmann::json::accept(text) && !text.empty() && text.front() == '{';
}

// Small, quick cases of every command that takes --format.
std::vector<std::string> commands() {
  const std::string mmc = scenario_path("mmc_validation.json") + " --set /run/horizon_s=300";
  const std::string clinic = scenario_path("clinic.json");
  const std::string plan = scenario_path("clinic_ratio_plan.json") +
                           " --knob /release/selection/weights/0 --range 8:12:2"
                           " --tie /release/selection/weights/1=30-x --set /sla/replications=2";
  return {"run " + mmc,
          "run " + mmc + " --replications 2",
          "estimate " + mmc + " --replications 2",
          "compare " + clinic + " --variant b:/release/batch=7 --replications 2",
          "check " + scenario_path("clinic_ratio.json") + " --set /sla/replications=2 --quiet",
          "sweep " + clinic + " --vary /release/batch=5:6:1 --replications 2 --quiet",
          "plan " + plan + " --quiet"};
}

}  // namespace

TEST(Formats, EveryCommandWritesATableWithoutOutAndJsonWithIt) {
  const auto dir = process_temp_dir("formats_default");
  int n = 0;
  for (const auto& args : commands()) {
    SCOPED_TRACE(args);
    const auto printed = run(args);
    ASSERT_LE(printed.code, 1) << printed.err;  // check exits 1 when a target fails
    EXPECT_FALSE(printed.out.empty());
    EXPECT_FALSE(is_json(printed.out)) << printed.out.substr(0, 200);
    const auto file = dir / ("result" + std::to_string(n++) + ".json");
    const auto written = run(args + " --out " + file.string());
    ASSERT_EQ(written.code, printed.code) << written.err;
    EXPECT_TRUE(is_json(slurp(file))) << slurp(file).substr(0, 200);
    // --format overrides the default either way.
    const auto table_file = run(args + " --format table --out " + file.string());
    ASSERT_EQ(table_file.code, printed.code) << table_file.err;
    EXPECT_FALSE(is_json(slurp(file)));
    EXPECT_TRUE(is_json(run(args + " --format json").out));
  }
}

TEST(Formats, AFormatTheCommandDoesNotWriteIsRefusedNamingTheFlag) {
  const std::string clinic = scenario_path("clinic.json");
  auto xml = run("run " + clinic + " --format xml");
  EXPECT_EQ(xml.code, 2);
  EXPECT_NE(xml.err.find("waitroom: --format: expected table, json or csv, found 'xml'"),
            std::string::npos)
      << xml.err;
  const std::string sweep =
      "sweep " + clinic + " --vary /release/batch=5:6:1 --replications 2 --quiet";
  auto csv = run(sweep + " --format csv");
  EXPECT_EQ(csv.code, 2);
  EXPECT_NE(csv.err.find("waitroom: --format: expected table or json, found 'csv'"),
            std::string::npos)
      << csv.err;
  // merge takes every format a sharded command writes; a sweep's shards have no CSV result.
  const auto dir = process_temp_dir("formats_refused");
  std::vector<std::string> files;
  for (int k = 0; k < 2; ++k) {
    // Not "s" + std::to_string(k): gcc 12's -Wrestrict misfires on char* + string&&.
    const std::string name = std::string("s") + std::to_string(k) + ".json";
    files.push_back((dir / name).string());
    ASSERT_EQ(run(sweep + " --shard " + std::to_string(k) + "/2 --out " + files.back()).code, 0);
  }
  auto merged = run("merge " + files[0] + " " + files[1] + " --format csv");
  EXPECT_EQ(merged.code, 2);
  EXPECT_NE(merged.err.find("waitroom: --format: expected table or json, found 'csv'"),
            std::string::npos)
      << merged.err;
  EXPECT_TRUE(merged.out.empty()) << merged.out;
}
