// Verdicts on censored data, as a user runs the program: censored waits never pass a
// target, every statistic honours the warm-up; also the trace of direct visits and --unset.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "support/cli_run.hpp"

namespace fs = std::filesystem;

namespace {

using outcome = waitroom::testing_support::cli_outcome;
using waitroom::testing_support::slurp;
fs::path temp_dir() {
  return waitroom::testing_support::process_temp_dir("verdicts");
}
outcome run(const std::string& args) {
  return waitroom::testing_support::run_cli("verdicts", args);
}
std::string scenario(const std::string& name) {
  return waitroom::testing_support::scenario_path(name);
}

fs::path write_file(const std::string& name, const std::string& text) {
  const fs::path p = temp_dir() / name;
  std::ofstream(p) << text;
  return p;
}

// Two slots, sessions of 1 s on average, 2 arrivals a second: many visits go straight in
// (direct) and many queue.
const char* concurrency_scenario = R"({"name": "conc", "seed": 3,
  "classes": [{"name": "vip", "share": 0.3}, {"name": "normal", "share": 0.7}],
  "arrivals": {"process": "poisson", "rate_per_s": 2},
  "release": {"mode": "concurrency", "slots": 2,
              "session_s": {"dist": "exponential", "mean": 1}},
  "run": {"horizon_s": 60}})";

std::vector<nlohmann::json> lines_of(const fs::path& p) {
  std::vector<nlohmann::json> out;
  std::istringstream in(slurp(p));
  for (std::string line; std::getline(in, line);) out.push_back(nlohmann::json::parse(line));
  return out;
}

}  // namespace

// A direct (or refused) visit never queued, so it has no serial or token: its line must not
// carry the next queued user's, or --trace-users 0 would return them.
TEST(CensoredVerdicts, DirectVisitsCarryNoOtherUsersSerialOrToken) {
  const auto s = write_file("conc.json", concurrency_scenario);
  const auto all = temp_dir() / "all.jsonl", one = temp_dir() / "one.jsonl";
  ASSERT_EQ(run("run " + s.string() + " --trace " + all.string()).code, 0);
  ASSERT_EQ(run("run " + s.string() + " --trace " + one.string() + " --trace-users 0").code, 0);
  std::size_t direct = 0;
  std::map<std::uint64_t, std::string> token_of;
  for (const auto& l : lines_of(all)) {
    if (l["action"] == "direct") {
      ++direct;
      EXPECT_TRUE(l["user"].is_null()) << l.dump();
      EXPECT_TRUE(l["token"].is_null()) << l.dump();
      continue;
    }
    // A queued user's token is the same on every line, and its first line is its entry.
    const auto u = l["user"].get<std::uint64_t>();
    if (!token_of.count(u)) {
      EXPECT_EQ(l["action"], "enter") << l.dump();
    }
    auto [it, fresh] = token_of.emplace(u, l["token"].get<std::string>());
    EXPECT_EQ(it->second, l["token"].get<std::string>()) << l.dump();
  }
  EXPECT_GT(direct, 10u);
  ASSERT_TRUE(token_of.count(0));
  const auto mine = lines_of(one);
  ASSERT_EQ(mine.size(), 2u);  // user 0 entered and was released, nothing else
  EXPECT_EQ(mine[0]["action"], "enter");
  EXPECT_EQ(mine[1]["action"], "release");
  for (const auto& l : mine) {
    EXPECT_EQ(l["user"], 0);
    EXPECT_EQ(l["token"], token_of[0]);
  }
}

// --unset removes a key (in order with --set), --set P=null is refused
// naming --unset, and warmup_s: 0 means no warm-up.
TEST(CensoredVerdicts, UnsetRemovesAKeyAndNullIsRefused) {
  const std::string s = scenario("clinic.json");
  auto v = run("validate " + s + " --set /run/horizon_s=100 --unset /run/horizon_s");
  ASSERT_EQ(v.code, 0) << v.err;
  EXPECT_FALSE(nlohmann::json::parse(v.out)["run"].contains("horizon_s"));
  // In order: the --set after the --unset wins.
  v = run("validate " + s + " --unset /release/batch --set /release/batch=3");
  ASSERT_EQ(v.code, 0) << v.err;
  EXPECT_EQ(nlohmann::json::parse(v.out)["release"]["batch"], 3);
  // An array element: the clinic without its second class (shares then do not add up).
  v = run("validate " + s + " --unset /classes/1 --set /classes/0/share=1 --unset /sla");
  ASSERT_EQ(v.code, 0) << v.err;
  EXPECT_EQ(nlohmann::json::parse(v.out)["classes"].size(), 1u);
  auto n = run("validate " + s + " --set /run/horizon_s=null");
  EXPECT_EQ(n.code, 2);
  EXPECT_NE(n.err.find("--unset /run/horizon_s"), std::string::npos) << n.err;
  auto missing = run("run " + s + " --unset /run/horizonn_s");
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.err.find("--unset /run/horizonn_s"), std::string::npos) << missing.err;
  // Every command that takes --set takes --unset.
  for (const char* cmd : {"run", "check", "compare", "sweep", "plan", "estimate", "validate"}) {
    auto h = run(std::string(cmd) + " --help");
    EXPECT_NE(h.out.find("--unset"), std::string::npos) << cmd;
  }
  auto zero = run("run " + s + " --set /run/warmup_s=0 --format json");
  ASSERT_EQ(zero.code, 0) << zero.err;
  auto plain = run("run " + s + " --format json");
  auto a = nlohmann::json::parse(zero.out), b = nlohmann::json::parse(plain.out);
  EXPECT_EQ(a["classes"], b["classes"]);
  EXPECT_FALSE(a.contains("warmup"));
  EXPECT_FALSE(a["scenario"]["run"].contains("warmup_s"));
}

// With one user a tick and a 100 s horizon, 3,002 of 3,133 normal users are still waiting:
// check must not print "ok normal mean_wait_s <= 120" from the 131 released.
TEST(CensoredVerdicts, CheckNeverPassesATargetOnCensoredWaits) {
  const std::string args =
      "check " + scenario("clinic.json") + " --set /release/batch=1 --set /run/horizon_s=100";
  auto t = run(args);
  EXPECT_EQ(t.code, 1) << t.out << t.err;
  EXPECT_EQ(t.out.find("ok "), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("UNDECIDED normal mean_wait_s <= 120"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("still waiting at the end"), std::string::npos) << t.out;
  auto j = run(args + " --format json");
  EXPECT_EQ(j.code, 1);
  const auto doc = nlohmann::json::parse(j.out);
  EXPECT_FALSE(doc["pass"].get<bool>());
  for (const auto& target : doc["scenarios"][0]["targets"]) {
    EXPECT_FALSE(target["pass"].get<bool>()) << target.dump();
    EXPECT_NE(target["verdict"], "pass");
    EXPECT_GT(target["censored_users"].get<double>(), 0);
    EXPECT_TRUE(target["reason"].is_string());
  }
  // JUnit says why too.
  const auto xml = temp_dir() / "censored.xml";
  EXPECT_EQ(run(args + " --junit " + xml.string()).code, 1);
  EXPECT_NE(slurp(xml).find("undecided: "), std::string::npos);
  // The shipped clinic drains: every target is decided and holds.
  auto ok = run("check " + scenario("clinic.json") + " --format json");
  EXPECT_EQ(ok.code, 0) << ok.out;
  // Kept in a variable: a range-for over a temporary's member reads freed memory (ASan).
  const auto checked = nlohmann::json::parse(ok.out);
  for (const auto& target : checked.at("scenarios").at(0).at("targets"))
    EXPECT_EQ(target["verdict"], "pass");
}

// A class nobody of which is released (strict priority, VIPs saturate the tick) has no wait:
// check says "no data" and exits 1, run shows "-" and warns, never "0 [0, 0]".
TEST(CensoredVerdicts, AClassWithNoReleasedUserIsNeverMeasuredAsZero) {
  const auto s = write_file("starve.json", R"({"name": "starve", "seed": 5,
    "classes": [{"name": "vip", "share": 0.5, "level": 0}, {"name": "normal", "share": 0.5, "level": 1}],
    "arrivals": {"process": "piecewise", "segments": [{"duration_s": 60, "rate_per_s": 20}]},
    "queue": {"policy": "level"},
    "release": {"mode": "tick", "interval_ms": 1000, "batch": 1},
    "run": {"horizon_s": 60},
    "sla": {"replications": 3, "targets": [{"class": "normal", "metric": "mean_wait_s", "max": 1000},
                                          {"class": "vip", "metric": "p50_wait_s", "max": 1000}]}})");
  auto c = run("check " + s.string());
  EXPECT_EQ(c.code, 1) << c.out << c.err;
  EXPECT_NE(c.out.find("UNDECIDED normal mean_wait_s <= 1000"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("no data"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("no released user"), std::string::npos) << c.out;
  EXPECT_EQ(c.out.find("measured 0 [0, 0]"), std::string::npos) << c.out;
  auto r = run("run " + s.string());
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("warning: class normal: no released user"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("still waiting at the end"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("still waiting at the end (censored)"), std::string::npos) << r.out;
  auto j = run("run " + s.string() + " --format json");
  const auto doc = nlohmann::json::parse(j.out);
  const auto& normal = doc["classes"][1];
  EXPECT_EQ(normal["wait_s"]["count"], 0);
  EXPECT_TRUE(normal["wait_s"]["mean"].is_null());
  EXPECT_GT(normal["censored"]["count"].get<int>(), 500);
  EXPECT_GT(normal["wait_bounds_s"]["lower"]["mean"].get<double>(), 0);
  EXPECT_TRUE(normal["wait_bounds_s"]["upper"]["mean"].is_null());
  // plan marks the undecided cell with '?', and never calls the point feasible.
  auto p = run("plan " + s.string() + " --knob /release/batch --range 1:2:1");
  EXPECT_NE(p.out.find(" ?"), std::string::npos) << p.out;
  EXPECT_NE(p.out.find("no value of /release/batch in the range meets every SLA"),
            std::string::npos)
      << p.out;
  for (const char* row : {"\n           1 ", "\n           2 "}) {
    const auto at = p.out.find(row);
    ASSERT_NE(at, std::string::npos) << row << p.out;
    const std::string line = p.out.substr(at + 1, p.out.find('\n', at + 1) - at - 1);
    EXPECT_NE(line.find("fails"), std::string::npos) << line;
  }
  // CSV: an empty cell, not 0.
  auto csv = run("run " + s.string() + " --format csv");
  EXPECT_NE(csv.out.find("normal,"), std::string::npos);
}
