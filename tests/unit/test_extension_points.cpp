// The tables behind the extension points (docs/ARCHITECTURE.md, "Recipes"): every kind has
// its row, the schema and the Redis chooser take their lists from the same table, and each
// arrival process answers for itself what the scenario reader and memory estimate ask.
#include <gtest/gtest.h>

#include <fstream>
#include <limits>
#include <sstream>

#include "models/release/selection.hpp"
#include "models/scenario/scenario.hpp"
#include "support/test_support.hpp"

using namespace waitroom;

TEST(SelectionTable, EveryKindHasItsOwnRowInTheEnumsOrder) {
  const auto& rows = models::selection_policies();
  ASSERT_EQ(rows.size(), models::all_selection_kinds.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].kind, models::all_selection_kinds[i]) << rows[i].name;
    EXPECT_EQ(models::selection_policy_of(rows[i].kind).name, rows[i].name);
    EXPECT_FALSE(rows[i].name.empty());
    for (std::size_t j = 0; j < i; ++j) EXPECT_NE(rows[j].name, rows[i].name);
    EXPECT_FALSE(rows[i].doc.empty()) << rows[i].name;
  }
}

TEST(SelectionTable, TheSchemaListsExactlyTheTablesKinds) {
  std::ifstream f(testing_support::source_path("scenarios/scenario.schema.json"));
  std::stringstream text;
  text << f.rdbuf();
  const auto schema = models::parse_json_text(text.str(), "scenario.schema.json");
  const auto& kinds = schema.at(nlohmann::json::json_pointer(
      "/properties/release/properties/selection/properties/kind/enum"));
  std::vector<std::string> in_schema = kinds.get<std::vector<std::string>>();
  EXPECT_EQ(in_schema, models::selection_policy_names());
}

TEST(SelectionTable, TheRedisChooserTakesThePoliciesThatNameAScript) {
  std::vector<std::string> chosen;
  for (const auto& p : models::selection_policies())
    if (!p.redis_choose.empty()) chosen.emplace_back(p.redis_choose);
  // The choose script (redis/scripts) implements these three; a policy that names another
  // would be sent to a script that refuses it.
  EXPECT_EQ(chosen, (std::vector<std::string>{"strict", "ratio", "probabilistic"}));
}

namespace {
models::arrival_spec poisson(double rate) {
  models::arrival_spec a;
  a.kind = models::arrival_kind::poisson;
  a.rate_per_s = rate;
  return a;
}
}  // namespace

TEST(ArrivalProcess, EachKindAnswersItsRatesAndWhetherItEnds) {
  auto p = poisson(25);
  EXPECT_TRUE(p.open_ended());
  EXPECT_TRUE(p.poisson());
  EXPECT_EQ(p.final_rate_per_s(), 25);
  EXPECT_EQ(p.max_rate_per_s(), 25);
  EXPECT_FALSE(p.none());
  EXPECT_TRUE(poisson(0).none());

  models::arrival_spec w;
  w.kind = models::arrival_kind::piecewise;
  w.segments = {{60.0, 1000.0}, {120.0, 10.0}};
  EXPECT_FALSE(w.open_ended());
  EXPECT_TRUE(w.poisson());
  EXPECT_EQ(w.max_rate_per_s(), 1000);
  EXPECT_EQ(w.final_rate_per_s(), 10);
  w.segments.back().duration_s = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(w.open_ended());

  models::arrival_spec r;
  r.kind = models::arrival_kind::renewal;
  r.interarrival_s = sim::distribution::constant(0.25);
  EXPECT_TRUE(r.open_ended());
  EXPECT_FALSE(r.poisson());
  EXPECT_EQ(r.final_rate_per_s(), 4);
  EXPECT_EQ(r.max_rate_per_s(), 4);
  EXPECT_FALSE(r.none());

  models::arrival_spec t;
  t.kind = models::arrival_kind::trace;
  EXPECT_TRUE(t.none());
  for (double s : {0.0, 0.1, 0.5, 0.9, 1.5, 3.0})
    t.trace.push_back({sim::sim_time::from_seconds(s), 0, 0});
  EXPECT_FALSE(t.open_ended());
  EXPECT_FALSE(t.poisson());
  EXPECT_EQ(t.final_rate_per_s(), 0);
  EXPECT_EQ(t.max_rate_per_s(), 4);  // 0, 0.1, 0.5, 0.9 within one second
  EXPECT_FALSE(t.none());
}
