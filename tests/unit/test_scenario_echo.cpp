// The effective scenario the program echoes (`validate`, every result's "scenario") must read
// back as the same scenario: written, read again and written again, byte for byte.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "models/scenario/scenario.hpp"
#include "sim/input_error.hpp"

using namespace waitroom;
namespace fs = std::filesystem;

namespace {

// Reads `j`, writes it back, reads that and writes it again: both writes must be equal.
void expect_round_trip(const nlohmann::json& j, const std::string& name, const std::string& dir) {
  SCOPED_TRACE(name);
  const models::scenario s = models::parse_scenario(j, name, dir);
  const nlohmann::json echoed = models::to_json(s);
  models::scenario again;
  try {
    again = models::parse_scenario(echoed, name + " (echoed)", dir);
  } catch (const sim::input_error& e) {
    FAIL() << "the echoed scenario is refused: " << e.what() << "\n" << echoed.dump(2);
  }
  EXPECT_EQ(models::to_json(again), echoed);
}

}  // namespace

TEST(ScenarioEcho, EveryShippedScenarioReadsBack) {
  const fs::path dir = fs::path(WAITROOM_SOURCE_DIR) / "scenarios";
  int seen = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".json" || entry.path().filename() == "scenario.schema.json")
      continue;
    ++seen;
    expect_round_trip(models::read_json_file(entry.path().string()), entry.path().string(),
                      dir.string());
  }
  EXPECT_GE(seen, 20);
}

// The defect: a lottery (tick selection, or active_users' random queueing) echoed the implicit
// list as /queue/lists, which the reader refuses beside a lottery.
TEST(ScenarioEcho, ALotteryEchoesNoQueueLists) {
  const auto lottery = nlohmann::json::parse(R"({"name": "lottery", "seed": 3,
    "classes": [{"name": "vip", "share": 0.1}, {"name": "normal", "share": 0.9}],
    "arrivals": {"process": "poisson", "rate_per_s": 100},
    "release": {"mode": "tick", "interval_ms": 200, "batch": 5,
                "selection": {"kind": "lottery", "class_weights": {"vip": 5, "normal": 1}}},
    "run": {"horizon_s": 10}})");
  EXPECT_FALSE(
      models::to_json(models::parse_scenario(lottery, "l.json", "."))["queue"].contains("lists"));
  expect_round_trip(lottery, "lottery", ".");
  const auto random = nlohmann::json::parse(R"({"name": "random", "seed": 3,
    "classes": [{"name": "all", "share": 1}],
    "arrivals": {"process": "poisson", "rate_per_s": 10},
    "release": {"mode": "active_users", "total_active_users": 50, "new_users_per_minute": 60,
                "session_duration_min": 5, "queueing_method": "random"},
    "run": {"horizon_s": 60}})");
  expect_round_trip(random, "random", ".");
  // A fifo list order still echoes its lists.
  auto fifo = lottery;
  fifo["release"].erase("selection");
  EXPECT_TRUE(
      models::to_json(models::parse_scenario(fifo, "f.json", "."))["queue"].contains("lists"));
  expect_round_trip(fifo, "fifo", ".");
}
