// Bad scenarios get one clear message: file, JSON pointer, expected, found.
#include <gtest/gtest.h>

#include "models/json/json_reader.hpp"
#include "models/scenario/scenario.hpp"
#include "sim/input_error.hpp"
#include "support/test_support.hpp"

using namespace waitroom;
using testing_support::scenario_from;

namespace {

const std::string good = R"({"name": "t",
  "classes": [{"name": "vip", "share": 0.2, "offset_ms": 10000}, {"name": "normal", "share": 0.8}],
  "arrivals": {"process": "poisson", "rate_per_s": 10},
  "queue": {"policy": "offset"},
  "release": {"mode": "tick", "interval_ms": 200, "batch": 5},
  "run": {"horizon_s": 100}})";

// Applies --set style overrides to the good scenario and expects the exact message.
void expect_error(const std::vector<std::string>& sets, const std::string& message) {
  auto j = models::parse_json_text(good, "test.json");
  try {
    for (const auto& s : sets) models::apply_override(j, s);
    models::parse_scenario(j, "test.json", ".");
    ADD_FAILURE() << "no error for " << sets.front();
  } catch (const sim::input_error& e) {
    EXPECT_EQ(std::string(e.what()), message);
  }
}

}  // namespace

TEST(Scenario, GoodScenarioLoadsWithDefaults) {
  auto s = scenario_from(good);
  EXPECT_EQ(s.classes.size(), 2u);
  EXPECT_EQ(s.policy.order, models::ordering::offset);
  EXPECT_EQ(s.policy.unit, models::time_unit::ms);
  EXPECT_DOUBLE_EQ(s.policy.offset_units[0], 10000.0);
  EXPECT_DOUBLE_EQ(s.classes[1].level, 1.0);  // default level is the class's position
  EXPECT_EQ(s.release.batch, 5u);
  EXPECT_EQ(s.release.interval, sim::sim_time::from_ms(200));
  // The effective scenario reads back to the same scenario.
  auto again = models::parse_scenario(models::to_json(s), "echo.json", ".");
  EXPECT_EQ(models::to_json(again), models::to_json(s));
}

TEST(Scenario, UnknownKeySuggestsTheNearest) {
  expect_error({"/relase={}"},
               "test.json: /relase: expected a known key, found unknown key 'relase' (did you "
               "mean 'release'?)");
  expect_error({"/release/intervall_ms=100"},
               "test.json: /release/intervall_ms: expected a known key, found unknown key "
               "'intervall_ms' (did you mean 'interval_ms'?)");
  expect_error({"/zzz=1"},
               "test.json: /zzz: expected a known key, found unknown key 'zzz' (valid keys here: "
               "$schema, name, description, seed, classes, arrivals, queue, skus, release, "
               "admission, backend, returns, polling, run, sla, redis)");
}

TEST(Scenario, WrongTypesAndRanges) {
  expect_error({"/release/batch=\"ten\""},
               "test.json: /release/batch: expected an integer from 1 to 2147483648, found a "
               "string (\"ten\")");
  expect_error({"/release/batch=2.5"},
               "test.json: /release/batch: expected an integer from 1 to 2147483648, found a "
               "number (2.5)");
  expect_error({"/arrivals/rate_per_s=-3"},
               "test.json: /arrivals/rate_per_s: expected a number > 0 and <= 1000000000, found a "
               "number (-3)");
  expect_error({"/release/interval_ms=0"},
               "test.json: /release/interval_ms: expected a number > 0 and <= 3153600000000, "
               "found a number (0)");
  expect_error({"/classes/1/share=0.7"},
               "test.json: /classes: expected class shares that sum to 1, found a sum of 0.9");
  expect_error({"/classes/1/name=\"vip\""},
               "test.json: /classes/1/name: expected a name not used by another class, found "
               "\"vip\" again");
  expect_error({"/queue/policy=\"fifoo\""},
               "test.json: /queue/policy: expected one of: fifo, offset, level, found a string "
               "(\"fifoo\") (did you mean 'fifo'?)");
  expect_error({"/classes=[]"},
               "test.json: /classes: expected an array of at least 1 item, found an array ([])");
  expect_error({"/run/horizon_s=1e9"},
               "test.json: /run/horizon_s: expected a horizon with fewer than 2^31 expected "
               "users, found 1000000000 s at 10 users/s");
  expect_error({"/run/sample_interval_s=0.000001"},
               "test.json: /run/sample_interval_s: expected at most 10000000 samples over the "
               "horizon, found 1e-06 s over 100 s");
  expect_error({"/run={}"},
               "test.json: /run/horizon_s: expected a horizon, since Poisson arrivals never end, "
               "found none");
}

TEST(Scenario, KeysOfAnotherModeAreNamed) {
  expect_error({"/release/slots=4"},
               "test.json: /release/slots: expected no 'slots' in release mode 'tick', found "
               "'slots' ('slots' belongs to mode 'concurrency')");
  expect_error({"/arrivals/segments=[]"},
               "test.json: /arrivals/segments: expected no 'segments' for process 'poisson', found "
               "'segments' ('segments' belongs to process 'piecewise')");
}

TEST(Scenario, SurgeSettingsAreChecked) {
  const std::string surge = R"(/arrivals={"process":"surge","peak_rate_per_s":100,)";
  expect_error({surge + R"("base_rate_per_s":150,"half_life_s":10,"duration_s":60})"},
               "test.json: /arrivals/base_rate_per_s: expected a base rate at most "
               "peak_rate_per_s (100): the surge decays from the peak to the base, found a "
               "number (150)");
  expect_error({surge + R"("half_life_s":0,"duration_s":60})"},
               "test.json: /arrivals/half_life_s: expected a number > 0 and <= 3153600000, found "
               "a number (0)");
  expect_error({surge + R"("half_life_s":-5,"duration_s":60})"},
               "test.json: /arrivals/half_life_s: expected a number > 0 and <= 3153600000, found "
               "a number (-5)");
  expect_error({surge + R"("base_rate_per_s":-1,"half_life_s":10,"duration_s":60})"},
               "test.json: /arrivals/base_rate_per_s: expected a number >= 0 and <= 1000000000, "
               "found a number (-1)");
  expect_error({surge + R"("half_life_s":10,"duration_s":0})"},
               "test.json: /arrivals/duration_s: expected a number > 0 and <= 3153600000, found "
               "a number (0)");
  expect_error({surge + R"("duration_s":60})"},
               "test.json: /arrivals/half_life_s: expected a number > 0 and <= 3153600000, found "
               "nothing (the key is required)");
  expect_error({R"(/arrivals={"process":"surge","half_life_s":10})"},
               "test.json: /arrivals/peak_rate_per_s: expected a number > 0 and <= 1000000000, "
               "found nothing (the key is required)");
  expect_error({surge + R"("half_life_s":10,"rate_per_s":5})"},
               "test.json: /arrivals/rate_per_s: expected no 'rate_per_s' for process 'surge', "
               "found 'rate_per_s' ('rate_per_s' belongs to process 'poisson')");
  expect_error({"/arrivals/half_life_s=10"},
               "test.json: /arrivals/half_life_s: expected no 'half_life_s' for process "
               "'poisson', found 'half_life_s' ('half_life_s' belongs to process 'surge')");
  // 1e9 users/s halving every 95 years would bring 1e9 x 3e9 / ln 2 = 4.3e18 users.
  expect_error({R"(/arrivals={"process":"surge","peak_rate_per_s":1e9,"half_life_s":3e9})"},
               "test.json: /arrivals/peak_rate_per_s: expected fewer than 2^31 expected users in "
               "one run (with backlog_users), found 4.33e+18 expected");
  // With a base rate and no duration arrivals never end: a horizon is needed.
  expect_error({surge + R"("base_rate_per_s":5,"half_life_s":10})", "/run={}"},
               "test.json: /run/horizon_s: expected a horizon, since Poisson arrivals never end, "
               "found none");
}

TEST(Scenario, ListsAndSelectionsAreChecked) {
  const std::string two =
      R"(/queue/lists=[{"name":"v","classes":["vip"]},{"name":"n","classes":["normal"]}])";
  expect_error({R"(/queue/lists=[{"name":"v","classes":["vip"]}])"},
               "test.json: /queue/lists: expected a list for every user, found class 'normal' in "
               "none");
  expect_error({R"(/queue/lists=[{"name":"v","classes":["vip","gold"]}])"},
               "test.json: /queue/lists/0/classes/1: expected the name of a class in /classes, "
               "found a string (\"gold\")");
  expect_error(
      {R"(/queue/lists=[{"name":"v","classes":["vip"]},{"name":"n","classes":["normal","vip"]}])"},
      "test.json: /queue/lists/1/classes/1: expected a class in one list only, found 'vip', "
      "already in list 0");
  expect_error(
      {R"(/queue/lists=[{"name":"v","classes":["vip"],"max_wait_s":5},{"name":"n","classes":["normal"]}])"},
      "test.json: /queue/lists/0/max_wait_s: expected no aging on the first list (there is no "
      "list above it), found 5");
  expect_error({two, R"(/release/selection={"kind":"ratio","weights":[7]})"},
               "test.json: /release/selection/weights: expected 2 numbers, one per list, found an "
               "array ([7])");
  expect_error({two, R"(/release/selection={"kind":"ratio","weights":[0,0]})"},
               "test.json: /release/selection/weights: expected at least one weight above 0, found "
               "an array ([0,0])");
  expect_error(
      {two, R"(/release/selection={"kind":"probabilistic","start_probabilities":[0.5,0.6]})"},
      "test.json: /release/selection/start_probabilities: expected probabilities that sum to 1, "
      "found a sum of 1.1");
  expect_error({two, R"(/release/selection={"kind":"strict","weights":[1,1]})"},
               "test.json: /release/selection/weights: expected no 'weights' for selection "
               "'strict', found 'weights' ('weights' belongs to selection 'ratio')");
  expect_error(
      {two,
       R"(/release/selection={"kind":"ratio","weights":[1,1],"schedule":[{"at_s":5,"weights":[1,1]},{"at_s":5,"weights":[1,0]}]})"},
      "test.json: /release/selection/schedule/1/at_s: expected a time after 5, found a number (5)");
  expect_error({R"(/release/selection={"kind":"lottery","class_weights":{"vip":5}})"},
               "test.json: /release/selection/class_weights/normal: expected a number > 0 and <= "
               "1000000000000, found nothing (the key is required)");
  expect_error(
      {two, R"(/release/selection={"kind":"lottery","class_weights":{"vip":5,"normal":1}})"},
      "test.json: /release/selection: expected no /queue/lists with a lottery (it draws from all "
      "waiting users), found a lottery and /queue/lists");
  expect_error(
      {two,
       R"(/release={"mode":"concurrency","slots":2,"session_s":{"dist":"exponential","mean":1},"selection":{"kind":"ratio","weights":[1,1],"work_conserving":false}})"},
      "test.json: /release/selection/work_conserving: expected true in concurrency mode (a free "
      "slot always takes a waiting user), found false");
}

TEST(Scenario, SkuRoutingIsChecked) {
  const std::string skus = R"(/skus=[{"name":"a","share":0.5},{"name":"b","share":0.5}])";
  expect_error({R"(/queue/lists=[{"name":"a","skus":["a"]}])"},
               "test.json: /queue/lists/0/skus: expected no 'skus' here unless /skus lists them, "
               "found [\"a\"]");
  expect_error({skus, R"(/queue/lists=[{"name":"a","skus":["a"]}])"},
               "test.json: /queue/lists: expected a list for every user, found class 'vip' buying "
               "'b' in none");
  expect_error(
      {skus, R"(/queue/lists=[{"name":"all","skus":["a","b"]},{"name":"v","classes":["vip"]}])"},
      "test.json: /queue/lists/1: expected a list that some users reach, found 'v': every "
      "user it names goes to an earlier list");
  expect_error(
      {skus, R"(/queue/lists=[{"name":"x"}])"},
      "test.json: /queue/lists/0/classes: expected 'classes' or 'skus' (who goes into this "
      "list), found neither");
  expect_error({R"(/skus=[{"name":"a","share":0.5}])"},
               "test.json: /skus: expected SKU shares that sum to 1, found a sum of 0.5");
  expect_error({R"(/release/selection={"kind":"scheduler","age_weight":0})"},
               "test.json: /release/selection/age_weight: expected age_weight or length_weight "
               "above 0, found both 0");
}

TEST(Scenario, DistributionsAreChecked) {
  expect_error({"/release={\"mode\":\"concurrency\",\"slots\":2,\"session_s\":{\"dist\":"
                "\"exponential\",\"mean\":0}}"},
               "test.json: /release/session_s/mean: expected a number > 0 and <= 3153600000, found "
               "a number (0)");
  expect_error({"/release={\"mode\":\"concurrency\",\"slots\":2,\"session_s\":{\"dist\":"
                "\"exponential\",\"scale\":1}}"},
               "test.json: /release/session_s/scale: expected a parameter of the exponential "
               "distribution (mean), found 'scale'");
  expect_error({"/release={\"mode\":\"concurrency\",\"slots\":2,\"session_s\":{\"dist\":"
                "\"pareto\"}}"},
               "test.json: /release/session_s/dist: expected one of: deterministic, exponential, "
               "uniform, normal, lognormal, gamma, erlang, empirical, weibull, found a "
               "string (\"pareto\")");
}

TEST(Scenario, ArrayItemsAreNamedByIndex) {
  expect_error({"/release={\"mode\":\"concurrency\",\"slots\":2,\"session_s\":{\"dist\":"
                "\"empirical\",\"samples\":[1,-1]}}"},
               "test.json: /release/session_s/samples/1: expected a number >= 0, found a number "
               "(-1)");
}

TEST(Scenario, MalformedJsonGivesLineAndColumn) {
  try {
    models::parse_json_text("{\n  \"name\": \"x\",\n  oops\n}", "bad.json");
    ADD_FAILURE();
  } catch (const sim::input_error& e) {
    EXPECT_EQ(e.where(), "bad.json: line 3, column 3");
    EXPECT_EQ(e.expected(), "well-formed JSON");
  }
  EXPECT_THROW(models::read_json_file("/nonexistent/scenario.json"), sim::input_error);
}

TEST(Scenario, OverridesNeedAPointerAndValue) {
  auto j = models::parse_json_text(good, "t");
  EXPECT_THROW(models::apply_override(j, "release/batch=3"), sim::input_error);
  EXPECT_THROW(models::apply_override(j, "/release/batch"), sim::input_error);
  models::apply_override(j, "/queue/policy=fifo");  // a bare word is a string
  EXPECT_EQ(j["queue"]["policy"], "fifo");
  models::apply_override(j, "/release/batch=7");
  EXPECT_EQ(j["release"]["batch"], 7);
}

TEST(Scenario, NearestSuggestsOnlyPlausibleTypos) {
  EXPECT_EQ(models::nearest("relase", {"release", "run"}), "release");
  EXPECT_EQ(models::nearest("qqqqqqqq", {"release", "run"}), "");
  EXPECT_EQ(models::edit_distance("kitten", "sitting"), 3u);
}

#include <fstream>
#include <set>
#include <sstream>

// The JSON Schema shipped for editors lists exactly the keys the loader accepts: the
// loader names its valid keys when it meets an unknown one.
TEST(Scenario, SchemaListsExactlyTheKeysTheLoaderAccepts) {
  std::ifstream f(testing_support::source_path("scenarios/scenario.schema.json"));
  std::stringstream text;
  text << f.rdbuf();
  auto schema = models::parse_json_text(text.str(), "scenario.schema.json");
  struct place {
    std::string override_prefix;  // where to put the unknown key
    std::string schema_pointer;   // the matching "properties" in the schema
    std::vector<std::string> setup;
  };
  std::vector<place> places = {
      {"", "/properties", {}},
      {"/classes/0", "/properties/classes/items/properties", {}},
      {"/arrivals", "/properties/arrivals/properties", {}},
      {"/arrivals/segments/0",
       "/properties/arrivals/properties/segments/items/properties",
       {"/arrivals={\"process\":\"piecewise\",\"segments\":[{\"duration_s\":1,\"rate_per_s\":1}]"
        "}"}},
      {"/queue", "/properties/queue/properties", {}},
      {"/release", "/properties/release/properties", {}},
      {"/run", "/properties/run/properties", {}},
      {"/admission", "/properties/admission/properties", {"/admission={\"stock\":5}"}},
      {"/returns",
       "/properties/returns/properties",
       {"/returns={\"probability\":0.5,\"delay_s\":{\"dist\":\"exponential\",\"mean\":1}}"}},
      {"/queue/compensation",
       "/properties/queue/properties/compensation/properties",
       {"/queue/compensation={\"offset_ms\":10000}"}},
      {"/queue/lists/0",
       "/properties/queue/properties/lists/items/properties",
       {"/queue/lists=[{\"name\":\"all\",\"classes\":[\"vip\",\"normal\"]}]"}},
      {"/release/selection",
       "/properties/release/properties/selection/properties",
       {"/release/selection={\"kind\":\"strict\"}"}},
      {"/skus/0", "/properties/skus/items/properties", {"/skus=[{\"name\":\"a\"}]"}},
      {"/backend",
       "/properties/backend/properties",
       {"/backend={\"workers\":1,\"service_s\":{\"dist\":\"exponential\",\"mean\":1}}"}},
      {"/release/controller",
       "/properties/release/properties/controller/properties",
       {"/release/controller={\"kind\":\"fixed\"}"}},
      {"/redis", "/properties/redis/properties", {"/redis={}"}},
  };
  for (const auto& p : places) {
    SCOPED_TRACE(p.schema_pointer);
    auto j = models::parse_json_text(good, "test.json");
    for (const auto& s : p.setup) models::apply_override(j, s);
    models::apply_override(j, p.override_prefix + "/zzzz_unknown=1");
    std::string message;
    try {
      models::parse_scenario(j, "test.json", ".");
    } catch (const sim::input_error& e) {
      message = e.what();
    }
    auto at = message.find("valid keys here: ");
    ASSERT_NE(at, std::string::npos) << message;
    std::string list = message.substr(at + 17, message.size() - at - 18);
    std::set<std::string> loader;
    std::stringstream ss(list);
    for (std::string k; std::getline(ss, k, ',');)
      loader.insert(k.substr(k.find_first_not_of(' ')));
    std::set<std::string> documented;
    for (const auto& [k, v] : schema[nlohmann::json::json_pointer(p.schema_pointer)].items())
      documented.insert(k);
    EXPECT_EQ(loader, documented);
  }
}

TEST(Scenario, PollingAndBackendKeysAreChecked) {
  expect_error({R"(/polling={"interval_s": 3, "suggest": [{"interval_s": 2}]})"},
               "test.json: /polling/interval_s: expected either a fixed interval_s or suggested "
               "intervals, not both, found both");
  expect_error({R"(/polling={"suggest": [{"above": 5, "interval_s": 2}]})"},
               "test.json: /polling/suggest/0/above: expected 0 for the first step (it covers an "
               "empty queue), found 5");
  expect_error({R"(/polling={"suggest": [{"interval_s": 5}, {"above": 0, "interval_s": 2}]})"},
               "test.json: /polling/suggest/1/above: expected more than 0, found 0");
  expect_error({R"(/polling={"follow_share": 2})"},
               "test.json: /polling/follow_share: expected a number >= 0 and <= 1, found a number "
               "(2)");
  expect_error({R"(/backend={"workers": 2, "service_s": {"dist": "exponential", "mean": 1},
                             "discipline": "lifo"})"},
               "test.json: /backend/discipline: expected one of: fifo, ps, found a string "
               "(\"lifo\") (did you mean 'fifo'?)");
  expect_error({R"(/polling={"interval_s": 3})", "/run/horizon_s=2000000"},
               "test.json: /run/horizon_s: expected at most 1000000 s with polling (its Redis "
               "commands are counted per second), found 2000000 s");
  // The effective scenario of a polling run reads back to itself.
  auto j = models::parse_json_text(good, "test.json");
  models::apply_override(
      j, R"(/polling={"suggest": [{"interval_s": 5}, {"above": 100, "interval_s": 2}],
                      "cache_s": 10, "start_jitter_s": 1})");
  auto s = models::parse_scenario(j, "test.json", ".");
  ASSERT_TRUE(s.polling);
  EXPECT_EQ(s.polling->suggest.size(), 2u);
  auto again = models::parse_scenario(models::to_json(s), "echo.json", ".");
  EXPECT_EQ(models::to_json(again), models::to_json(s));
}

TEST(Scenario, ReleaseConsumersAndAtomicAreCheckedAndEchoed) {
  // Defaults: one releaser, the atomic script; not echoed, so results keep their bytes.
  auto plain = scenario_from(good);
  EXPECT_EQ(plain.release.consumers, 1u);
  EXPECT_TRUE(plain.release.atomic);
  EXPECT_FALSE(models::to_json(plain)["release"].contains("consumers"));
  EXPECT_FALSE(models::to_json(plain)["release"].contains("atomic"));
  auto j = models::parse_json_text(good, "test.json");
  models::apply_override(j, "/release/consumers=8");
  models::apply_override(j, "/release/atomic=false");
  auto s = models::parse_scenario(j, "test.json", ".");
  EXPECT_EQ(s.release.consumers, 8u);
  EXPECT_FALSE(s.release.atomic);
  auto echo = models::to_json(s);
  EXPECT_EQ(echo["release"]["consumers"], 8);
  EXPECT_EQ(echo["release"]["atomic"], false);
  auto again = models::parse_scenario(echo, "echo.json", ".");
  EXPECT_EQ(models::to_json(again), echo);
  expect_error({"/release/consumers=0"},
               "test.json: /release/consumers: expected an integer from 1 to 1024, found a "
               "number (0)");
  expect_error({"/release/atomic=\"no\""},
               "test.json: /release/atomic: expected true or false, found a string (\"no\")");
  expect_error(
      {R"(/release/selection={"kind": "lottery", "class_weights": {"vip": 2, "normal": 1}})",
       "/release/consumers=4"},
      "test.json: /release/consumers: expected the defaults with a lottery (the model "
      "draws each member and the script removes exactly it), found 4");
}

// Release capacity in users per second: the batch is rate x interval rounded to a user (at
// least 1), the interval then batch / rate to the nanosecond (hand computations below).
TEST(Scenario, ReleaseRatePerSecondBecomesABatchAndAnInterval) {
  auto with = [](const std::vector<std::string>& sets) {
    auto j = models::parse_json_text(good, "test.json");
    models::apply_unset(j, "/release/batch");
    for (const auto& s : sets) models::apply_override(j, s);
    return models::parse_scenario(j, "test.json", ".");
  };
  auto s = with({"/release/rate_per_s=80"});  // 80 x 0.2 s = 16 every 200 ms
  EXPECT_EQ(s.release.batch, 16u);
  EXPECT_EQ(s.release.interval.ns(), 200'000'000);
  s = with({"/release/rate_per_s=2.5"});  // 0.5 rounds to 1 (at least 1): every 400 ms
  EXPECT_EQ(s.release.batch, 1u);
  EXPECT_EQ(s.release.interval.ns(), 400'000'000);
  s = with({"/release/rate_per_s=52.39"});  // 10.478 -> 10, every 10 / 52.39 s
  EXPECT_EQ(s.release.batch, 10u);
  EXPECT_EQ(s.release.interval.ns(), 190'876'121);
  s = with({"/release/rate_per_s=250", "/release/interval_ms=1000"});  // the interval given
  EXPECT_EQ(s.release.batch, 250u);
  EXPECT_EQ(s.release.interval.ns(), 1'000'000'000);
  // Written back as the batch and interval it became, which read the same.
  const auto echoed = models::to_json(with({"/release/rate_per_s=52.39"}));
  EXPECT_EQ(echoed["release"]["batch"], 10);
  EXPECT_FALSE(echoed["release"].contains("rate_per_s"));
  const auto again = models::parse_scenario(echoed, "echo.json", ".");
  EXPECT_EQ(again.release.interval.ns(), 190'876'121);

  expect_error({"/release/rate_per_s=80"},
               "test.json: /release/rate_per_s: expected rate_per_s or batch, not both (to plan "
               "over the rate of a scenario with a batch: --unset /release/batch), found both");
  try {
    with({"/release/rate_per_s=0"});
    ADD_FAILURE() << "a rate of 0 was accepted";
  } catch (const sim::input_error& e) {
    EXPECT_EQ(e.where(), "test.json: /release/rate_per_s");
  }
}
