// `waitroom import cloudflare`: the sample room (scenarios/cloudflare) becomes a scenario
// that runs; what has no equivalent is named; bad input exits 2 naming the field.
#include <gtest/gtest.h>

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
using waitroom::testing_support::slurp;
fs::path temp_dir() {
  return waitroom::testing_support::process_temp_dir("import");
}
outcome run(const std::string& args) {
  return waitroom::testing_support::run_cli("import", args);
}

std::string sample(const std::string& name) {
  return std::string(WAITROOM_SOURCE_DIR) + "/scenarios/cloudflare/" + name;
}

}  // namespace

TEST(Import, TheSampleCloudflareRoomBecomesAScenarioThatRuns) {
  const fs::path out = temp_dir() / "imported.json";
  auto imp =
      run("import cloudflare " + sample("room.json") + " --arrivals " + sample("arrivals.json") +
          " --event " + sample("event.json") + " --out " + out.string());
  ASSERT_EQ(imp.code, 0) << imp.err;
  // Named: what the simulation has no use for, and the modelling choices.
  EXPECT_NE(imp.err.find("host: no equivalent"), std::string::npos) << imp.err;
  EXPECT_NE(imp.err.find("custom_page_html: no equivalent"), std::string::npos) << imp.err;
  EXPECT_NE(imp.err.find("revoke_on_exit"), std::string::npos) << imp.err;
  const auto s = nlohmann::json::parse(slurp(out));
  const auto& r = s["release"];
  EXPECT_EQ(r["mode"], "active_users");
  EXPECT_EQ(r["total_active_users"], 1500);
  EXPECT_EQ(r["new_users_per_minute"], 600);
  EXPECT_EQ(r["session_duration_min"], 5.0);
  EXPECT_EQ(r["queueing_method"], "fifo");
  EXPECT_EQ(r["revoke_on_exit"], true);
  EXPECT_EQ(r["event_start_s"], 600.0);  // 10:00 after a prequeue from 09:50
  EXPECT_EQ(r["shuffle_at_event_start"], true);
  EXPECT_EQ(s["queue"]["time_unit"], "min");

  auto sim = run("run " + out.string() + " --format json");
  ASSERT_EQ(sim.code, 0) << sim.err;
  const auto result = nlohmann::json::parse(sim.out);
  const auto& all = result["overall"];
  EXPECT_GT(all["released"].get<double>(), 0);
  EXPECT_EQ(all["arrived"], all["released"]);  // everyone is let in by the end
}

TEST(Import, WithoutArrivalsOrALimitItExitsTwoNamingWhatIsMissing) {
  auto no_arrivals = run("import cloudflare " + sample("room.json"));
  EXPECT_EQ(no_arrivals.code, 2);
  EXPECT_NE(no_arrivals.err.find("--arrivals"), std::string::npos) << no_arrivals.err;

  const fs::path bad = temp_dir() / "no_limit.json";
  std::ofstream(bad) << R"({"name": "x", "new_users_per_minute": 300})";
  auto no_limit =
      run("import cloudflare " + bad.string() + " --arrivals " + sample("arrivals.json"));
  EXPECT_EQ(no_limit.code, 2);
  EXPECT_NE(no_limit.err.find("/total_active_users"), std::string::npos) << no_limit.err;

  auto other = run("import akamai " + sample("room.json"));
  EXPECT_EQ(other.code, 2);
  EXPECT_NE(other.err.find("cloudflare ROOM.json"), std::string::npos) << other.err;
}
