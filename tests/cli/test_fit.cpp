// `waitroom fit`: a trace the program wrote, fitted back into a scenario that runs, with the
// known arrivals, shares and release rate inside what the fit reports; bad arguments refused
// before anything is written.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "support/cli_run.hpp"

namespace {

using nlohmann::json;
using waitroom::testing_support::cli_outcome;
using waitroom::testing_support::process_temp_dir;
using waitroom::testing_support::slurp;

cli_outcome run(const std::string& args) {
  return waitroom::testing_support::run_cli("fit", args);
}

// Two segments (10/s then 60/s for a minute each), 30% VIP, exponential patience with a
// 60 s mean, 25 users/s released (5 every 200 ms): a queue builds in the second minute.
std::string known_scenario(const std::filesystem::path& dir) {
  const auto path = (dir / "known.json").string();
  std::ofstream(path) << R"({"name": "known", "seed": 5,
    "classes": [{"name": "vip", "share": 0.3, "patience_s": {"dist": "exponential", "mean": 60}},
                {"name": "normal", "share": 0.7,
                 "patience_s": {"dist": "exponential", "mean": 60}}],
    "arrivals": {"process": "piecewise", "segments": [{"duration_s": 60, "rate_per_s": 10},
                                                      {"duration_s": 60, "rate_per_s": 60}]},
    "release": {"mode": "tick", "interval_ms": 200, "batch": 5}})";
  return path;
}

TEST(FitCommand, FitsTheProgramsOwnTraceBackIntoAScenarioThatRuns) {
  const auto dir = process_temp_dir("fit");
  const auto trace = (dir / "known.trace").string();
  ASSERT_EQ(run("run " + known_scenario(dir) + " --trace " + trace + " --quiet").code, 0);
  const auto fitted = (dir / "fitted.json").string();
  const auto r = run("fit " + trace + " --out " + fitted + " --format json");
  ASSERT_EQ(r.code, 0) << r.err;
  const json fit = json::parse(r.out);
  EXPECT_EQ(fit["scenario"], json::parse(slurp(fitted)));  // the file is what stdout shows
  ASSERT_EQ(fit["arrivals"].size(), 2u);
  const double truth[] = {10, 60};
  for (int i = 0; i < 2; ++i) {
    EXPECT_LE(fit["arrivals"][i]["rate_per_s"]["lo"].get<double>(), truth[i]) << i;
    EXPECT_GE(fit["arrivals"][i]["rate_per_s"]["hi"].get<double>(), truth[i]) << i;
  }
  EXPECT_NEAR(fit["arrivals"][1]["start_s"].get<double>(), 60, 2);
  for (const auto& c : fit["classes"]) {
    const double share = c["name"] == "vip" ? 0.3 : 0.7;
    EXPECT_LE(c["share"]["lo"].get<double>(), share) << c["name"];
    EXPECT_GE(c["share"]["hi"].get<double>(), share) << c["name"];
    ASSERT_FALSE(c["patience"].empty()) << c["name"];
  }
  // Ticks release exactly 5 every 200 ms while users wait throughout a second.
  EXPECT_DOUBLE_EQ(fit["release_rate_per_s"].get<double>(), 25);
  EXPECT_DOUBLE_EQ(fit["scenario"]["release"]["rate_per_s"].get<double>(), 25);
  const auto again = run("validate " + fitted);  // which the reader makes 5 every 200 ms
  ASSERT_EQ(again.code, 0) << again.err;
  const json effective = json::parse(again.out);
  EXPECT_EQ(effective["release"]["batch"], 5);
  EXPECT_EQ(effective["release"]["interval_ms"], 200);
  ASSERT_EQ(run("run " + fitted + " --quiet --format json").code, 0);

  const auto table = run("fit " + trace);
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_NE(table.out.find("release: 25.00 users/s"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("--out SCENARIO.json"), std::string::npos) << table.out;
}

TEST(FitCommand, BadArgumentsAreRefusedBeforeAnythingIsWritten) {
  const auto dir = process_temp_dir("fit");
  const auto log = (dir / "log.jsonl").string();
  std::ofstream(log) << R"({"user": "a", "class": "vip", "joined_at": 10})"
                     << "\n"
                     << R"({"user": "b", "class": "vip", "joined_at": 5})"
                     << "\n";
  auto r = run("fit");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("waitroom fit: expected one LOG file, found none"), std::string::npos)
      << r.err;
  r = run("fit " + (dir / "absent.jsonl").string());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("absent.jsonl: expected a readable event log, found no such file"),
            std::string::npos)
      << r.err;
  r = run("fit " + log + " --format csv");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--format: expected table, json or markdown, found 'csv'"),
            std::string::npos)
      << r.err;
  r = run("fit " + log + " --time-unit h");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--time-unit: expected s or ms, found 'h'"), std::string::npos) << r.err;
  const std::string before = slurp(log);
  r = run("fit " + log + " --out " + log);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(slurp(log), before);  // the input is kept
  const auto out = (dir / "never.json").string();
  r = run("fit " + log + " --out " + out);  // line 2 joined before line 1
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("log.jsonl:2"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
  r = run("fit " + log + " --replications 3");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--replications: expected --check"), std::string::npos) << r.err;
  r = run("fit " + log + " --check --replications 1");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--replications: expected a whole number from 2"), std::string::npos)
      << r.err;
}

// The check's rows as {class/metric: inside}.
std::map<std::string, bool> check_rows(const json& fit) {
  std::map<std::string, bool> out;
  for (const auto& r : fit["check"]["rows"])
    out[r["class"].get<std::string>() + "/" + r["metric"].get<std::string>()] =
        r["inside"].get<bool>();
  return out;
}

TEST(FitCheck, ALogOfTheScenarioItRecoversIsInsideEveryInterval) {
  const auto dir = process_temp_dir("fit");
  const auto trace = (dir / "known.trace").string();
  ASSERT_EQ(run("run " + known_scenario(dir) + " --trace " + trace + " --quiet").code, 0);
  const auto r = run("fit " + trace + " --check --format json");
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  const json fit = json::parse(r.out);
  EXPECT_TRUE(fit["check"]["all_inside"].get<bool>()) << fit["check"].dump(1);
  EXPECT_EQ(fit["check"]["replications"], 10);
  // Bonferroni over 2 classes x (mean, p50, p95 wait, give-up share).
  EXPECT_DOUBLE_EQ(fit["check"]["row_level"].get<double>(), 1 - 0.05 / 8);
  const auto rows = check_rows(fit);
  EXPECT_EQ(rows.size(), 8u);
  EXPECT_TRUE(rows.count("vip/p95_wait_s"));
  EXPECT_TRUE(rows.count("normal/abandoned_share"));
  const auto table = run("fit " + trace + " --check");
  EXPECT_EQ(table.code, 0);
  EXPECT_NE(table.out.find("every figure of the log is inside what the fitted scenario produces"),
            std::string::npos)
      << table.out;
}

TEST(FitCheck, APriorityTheLogDoesNotShowIsFlaggedUntilItIsSet) {
  // The known scenario with a 30 s VIP offset: the fit (first come first served) makes VIPs
  // wait as long as everyone, which the check flags; setting the offset brings it back.
  const auto dir = process_temp_dir("fit");
  json known = json::parse(slurp(known_scenario(dir)));
  known["queue"] = {{"policy", "offset"}};
  known["classes"][0]["offset_ms"] = 30000;
  const auto path = (dir / "offset.json").string();
  std::ofstream(path) << known.dump();
  const auto trace = (dir / "offset.trace").string();
  ASSERT_EQ(run("run " + path + " --trace " + trace + " --quiet").code, 0);
  const auto plain = run("fit " + trace + " --check --format json");
  EXPECT_EQ(plain.code, 1) << plain.err;  // a figure outside
  const json fit = json::parse(plain.out);
  EXPECT_FALSE(fit["check"]["all_inside"].get<bool>());
  EXPECT_FALSE(check_rows(fit).at("vip/mean_wait_s"));
  std::size_t vip = 0;  // classes in the order they first appear in the log
  while (fit["classes"][vip]["name"] != "vip") ++vip;
  const auto out = (dir / "fitted.json").string();
  const auto set = run(fmt::format(
      "fit {} --check --format json --set /queue/policy=offset --set /classes/{}/offset_ms=30000 "
      "--out {}",
      trace, vip, out));
  ASSERT_EQ(set.code, 0) << set.err << set.out;
  EXPECT_TRUE(json::parse(set.out)["check"]["all_inside"].get<bool>()) << set.out;
  EXPECT_EQ(json::parse(slurp(out))["queue"]["policy"], "offset");  // --out has the set too
}

}  // namespace

namespace {

// `fit --html` writes the fit's page; `report` draws the same from `fit --format json` and
// refuses a damaged one. (tests/browser/check_reports.py checks that its charts draw.)
TEST(FitReport, TheHtmlPageCarriesTheFitAndReportReadsItsJson) {
  const auto dir = process_temp_dir("fit");
  const auto trace = (dir / "known.trace").string();
  ASSERT_EQ(run("run " + known_scenario(dir) + " --trace " + trace + " --quiet").code, 0);
  const auto page = (dir / "fit.html").string();
  const auto r = run("fit " + trace + " --check --html " + page);
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string html = slurp(page);
  for (const char* want : {R"("kind":"fit")", R"("arrivals_per_minute":)", R"("kaplan_meier":)",
                           R"("released_wait_percentiles_s":)", R"("check":)"})
    EXPECT_NE(html.find(want), std::string::npos) << want;
  const auto doc = (dir / "fit.json").string();
  std::ofstream(doc) << run("fit " + trace + " --check --format json").out;
  const json fit = json::parse(slurp(doc));
  // Per minute: 600 + 3,600 users in the first two minutes (10/s, then 60/s).
  ASSERT_GE(fit["arrivals_per_minute"].size(), 2u);
  EXPECT_NEAR(fit["arrivals_per_minute"][0].get<double>(), 600, 4 * std::sqrt(600.0));
  EXPECT_NEAR(fit["arrivals_per_minute"][1].get<double>(), 3600, 4 * std::sqrt(3600.0));
  for (const auto& c : fit["classes"]) {
    const auto& km = c["kaplan_meier"];
    EXPECT_EQ(km["t_s"].size(), km["fitted"].size()) << c["name"];
    EXPECT_LE(km["t_s"].size(), 401u);
    EXPECT_EQ(c["released_wait_percentiles_s"].size(), 101u);
  }
  const auto drawn = (dir / "fit-report.html").string();
  auto rep = run("report " + doc + " --out " + drawn);
  EXPECT_EQ(rep.code, 0) << rep.err;
  EXPECT_TRUE(std::filesystem::exists(drawn));
  json bad = fit;
  bad["classes"][0]["kaplan_meier"]["lo"].erase(0);
  std::ofstream(doc, std::ios::trunc) << bad.dump();
  rep = run("report " + doc + " --out " + (dir / "never.html").string());
  EXPECT_EQ(rep.code, 2);
  EXPECT_NE(rep.err.find("/classes/0/kaplan_meier/lo: expected"), std::string::npos) << rep.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "never.html"));
  // The page is not written over the log.
  EXPECT_EQ(run("fit " + trace + " --html " + trace).code, 2);
}

}  // namespace
