// The tables for people: one time unit per table named in its header, intervals as
// "estimate ± half-width" with one significant-figure rule, and JUnit test cases named by
// what they measure.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "reports/interval_text.hpp"
#include "support/cli_run.hpp"

namespace {

using waitroom::testing_support::cli_outcome;
using waitroom::testing_support::scenario_path;
using waitroom::testing_support::slurp;

cli_outcome run(const std::string& args) {
  return waitroom::testing_support::run_cli("report_units", args);
}

std::filesystem::path temp_file(const std::string& name) {
  return waitroom::testing_support::process_temp_dir("report_units") / name;
}

// The first line starting with `prefix`.
std::string line_of(const std::string& text, const std::string& prefix) {
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line))
    if (line.rfind(prefix, 0) == 0) return line;
  return {};
}

// Whether `text` holds "A ± B" after `lead` where A and B are decimals with a point and
// `point_digits` digits after it (any count when 0). A hand parser: std::regex trips GCC 12's
// maybe-uninitialized warning under AddressSanitizer.
bool has_decimal_pm(const std::string& text, const std::string& lead, std::size_t point_digits) {
  auto decimal = [&](std::size_t& i) {
    const std::size_t start = i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
    if (i == start || i >= text.size() || text[i] != '.') return false;
    const std::size_t frac = ++i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
    return i > frac && (point_digits == 0 || i - frac == point_digits);
  };
  const std::string pm = " \xc2\xb1 ";
  for (std::size_t at = text.find(lead); at != std::string::npos; at = text.find(lead, at + 1)) {
    std::size_t i = at + lead.size();
    if (lead.empty()) {  // any decimal that ends right before " ± "
      const std::size_t p = text.find(pm, at);
      if (p == std::string::npos) return false;
      i = p;
      while (i > 0 && (std::isdigit(static_cast<unsigned char>(text[i - 1])) || text[i - 1] == '.'))
        --i;
      at = p;
    }
    if (!decimal(i) || text.compare(i, pm.size(), pm) != 0) continue;
    i += pm.size();
    if (decimal(i)) return true;
  }
  return false;
}

// The name="..." of every <testcase ...> in a JUnit file, in order.
std::vector<std::string> testcase_names(const std::string& xml) {
  std::vector<std::string> out;
  const std::string tag = "<testcase classname=\"", key = "\" name=\"";
  for (std::size_t at = xml.find(tag); at != std::string::npos; at = xml.find(tag, at + 1)) {
    const std::size_t k = xml.find(key, at + tag.size());
    if (k == std::string::npos) break;
    const std::size_t start = k + key.size(), end = xml.find('"', start);
    out.push_back(xml.substr(start, end - start));
  }
  return out;
}

TEST(ReportUnits, TheIntervalRuleIsOneForEveryCommand) {
  using waitroom::reports::interval_text;
  EXPECT_EQ(interval_text(1.641237, 0.096442), "1.641 ± 0.096");
  EXPECT_EQ(interval_text(504.5, 6.46), "504.5 ± 6.5");
  EXPECT_EQ(interval_text(1499.77, 3.39), "1500 ± 3");
  // The larger of estimate and half-width sets the decimals.
  EXPECT_EQ(interval_text(0.003, 2.5), "0.003 ± 2.500");
  // Never "-0.000": a difference of sums that is zero up to rounding reads as zero.
  EXPECT_EQ(interval_text(-4e-17, 0), "0 ± 0");
  EXPECT_EQ(interval_text(-0.00001, 1.0), "0.000 ± 1.000");
  EXPECT_EQ(interval_text(std::nan(""), 1.0), "-");
  EXPECT_EQ(interval_text(2.0, std::numeric_limits<double>::infinity()), "2.000 ± inf");
  EXPECT_EQ(waitroom::reports::fixed_text(-0.0004, 3), "0.000");
  EXPECT_EQ(waitroom::reports::time_unit_for(599.9).name, "s");
  EXPECT_EQ(waitroom::reports::time_unit_for(600).name, "min");
  EXPECT_EQ(waitroom::reports::time_unit_for(36000).name, "h");
}

// The clinic's waits run from 0.1 s (p50) to 52 s (max): every wait column says "(s)", never
// "(ms)" beside "(s)".
TEST(ReportUnits, ARunTableShowsEveryWaitInOneUnitNamedInItsHeader) {
  auto r = run("run " + scenario_path("clinic.json"));
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string head = line_of(r.out, "class ");
  for (const char* col : {"mean (s)", "p50 (s)", "p90 (s)", "p95 (s)", "p99 (s)", "max (s)"})
    EXPECT_NE(head.find(col), std::string::npos) << head;
  EXPECT_EQ(r.out.find("(ms)"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("(min)"), std::string::npos) << r.out;
  // Waits of minutes: the whole table in min, p50 included.
  auto slow = run("run " + scenario_path("clinic.json") + " --set /release/batch=4");
  ASSERT_EQ(slow.code, 0) << slow.err;
  const std::string slow_head = line_of(slow.out, "class ");
  EXPECT_NE(slow_head.find("p50 (min)"), std::string::npos) << slow.out;
  EXPECT_NE(slow_head.find("max (min)"), std::string::npos) << slow.out;
  EXPECT_EQ(slow_head.find("(s)"), std::string::npos) << slow.out;
}

// compare printed "-0.000 ± 0.000" for a difference that is zero (FIFO against the offset
// policy, everyone: the same releases, so the same mean wait up to rounding).
TEST(ReportUnits, CompareNeverPrintsMinusZeroAndStatesItsUnit) {
  auto c = run("compare " + scenario_path("clinic.json") +
               " --replications 3 --variant fifo:/queue/policy=fifo");
  ASSERT_EQ(c.code, 0) << c.err;
  EXPECT_EQ(c.out.find("-0.0"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("mean wait (s)"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("difference (s)"), std::string::npos) << c.out;
  const std::string fifo_all = line_of(c.out, "fifo             all");
  EXPECT_NE(fifo_all.find(" 0 ± 0"), std::string::npos) << c.out;
  // Every figure is "estimate ± half-width".
  EXPECT_TRUE(has_decimal_pm(fifo_all, "", 3)) << fifo_all;
}

// check's lines had no unit, and plan's cells were "[lo, hi]" where compare's were "±".
TEST(ReportUnits, CheckAndPlanShowTheirUnitAndTheSameIntervals) {
  auto c = run("check " + scenario_path("clinic.json"));
  ASSERT_EQ(c.code, 0) << c.out << c.err;
  EXPECT_NE(c.out.find("times in s"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("vip mean_wait_s <= 20 s"), std::string::npos) << c.out;
  EXPECT_TRUE(has_decimal_pm(c.out, "measured ", 0)) << c.out;
  EXPECT_EQ(c.out.find('['), std::string::npos) << c.out;
  auto p = run("plan " + scenario_path("clinic.json") +
               " --knob /release/batch --range 6:8:1 --replications 3 --quiet");
  ASSERT_EQ(p.code, 0) << p.err;
  EXPECT_NE(p.out.find("times in s"), std::string::npos) << p.out;
  EXPECT_NE(p.out.find("normal p99_wait_s <= 120 s"), std::string::npos) << p.out;
  const std::string row = line_of(p.out, "           6");
  EXPECT_EQ(std::count(row.begin(), row.end(), '\xb1'), 3) << row;  // ± is C2 B1 in UTF-8
  EXPECT_EQ(row.find('['), std::string::npos) << row;
}

// JUnit names held the limit ("vip mean_wait_s <= 20"): tightening it renamed the test.
TEST(ReportUnits, JunitNamesStayWhenALimitChangesAndCarryTheFiguresAsProperties) {
  const auto loose = temp_file("loose.xml"), tight = temp_file("tight.xml");
  ASSERT_EQ(run("check " + scenario_path("clinic.json") + " --junit " + loose.string()).code, 0);
  EXPECT_EQ(run("check " + scenario_path("clinic.json") + " --set /sla/targets/0/max=1 --junit " +
                tight.string())
                .code,
            1);
  const std::string a = slurp(loose), b = slurp(tight);
  const std::vector<std::string> names_a = testcase_names(a), names_b = testcase_names(b);
  ASSERT_EQ(names_a.size(), 3u) << a;
  EXPECT_EQ(names_a, names_b);
  EXPECT_EQ(names_a[0], "vip mean_wait_s");
  EXPECT_EQ(a.find("&lt;="), std::string::npos) << a;  // no limit in any name
  // Every test case has a time; the limit, estimate and interval are properties.
  std::size_t cases = 0, timed = 0;
  for (std::size_t at = a.find("<testcase "); at != std::string::npos;
       at = a.find("<testcase ", at + 1)) {
    ++cases;
    const auto end = a.find('>', at);
    timed += a.substr(at, end - at).find(" time=\"") != std::string::npos;
  }
  EXPECT_EQ(timed, cases);
  for (const char* p : {"<property name=\"max\" value=\"20\"/>", "<property name=\"estimate\"",
                        "<property name=\"ci_low\"", "<property name=\"ci_high\"",
                        "<property name=\"unit\" value=\"s\"/>"})
    EXPECT_NE(a.find(p), std::string::npos) << p << "\n" << a;
  EXPECT_NE(b.find("<property name=\"max\" value=\"1\"/>"), std::string::npos) << b;
  EXPECT_NE(b.find("<failure message=\"vip mean_wait_s &lt;= 1 s: measured "), std::string::npos)
      << b;
}

// A second target on the same class and metric still gets a name of its own.
TEST(ReportUnits, JunitTellsApartTwoTargetsOnTheSameClassAndMetric) {
  const auto xml = temp_file("twice.xml");
  run("check " + scenario_path("clinic.json") +
      " --set '/sla/targets/1={\"class\":\"vip\",\"metric\":\"mean_wait_s\",\"min\":0}' --junit " +
      xml.string());
  const std::string j = slurp(xml);
  EXPECT_NE(j.find("name=\"vip mean_wait_s (max)\""), std::string::npos) << j;
  EXPECT_NE(j.find("name=\"vip mean_wait_s (min)\""), std::string::npos) << j;
}

}  // namespace
