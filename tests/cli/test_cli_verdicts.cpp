// The program as a user runs it, for issue 12's verdict items: censored waits never pass a
// target, every statistic honours the warm-up, the trace of concurrency runs, --unset.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include <unistd.h>

#include <nlohmann/json.hpp>

namespace fs = std::filesystem;

namespace {

struct outcome {
  int code;
  std::string out, err;
};

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

fs::path temp_dir() {
  fs::path dir = fs::path(testing::TempDir()) / ("waitroom_verdicts_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

// Every spawned program gets a time limit (coreutils' timeout exits 124 when it fires).
outcome run(const std::string& args) {
  static int n = 0;
  const fs::path dir = temp_dir();
  const fs::path out = dir / ("out" + std::to_string(n) + ".txt");
  const fs::path err = dir / ("err" + std::to_string(n++) + ".txt");
  const std::string cmd = "timeout -k 5 60 " + std::string(WAITROOM_BINARY) + " " + args + " >" +
                          out.string() + " 2>" + err.string() + " </dev/null";
  const int status = std::system(cmd.c_str());
  EXPECT_NE(WEXITSTATUS(status), 124) << "waitroom " << args << " timed out";
  return {WEXITSTATUS(status), slurp(out), slurp(err)};
}

std::string scenario(const std::string& name) {
  return std::string(WAITROOM_SOURCE_DIR) + "/scenarios/" + name;
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

// Issue 12 item 8: a direct (or refused) visit never queued, so it has no serial or token;
// its line used to carry the next queued user's, and --trace-users 0 returned them.
TEST(CliVerdicts, DirectVisitsCarryNoOtherUsersSerialOrToken) {
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

// Issue 12 item 9: --unset removes a key (in order with --set), --set P=null is refused
// naming --unset, and warmup_s: 0 means no warm-up.
TEST(CliVerdicts, UnsetRemovesAKeyAndNullIsRefused) {
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
