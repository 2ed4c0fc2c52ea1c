// --format: one rule for the default (json with --out, else table) in every command, a format
// a command does not write refused naming the flag, what it writes and what was given, and
// markdown read back against the JSON.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <sstream>
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

// A Markdown table's cells: "| a | b |" -> {"a", "b"}.
std::vector<std::string> cells(const std::string& line) {
  std::vector<std::string> out;
  std::size_t at = line.find('|');
  while (at != std::string::npos) {
    const std::size_t next = line.find('|', at + 1);
    if (next == std::string::npos) break;
    std::string c = line.substr(at + 1, next - at - 1);
    const auto first = c.find_first_not_of(' '), last = c.find_last_not_of(' ');
    out.push_back(first == std::string::npos ? std::string() : c.substr(first, last - first + 1));
    at = next;
  }
  return out;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
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
  EXPECT_NE(xml.err.find("waitroom: --format: expected table, json, csv or markdown, found 'xml'"),
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

// The class table as Markdown: its head, the delimiter row, a row per class and one for
// everyone, each figure the JSON's (waits to the decimals shown, in the head's unit).
TEST(Formats, MarkdownHasTheTablesRowsWithTheJsonsFigures) {
  const std::string run_args = "run " + scenario_path("clinic.json") + " --set /run/horizon_s=600";
  const auto md = run(run_args + " --format markdown");
  ASSERT_EQ(md.code, 0) << md.err;
  const auto js = run(run_args + " --format json");
  ASSERT_EQ(js.code, 0) << js.err;
  const auto j = nlohmann::json::parse(js.out);
  const auto lines = lines_of(md.out);
  std::size_t head = 0;
  while (head < lines.size() && !lines[head].starts_with("| class |")) ++head;
  ASSERT_LT(head + 2, lines.size()) << md.out;
  const auto heads = cells(lines[head]);
  ASSERT_EQ(heads.size(), 12u) << lines[head];
  EXPECT_EQ(heads[5], "mean (s)");
  const auto rule = cells(lines[head + 1]);
  ASSERT_EQ(rule.size(), heads.size()) << lines[head + 1];
  EXPECT_EQ(rule[0], ":---");
  for (std::size_t i = 1; i < rule.size(); ++i) EXPECT_EQ(rule[i], "---:") << i;
  std::vector<nlohmann::json> expected(j["classes"].begin(), j["classes"].end());
  expected.push_back(j["overall"]);
  ASSERT_LT(head + 2 + expected.size(), lines.size() + 1);
  for (std::size_t k = 0; k < expected.size(); ++k) {
    const auto row = cells(lines[head + 2 + k]);
    const auto& want = expected[k];
    SCOPED_TRACE(lines[head + 2 + k]);
    ASSERT_EQ(row.size(), heads.size());
    EXPECT_EQ(row[0], k + 1 < expected.size() ? want["name"].get<std::string>() : "all");
    EXPECT_EQ(row[1], std::to_string(want["arrived"].get<std::uint64_t>()));
    EXPECT_EQ(row[2], std::to_string(want["released"].get<std::uint64_t>()));
    EXPECT_EQ(row[3], std::to_string(want["abandoned"].get<std::uint64_t>()));
    EXPECT_EQ(row[4], std::to_string(want["waiting_at_end"].get<std::uint64_t>()));
    const char* waits[] = {"mean", "p50", "p90", "p95", "p99", "p999", "max"};
    for (std::size_t w = 0; w < 7; ++w) {
      const std::string& shown = row[5 + w];
      const auto dot = shown.find('.');
      const int decimals = dot == std::string::npos ? 0 : static_cast<int>(shown.size() - dot - 1);
      EXPECT_NEAR(std::stod(shown), want["wait_s"][waits[w]].get<double>(),
                  0.5 * std::pow(10.0, -decimals) + 1e-9)
          << waits[w];
    }
  }
  // The row after the last class ends the table.
  const std::size_t after = head + 2 + expected.size();
  EXPECT_TRUE(after == lines.size() || !lines[after].starts_with("|")) << lines[after];
}

TEST(Formats, MarkdownOfCompareCheckAndReplicationsIsTables) {
  const std::string clinic = scenario_path("clinic.json");
  for (const std::string& args :
       {"run " + clinic + " --replications 2 --quiet",
        "compare " + clinic + " --variant b:/release/batch=7 --replications 2",
        "check " + scenario_path("clinic_ratio.json") + " --set /sla/replications=2 --quiet"}) {
    SCOPED_TRACE(args);
    const auto md = run(args + " --format markdown");
    ASSERT_LE(md.code, 1) << md.err;
    const auto lines = lines_of(md.out);
    std::size_t heads = 0;
    for (std::size_t i = 0; i + 1 < lines.size(); ++i)
      if (lines[i].starts_with("| ") && lines[i + 1].starts_with("| :---")) {
        ++heads;
        EXPECT_EQ(cells(lines[i]).size(), cells(lines[i + 1]).size()) << lines[i];
        EXPECT_TRUE(i == 0 || lines[i - 1].empty()) << lines[i - 1];  // a table after a blank line
      }
    EXPECT_GE(heads, 1u) << md.out;
  }
}
