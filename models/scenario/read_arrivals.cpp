// /arrivals: each arrival process's keys, and the backlog. What a process answers once read
// (does it end, its rates, its writer, its engine process) is models/spec/arrival_spec.cpp's.
#include "models/scenario/names.hpp"
#include "models/scenario/sections.hpp"

#include <filesystem>
#include <limits>

#include <fmt/format.h>

namespace waitroom::models::section {

namespace {

// A run holds fewer than 2^31 users: `expected` from `what` (the segments, the surge) and the
// backlog, checked at `key`.
void check_expected_users(const object_reader& r, const std::string& key, const char* what,
                          double expected, std::uint64_t backlog) {
  if (expected + static_cast<double>(backlog) > static_cast<double>(max_users))
    r.fail(key, "fewer than 2^31 expected users in one run (with backlog_users)",
           backlog > 0 ? fmt::format("{:.3g} expected from the {} and {} in the backlog", expected,
                                     what, backlog)
                       : fmt::format("{:.3g} expected", expected));
}

}  // namespace

arrival_spec read_arrivals(const object_reader& top, const std::vector<std::string>& class_names,
                           const std::string& base_dir) {
  auto r = *top.object(
      "arrivals",
      {"process", "rate_per_s", "segments", "trace_file", "interarrival_s", "base_rate_per_s",
       "peak_rate_per_s", "half_life_s", "duration_s", "backlog_users"},
      true);
  arrival_spec a;
  a.kind = read_enum<arrival_kind>(r, "process", std::nullopt);
  const std::string kind = name_of(a.kind);
  r.only_when("interarrival_s", "for process", kind, "process", "renewal");
  r.only_when("rate_per_s", "for process", kind, "process", "poisson");
  r.only_when("segments", "for process", kind, "process", "piecewise");
  r.only_when("trace_file", "for process", kind, "process", "trace");
  for (const char* key : {"base_rate_per_s", "peak_rate_per_s", "half_life_s", "duration_s"})
    r.only_when(key, "for process", kind, "process", "surge");
  // Fewer than 2^31 users in a run, the backlog included.
  a.backlog_users = static_cast<std::uint64_t>(r.integer("backlog_users", 0, 0, max_users - 1));
  switch (a.kind) {  // no default: each kind reads its own keys
    case arrival_kind::poisson:
      a.rate_per_s = r.number("rate_per_s", std::nullopt, {0.0, 1e9, true});
      break;
    case arrival_kind::piecewise: {
      const json& segs = r.array("segments", 1);
      double expected = 0;
      for (std::size_t i = 0; i < segs.size(); ++i) {
        object_reader s(segs[i], r.file(), r.pointer("segments") + "/" + std::to_string(i),
                        {"duration_s", "rate_per_s"});
        sim::rate_segment seg{s.number("duration_s", std::nullopt, {0.0, max_seconds, true}),
                              s.number("rate_per_s", std::nullopt, {0.0, 1e9})};
        expected += seg.duration_s * seg.rate_per_s;
        a.segments.push_back(seg);
      }
      double total_s = 0;
      for (const auto& seg : a.segments) total_s += seg.duration_s;
      if (total_s > max_seconds)
        r.fail("segments",
               fmt::format("segments lasting at most {:.0f} s together (100 years; "
                           "the clock ends at about 292)",
                           max_seconds),
               fmt::format("{:.6g} s", total_s));
      check_expected_users(r, "segments", "segments", expected, a.backlog_users);
      break;
    }
    case arrival_kind::renewal:
      a.interarrival_s = read_distribution(r, "interarrival_s");
      if (!(a.interarrival_s.mean() > 0))
        r.fail("interarrival_s", "an interarrival time with a mean above 0",
               fmt::format("a mean of {}", a.interarrival_s.mean()));
      break;
    case arrival_kind::trace: {
      a.trace_file = r.text("trace_file", std::nullopt);
      std::filesystem::path p(a.trace_file);
      if (p.is_relative()) p = std::filesystem::path(base_dir) / p;
      a.trace = sim::read_trace_csv(p.string(), class_names);
      break;
    }
    case arrival_kind::surge: {
      auto& g = a.surge;
      g.peak_rate_per_s = r.number("peak_rate_per_s", std::nullopt, {0.0, 1e9, true});
      g.base_rate_per_s = r.number("base_rate_per_s", 0.0, {0.0, 1e9});
      if (g.base_rate_per_s > g.peak_rate_per_s)
        r.fail("base_rate_per_s",
               fmt::format("a base rate at most peak_rate_per_s ({}): the surge decays from "
                           "the peak to the base",
                           g.peak_rate_per_s),
               describe(r.raw("base_rate_per_s")));
      g.half_life_s = r.number("half_life_s", std::nullopt, {0.0, max_seconds, true});
      if (r.has("duration_s"))
        g.duration_s = r.number("duration_s", std::nullopt, {0.0, max_seconds, true});
      // An open-ended surge's base rate over the horizon is /run's to check.
      const double expected =
          a.open_ended() ? g.decay_total() : g.expected_by(std::numeric_limits<double>::infinity());
      check_expected_users(r, "peak_rate_per_s", "surge", expected, a.backlog_users);
      break;
    }
  }
  return a;
}

}  // namespace waitroom::models::section
