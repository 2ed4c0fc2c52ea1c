// The clock's range, products of durations past it refused at load, and the strict JSON
// reader.
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "models/json/json_text.hpp"
#include "models/room/room.hpp"
#include "models/scenario/scenario.hpp"
#include "sim/input_error.hpp"
#include "sim/text_file.hpp"
#include "sim/time.hpp"
#include "support/test_support.hpp"
#include "support/trace_file.hpp"

using waitroom::sim::sim_time;

TEST(ClockRange, TimesPastTheClockSaturateInsteadOfWrapping) {
  constexpr auto top = std::numeric_limits<std::int64_t>::max();
  // 300 years does not fit in int64 nanoseconds: the largest time, never a negative one.
  EXPECT_EQ(sim_time::from_seconds(300.0 * 365 * 86400).ns(), top);
  EXPECT_EQ(sim_time::from_seconds(std::numeric_limits<double>::infinity()).ns(), top);
  EXPECT_EQ(sim_time::from_seconds(std::numeric_limits<double>::quiet_NaN()).ns(), top);
  EXPECT_EQ(sim_time::from_ms(3153600000000.0 * 3).ns(), top);
  const auto century = sim_time::from_seconds(100.0 * 365 * 86400);
  EXPECT_GT(century.ns(), 0);
  EXPECT_EQ((century + century + century).ns(), top);
  auto t = century;
  t += century;
  t += century;
  EXPECT_EQ(t.ns(), top);
  EXPECT_EQ(sim_time::add_ns(top - 1, 5), top);
  EXPECT_EQ(sim_time::mul_ns(top / 2, 3), top);
  // Inside the range nothing changes: exact rounding as before.
  EXPECT_EQ(sim_time::from_seconds(1.5).ns(), 1'500'000'000);
  EXPECT_EQ((sim_time::from_ns(7) + sim_time::from_ns(8)).ns(), 15);
}

TEST(StrictJson, DepthRepeatedKeysAndOverflowAreInputErrors) {
  using waitroom::models::parse_json_strict;
  using waitroom::sim::input_error;
  EXPECT_EQ(parse_json_strict(R"({"a": [1, {"b": 2}]})", "f")["a"][1]["b"], 2);
  const std::string ok_depth(255, '[');
  EXPECT_NO_THROW(parse_json_strict(ok_depth + std::string(255, ']'), "f"));
  try {
    parse_json_strict(std::string(70000, '[') + std::string(70000, ']'), "f");
    FAIL();
  } catch (const input_error& e) {
    EXPECT_NE(e.expected().find("nested at most 256"), std::string::npos) << e.what();
  }
  try {
    parse_json_strict(R"({"a": [0, {"x": 1, "y": {"b": 1, "b": 2}}]})", "f.json");
    FAIL();
  } catch (const input_error& e) {
    EXPECT_EQ(e.where(), "f.json: /a/1/y/b") << e.what();
  }
  try {
    parse_json_strict("{\n  \"a\": 1e400}", "f.json");
    FAIL();
  } catch (const input_error& e) {
    EXPECT_EQ(e.where(), "f.json: line 2, column 8") << e.what();
  }
  EXPECT_FALSE(waitroom::models::looks_like_json("fifo"));
  EXPECT_TRUE(waitroom::models::looks_like_json("[1]"));
}

TEST(StrictText, ByteOrderMarksUtf16AndNulBytesAreNamed) {
  using waitroom::sim::check_text;
  using waitroom::sim::input_error;
  EXPECT_NO_THROW(check_text("{}", "f"));
  EXPECT_THROW(check_text("\xEF\xBB\xBF{}", "f"), input_error);
  EXPECT_THROW(check_text(std::string("{\0}\0", 4), "f"), input_error);
  EXPECT_THROW(check_text("\xFF\xFE{", "f"), input_error);
  EXPECT_THROW(check_text(std::string("{}\0", 3), "f"), input_error);
}

TEST(StrictText, Utf8IsCheckedByteByByte) {
  using waitroom::sim::first_non_utf8;
  constexpr auto none = std::string_view::npos;
  EXPECT_EQ(first_non_utf8(""), none);
  EXPECT_EQ(first_non_utf8("fifo"), none);
  EXPECT_EQ(first_non_utf8("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x8E\xAB \xF4\x8F\xBF\xBF"), none);
  EXPECT_EQ(first_non_utf8("ab\xFF"), 2u);            // never in UTF-8
  EXPECT_EQ(first_non_utf8("a\x80"), 1u);             // a continuation byte alone
  EXPECT_EQ(first_non_utf8("\xC3"), 0u);              // cut short
  EXPECT_EQ(first_non_utf8("\xE2\x82x"), 0u);         // a bad continuation
  EXPECT_EQ(first_non_utf8("\xC0\xAF"), 0u);          // overlong '/'
  EXPECT_EQ(first_non_utf8("\xE0\x80\xAF"), 0u);      // overlong, 3 bytes
  EXPECT_EQ(first_non_utf8("\xF0\x80\x80\xAF"), 0u);  // overlong, 4 bytes
  EXPECT_EQ(first_non_utf8("x\xED\xA0\x80"), 1u);     // a UTF-16 surrogate
  EXPECT_EQ(first_non_utf8("\xF4\x90\x80\x80"), 0u);  // past U+10FFFF
  EXPECT_EQ(first_non_utf8("\xF5\x80\x80\x80"), 0u);
}

// fuzz_scenario found it: an override whose text is not UTF-8 was stored as a JSON string
// that nlohmann cannot write back, so an error message (describe) or the effective scenario
// threw json's type_error 316: `waitroom validate s.json --set /name=$'\xff'` was exit 3.
TEST(StrictText, OverridesThatAreNotUtf8AreInputErrors) {
  using waitroom::sim::input_error;
  nlohmann::json j = {{"name", "x"}, {"release", {{"batch", 1}}}};
  for (const std::string bad : {"/name=\xCE\xFF", "/release/batch=\xFF", "/n\xC0\xAFme=1"}) {
    try {
      waitroom::models::apply_override(j, bad);
      ADD_FAILURE() << "accepted";
    } catch (const input_error& e) {
      EXPECT_EQ(e.where(), "--set");
      EXPECT_EQ(e.expected(), "UTF-8 text");
      EXPECT_NE(e.found().find("which is not UTF-8"), std::string::npos) << e.what();
    }
  }
  try {
    waitroom::models::apply_unset(j, "/na\xFFme");
    ADD_FAILURE() << "accepted";
  } catch (const input_error& e) {
    EXPECT_EQ(e.where(), "--unset");
    EXPECT_EQ(e.found(), "the byte 0xFF at byte 3, which is not UTF-8");
  }
  waitroom::models::apply_override(j, "/name=caf\xC3\xA9");
  EXPECT_EQ(j.dump(), "{\"name\":\"caf\xC3\xA9\",\"release\":{\"batch\":1}}");
  EXPECT_EQ(j, nlohmann::json::parse(j.dump()));
}

// A path past what exists makes new objects and arrays: an index there would fill an array
// up to it (/run/x/400000000 allocated 400M nulls: bad_alloc, exit 3). Only 0 or - start one.
TEST(StrictText, AnOverrideCannotGrowANewArrayPastItsFirstElement) {
  using waitroom::sim::input_error;
  nlohmann::json j = {{"run", {{"horizon_s", 10}}}, {"classes", nlohmann::json::array({1, 2})}};
  for (const std::string bad : {"/run/x/400000000=1", "/run/x/1=1", "/new/7/y=2"}) {
    try {
      waitroom::models::apply_override(j, bad);
      ADD_FAILURE() << "accepted " << bad;
    } catch (const input_error& e) {
      EXPECT_EQ(e.where(), "--set " + bad.substr(0, bad.find('=')));  // the flag and pointer
      EXPECT_NE(e.expected().find("0 or - (a new array starts empty)"), std::string::npos);
      EXPECT_EQ(e.found().rfind("the index ", 0), 0u) << e.what();
    }
  }
  waitroom::models::apply_override(j, "/run/x/0=1");
  waitroom::models::apply_override(j, "/run/y/-=2");
  EXPECT_EQ(j["run"]["x"], nlohmann::json::array({1}));
  EXPECT_EQ(j["run"]["y"], nlohmann::json::array({2}));
}

// --- durations whose products pass the clock, refused at load ------------------------------

namespace {

using waitroom::testing_support::scenario_from;

// One class, `backlog` users waiting at t = 0 and nobody after, then `release` (and `more`
// top-level keys): the users certain to need a release are exactly the backlog.
std::string backlog_scenario(int backlog, const std::string& release, const std::string& more = "",
                             const std::string& cls = "") {
  return R"({"name": "clock", "classes": [{"name": "all")" + cls + R"(}],
    "arrivals": {"process": "piecewise", "backlog_users": )" +
         std::to_string(backlog) + R"(, "segments": [{"duration_s": 1, "rate_per_s": 0}]},
    "release": )" +
         release + more + "}";
}

// The error parse_scenario throws, or a failure naming the text when it loads.
waitroom::sim::input_error refused(const std::string& text) {
  try {
    scenario_from(text);
  } catch (const waitroom::sim::input_error& e) {
    return e;
  }
  ADD_FAILURE() << "loaded: " << text;
  return waitroom::sim::input_error("", "", "");
}

bool has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

}  // namespace

TEST(ClockProducts, TicksThatCannotReleaseTheBacklogInTheClockAreRefusedNamingTheInterval) {
  // 10 users, 3 a tick: tick 4 releases the last, at 4 x interval from t = 0. The clock ends
  // at 2^63 ns = 9.223372e9 s, so the interval must stay under 2.305843e9 s.
  auto tick = [](const std::string& interval_ms, const std::string& extra = "",
                 const std::string& more = "") {
    return backlog_scenario(
        10, R"({"mode": "tick", "batch": 3, "interval_ms": )" + interval_ms + extra + "}", more);
  };
  auto e = refused(tick("2306000000000"));
  EXPECT_EQ(e.where(), "test.json: /release/interval_ms") << e.what();
  EXPECT_TRUE(has(e.expected(), "the run's 10 waiting users (3 a tick)")) << e.what();
  EXPECT_TRUE(has(e.expected(), "less than 2.30584e+12 ms")) << e.what();
  EXPECT_TRUE(has(e.expected(), "or a horizon (/run/horizon_s)")) << e.what();
  EXPECT_TRUE(has(e.found(), "2.306e+12 ms: tick 4 would be due after 292")) << e.what();
  // Just under the bound it loads and runs to its end, the last tick 292 years in.
  auto ok = scenario_from(tick("2305000000000", "", R"(, "run": {"sample_interval_s": 1e9})"));
  auto r = waitroom::models::run_scenario(ok, 1);
  EXPECT_EQ(r.overall.released, 10u);
  EXPECT_NEAR(r.end_time_s, 4 * 2.305e9, 1.0);
  // A first tick moves the rounds: 3e9 + 3 x 2.1e9 s passes the clock, 4 x 2.1e9 does not.
  EXPECT_NO_THROW(scenario_from(tick("2100000000000")));
  EXPECT_EQ(refused(tick("2100000000000", R"(, "first_tick_s": 3000000000)")).where(),
            "test.json: /release/interval_ms");
  // Not certain, so not refused here: users who can give up, a horizon, an event limit.
  const std::string patient = R"(, "patience_s": {"dist": "exponential", "mean": 60})";
  EXPECT_NO_THROW(scenario_from(
      backlog_scenario(10, R"({"mode": "tick", "batch": 3, "interval_ms": 3e12})", "", patient)));
  EXPECT_NO_THROW(
      scenario_from(tick("3e12", "", R"(, "run": {"horizon_s": 3e9, "sample_interval_s": 1000})")));
  EXPECT_NO_THROW(scenario_from(tick("3e12", "", R"(, "run": {"max_events": 100})")));
}

TEST(ClockProducts, SessionsInflowsAndRatesPastTheClockAreRefusedNamingTheirKey) {
  // Concurrency: 2 slots, sessions of at least 3e9 s: round 5 of sessions starts at 1.2e10 s.
  auto e = refused(backlog_scenario(10, R"({"mode": "concurrency", "slots": 2,
              "session_s": {"dist": "uniform", "min": 3e9, "max": 3.1e9}})"));
  EXPECT_EQ(e.where(), "test.json: /release/session_s") << e.what();
  EXPECT_TRUE(has(e.found(), "round 5 of sessions would start after 381 years")) << e.what();
  // Exponential sessions can be short: not certain.
  EXPECT_NO_THROW(scenario_from(backlog_scenario(10, R"({"mode": "concurrency", "slots": 2,
              "session_s": {"dist": "exponential", "mean": 3e9}})")));
  // The serving counter: one number every 3e9 s, inlet 4 at 1.2e10 s.
  const std::string fifo = R"(, "queue": {"policy": "fifo"})";
  auto counter = [&](const std::string& extra) {
    return backlog_scenario(4,
                            R"({"mode": "serving_counter", "inlet": "periodic", "increment": 1,
                                "inlet_interval_s": 3e9)" +
                                extra + "}",
                            fifo);
  };
  e = refused(counter(""));
  EXPECT_EQ(e.where(), "test.json: /release/inlet_interval_s") << e.what();
  EXPECT_TRUE(has(e.found(), "inlet 4 would be due after")) << e.what();
  EXPECT_NO_THROW(scenario_from(counter(R"(, "end_s": 1e9)")));  // it stops: a stall, not this
  // Active users: one new user a minute admits 1.6e8 users in 304 years.
  e = refused(backlog_scenario(160000000, R"({"mode": "active_users",
      "total_active_users": 1000000000, "new_users_per_minute": 1, "session_duration_min": 1})"));
  EXPECT_EQ(e.where(), "test.json: /release/new_users_per_minute") << e.what();
  EXPECT_TRUE(has(e.expected(), "at least 2 users a minute")) << e.what();
  // One place held by century-long sessions: round 4 starts 300 years in, unless revoked.
  const std::string centuries = R"({"mode": "active_users", "total_active_users": 1,
      "new_users_per_minute": 10, "session_duration_min": 52560000)";
  e = refused(backlog_scenario(4, centuries + "}"));
  EXPECT_EQ(e.where(), "test.json: /release/session_duration_min") << e.what();
  EXPECT_TRUE(has(e.found(), "round 4 of sessions would start after 300 years")) << e.what();
  EXPECT_NO_THROW(scenario_from(backlog_scenario(4, centuries + R"(, "revoke_on_exit": true})")));
}

TEST(ClockProducts, ATracesUsersAreCertainAndThoseWhoCanGiveUpAreNot) {
  // Four users in a trace, one a century-long tick: tick 4 is 400 years in.
  const std::string classes = R"([{"name": "a", "share": 0.5},
      {"name": "b", "share": 0.5, "patience_s": {"dist": "exponential", "mean": 60}}])";
  // Written and read while the file exists: scenario_from reads the trace at once.
  auto load = [&](const std::string& rows) {
    waitroom::testing_support::trace_file t("clock", rows);
    return scenario_from(R"({"name": "clock", "classes": )" + classes +
                         R"(, "arrivals": {"process": "trace", "trace_file": ")" + t.path.string() +
                         R"("}, "release": {"mode": "tick", "batch": 1, "interval_ms": 3e12}})");
  };
  try {
    load("0,a\n1,a\n2,a\n3,a\n");
    ADD_FAILURE() << "four certain users in 100-year ticks loaded";
  } catch (const waitroom::sim::input_error& e) {
    EXPECT_EQ(e.where(), "test.json: /release/interval_ms") << e.what();
    EXPECT_TRUE(has(e.expected(), "the run's 4 waiting users")) << e.what();
  }
  // Two of them can give up: two certain users, two ticks, 200 years.
  EXPECT_NO_THROW(load("0,a\n1,b\n2,a\n3,b\n"));
}

TEST(ClockProducts, AControllersMostPerTickBoundsTheTicksALoadRefuses) {
  // 100 users, batch 3 under a tiered controller with factors up to 2: at most 6 a tick, so
  // tick 17 releases the last, at 17 x interval; without the controller tick 34 would. The
  // clock ends at 9.2234e9 s. (Backend windows of 10^4 s: 10 s ones over 9e9 s are refused.)
  const std::string backend =
      R"(, "backend": {"workers": 1, "service_s": {"dist": "deterministic", "value": 1},
                       "window_s": 10000})";
  auto tiered = [&](const std::string& interval_ms, const std::string& factors) {
    return backlog_scenario(100,
                            R"({"mode": "tick", "batch": 3, "interval_ms": )" + interval_ms +
                                R"(, "controller": {"kind": "tiered", "tiers_ms": [500],
                                   "factors": )" +
                                factors + "}}",
                            backend);
  };
  // 17 x 5.5e8 s = 9.35e9 s passes the clock's end; 17 x 5.4e8 s = 9.18e9 s does not.
  auto e = refused(tiered("5.5e11", "[2, 0.5]"));
  EXPECT_EQ(e.where(), "test.json: /release/interval_ms") << e.what();
  EXPECT_TRUE(has(e.expected(), "(at most 6 a tick under the tiered controller)")) << e.what();
  EXPECT_TRUE(has(e.found(), "tick 17 would be due after")) << e.what();
  EXPECT_NO_THROW(scenario_from(tiered("5.4e11", "[2, 0.5]")));
  // Factors at most 1: the batch bounds it, tick 34 at 34 x 2.72e8 s = 9.25e9 s.
  e = refused(tiered("2.72e11", "[1, 0.5]"));
  EXPECT_TRUE(has(e.found(), "tick 34 would be due after")) << e.what();
  EXPECT_NO_THROW(scenario_from(tiered("2.71e11", "[1, 0.5]")));
  // The window form: up to its ceiling (20: 5 ticks), or twice the batch without one (6).
  auto window = [&](const std::string& interval_ms, const std::string& more) {
    return backlog_scenario(100,
                            R"({"mode": "tick", "batch": 3, "interval_ms": )" + interval_ms +
                                R"(, "controller": {"kind": "window")" + more + "}}",
                            backend);
  };
  EXPECT_NO_THROW(scenario_from(window("5.5e11", R"(, "ceiling": 20)")));
  e = refused(window("5.5e11", ""));
  EXPECT_TRUE(has(e.expected(), "(at most 6 a tick under the window controller)")) << e.what();
  // A floor above the rest raises the bound: 10 a tick, 10 ticks.
  EXPECT_NO_THROW(scenario_from(window("5.5e11", R"(, "floor": 10)")));
}

TEST(ClockProducts, AgingChainsLongerThanTheClockAreRefusedNamingTheStep) {
  // Lists 1, 2, 3 age upwards every 3.1e9 s: a user entering list 3 reaches list 0 after
  // 9.3e9 s, past the clock's end (9.22e9 s); 3.07e9 s steps (9.21e9 s) fit.
  auto lists = [](const std::string& step, const std::string& run = "") {
    return R"({"name": "aging", "classes": [{"name": "a", "share": 0.25},
        {"name": "b", "share": 0.25}, {"name": "c", "share": 0.25}, {"name": "d", "share": 0.25}],
      "arrivals": {"process": "piecewise", "segments": [{"duration_s": 10, "rate_per_s": 1}]},
      "queue": {"policy": "fifo", "lists": [{"name": "l0", "classes": ["a"]},
        {"name": "l1", "classes": ["b"], "max_wait_s": )" +
           step + R"(}, {"name": "l2", "classes": ["c"], "max_wait_s": )" + step +
           R"(}, {"name": "l3", "classes": ["d"], "max_wait_s": )" + step + R"(}]},
      "release": {"mode": "tick", "batch": 1, "interval_ms": 100,
                  "selection": {"kind": "strict"}})" +
           run + "}";
  };
  auto e = refused(lists("3.1e9"));
  EXPECT_EQ(e.where(), "test.json: /queue/lists/3/max_wait_s") << e.what();
  EXPECT_TRUE(has(e.expected(), "from list 3 ('l3') to list 0 ('l0')")) << e.what();
  EXPECT_TRUE(has(e.expected(), "the steps from list 1 up sum to 6.2e+09 s")) << e.what();
  EXPECT_TRUE(has(e.expected(), "at most 3.02337e+09 s here")) << e.what();
  EXPECT_TRUE(has(e.found(), "would reach list 0 after 295 years")) << e.what();
  // Just inside, it loads and runs (nobody waits anywhere near a step).
  auto ok = scenario_from(lists("3.07e9"));
  auto r = waitroom::models::run_scenario(ok, 1);
  EXPECT_GT(r.overall.arrived, 0u);
  EXPECT_EQ(r.overall.released, r.overall.arrived);
  EXPECT_LT(r.end_time_s, 1000.0);
  // A step under half a nanosecond is 0 ns on the clock: refused, naming it.
  e = refused(lists("1e-10"));
  EXPECT_EQ(e.where(), "test.json: /queue/lists/1/max_wait_s") << e.what();
  EXPECT_TRUE(has(e.expected(), "a duration of at least 1 ns")) << e.what();
  // A list without aging breaks the chain; a horizon or an event limit stops the run first.
  std::string broken = lists("3.1e9");
  broken.replace(broken.find(R"("classes": ["c"], "max_wait_s": 3.1e9)"),
                 std::string(R"("classes": ["c"], "max_wait_s": 3.1e9)").size(),
                 R"("classes": ["c"])");
  EXPECT_NO_THROW(scenario_from(broken));
  EXPECT_NO_THROW(scenario_from(lists("3.1e9", R"(, "run": {"horizon_s": 100})")));
  EXPECT_NO_THROW(scenario_from(lists("3.1e9", R"(, "run": {"max_events": 1000})")));
}

TEST(ClockProducts, DurationsUnderANanosecondAreRefusedNamingTheirKey) {
  // Each of these is above 0 but rounds to 0 ns on the clock: a controller that looks every
  // 0 ns reschedules its look at the same instant forever (it reached the livelock guard,
  // an internal error, before); the others would mean "at once" while saying otherwise.
  const std::string backend =
      R"(, "backend": {"workers": 1, "service_s": {"dist": "deterministic", "value": 1})";
  struct bad {
    std::string release, more, pointer;
  };
  const std::string tick = R"({"mode": "tick", "batch": 1, "interval_ms": 100)";
  const std::vector<bad> cases{
      {tick + R"(, "controller": {"kind": "window", "every_s": 1e-10}})", backend + "}",
       "/release/controller/every_s"},
      {tick + R"(, "controller": {"kind": "window", "window_s": 4e-10}})", backend + "}",
       "/release/controller/window_s"},
      {tick + "}", backend + R"(, "timeout_s": 1e-12})", "/backend/timeout_s"},
      {tick + "}", backend + R"(, "reclaim_s": 1e-12})", "/backend/reclaim_s"},
      {tick + "}", R"(, "run": {"horizon_s": 1e-12})", "/run/horizon_s"},
      {R"({"mode": "active_users", "total_active_users": 1, "new_users_per_minute": 1,
          "session_duration_min": 1e-12})",
       "", "/release/session_duration_min"},
      {tick + "}", R"(, "queue": {"compensation": {"threshold_s": 1e-12, "offset_ms": 1}})",
       "/queue/compensation/threshold_s"},
  };
  for (const auto& c : cases) {
    auto e = refused(backlog_scenario(1, c.release, c.more));
    EXPECT_EQ(e.where(), "test.json: " + c.pointer) << e.what();
    EXPECT_TRUE(has(e.expected(), "a duration of at least 1 ns")) << e.what();
    EXPECT_TRUE(has(e.found(), "0 on the clock")) << e.what();
  }
  // Half a nanosecond rounds to 1 ns: accepted, and the window controller's looks advance.
  auto ok = scenario_from(backlog_scenario(
      1, tick + R"(, "controller": {"kind": "window", "every_s": 5e-10}})", backend + "}"));
  EXPECT_EQ(ok.release.controller.every_s, 5e-10);
}

TEST(ClockProducts, BackendWindowsOverTheRunAreBoundedLikeSamples) {
  // 20 users one a 1e6 s tick: the run lasts at least 2e7 s, 2e6 windows of 10 s but 2e7 of
  // 1 s (more than the 1e7 a run may keep, each an idle record: 4 GB and 1 GB of JSON before).
  auto slow = [](const std::string& window_s, const std::string& run = "") {
    return backlog_scenario(
        20, R"({"mode": "tick", "batch": 1, "interval_ms": 1e9})",
        R"(, "backend": {"workers": 1, "service_s": {"dist": "deterministic", "value": 1}, "window_s": )" +
            window_s + "}" + run);
  };
  auto e = refused(slow("1"));
  EXPECT_EQ(e.where(), "test.json: /backend/window_s") << e.what();
  EXPECT_TRUE(has(e.expected(), "until the run's last certain release (2e+07 s)")) << e.what();
  EXPECT_TRUE(has(e.expected(), "windows of at least 2 s")) << e.what();
  EXPECT_TRUE(has(e.found(), "1 s: 2e+07 windows")) << e.what();
  EXPECT_NO_THROW(scenario_from(slow("2")));
  // Over a horizon: 1e8 s of 1 s windows.
  e = refused(slow("1", R"(, "run": {"horizon_s": 1e8, "sample_interval_s": 100})"));
  EXPECT_EQ(e.where(), "test.json: /backend/window_s") << e.what();
  EXPECT_TRUE(has(e.expected(), "until the horizon (1e+08 s)")) << e.what();
  EXPECT_NO_THROW(
      scenario_from(slow("10", R"(, "run": {"horizon_s": 1e8, "sample_interval_s": 100})")));
}
