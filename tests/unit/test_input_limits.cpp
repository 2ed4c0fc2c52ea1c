// The clock's range and the strict JSON reader (issue 12 items 3, 5, 7).
#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "models/scenario/json_text.hpp"
#include "sim/input_error.hpp"
#include "sim/text_file.hpp"
#include "sim/time.hpp"

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
