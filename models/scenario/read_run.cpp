// /run (horizon, limits, warm-up) and /returns.
#include "models/scenario/sections.hpp"

#include <cmath>

#include <fmt/format.h>

namespace waitroom::models::section {

run_spec read_run(const object_reader& top, const arrival_spec& arrivals) {
  run_spec run;
  auto r = top.object(
      "run",
      {"horizon_s", "max_events", "sample_interval_s", "warmup_s", "warmup_customers", "warmup"},
      false);
  if (r) {
    if (r->has("horizon_s")) {
      run.horizon_s = r->number("horizon_s", std::nullopt, {0.0, max_seconds, true});
      refuse_below_clock_step(*r, "horizon_s", *run.horizon_s);
    }
    run.max_events =
        static_cast<std::uint64_t>(r->integer("max_events", 0, 0, std::int64_t{1} << 62));
    run.sample_interval_s = r->number("sample_interval_s", 1.0, {1e-6, max_seconds});
    int given = r->has("warmup_s") + r->has("warmup_customers") + r->has("warmup");
    if (given > 1)
      r->fail("warmup", "one of warmup_s, warmup_customers or warmup", "more than one");
    // 0 means no warm-up (a value a sweep or a --set can reach), echoed as no key at all.
    if (r->has("warmup_s")) {
      run.warmup_s = r->number("warmup_s", std::nullopt, {0.0, max_seconds});
      run.warmup = run.warmup_s > 0 ? warmup_kind::time : warmup_kind::none;
    } else if (r->has("warmup_customers")) {
      run.warmup_customers =
          static_cast<std::uint64_t>(r->integer("warmup_customers", std::nullopt, 0, max_users));
      run.warmup = run.warmup_customers > 0 ? warmup_kind::customers : warmup_kind::none;
    } else if (r->has("warmup")) {
      r->choice("warmup", std::nullopt, {"mser5"});
      run.warmup = warmup_kind::mser5;
    }
  }
  const bool unbounded = arrivals.open_ended();
  if (unbounded && !run.horizon_s)
    throw sim::input_error(top.file() + ": /run/horizon_s",
                           "a horizon, since Poisson arrivals never end", "none");
  if (run.horizon_s) {
    const double rate = arrivals.final_rate_per_s();
    double expected = rate * *run.horizon_s + static_cast<double>(arrivals.backlog_users);
    if (unbounded && expected > static_cast<double>(max_users))
      throw sim::input_error(top.file() + ": /run/horizon_s",
                             "a horizon with fewer than 2^31 expected users",
                             fmt::format("{} s at {} users/s", *run.horizon_s, rate));
    if (*run.horizon_s / run.sample_interval_s > max_samples)
      throw sim::input_error(top.file() + ": /run/sample_interval_s",
                             fmt::format("at most {:.0f} samples over the horizon", max_samples),
                             fmt::format("{} s over {} s", run.sample_interval_s, *run.horizon_s));
  }
  return run;
}

std::optional<returns_spec> read_returns(const object_reader& top) {
  auto r = top.object("returns", {"probability", "delay_s"}, false);
  if (!r) return std::nullopt;
  returns_spec rs;
  rs.probability = r->number("probability", std::nullopt, {0.0, 1.0});
  rs.delay_s = read_distribution(*r, "delay_s");
  return rs;
}

}  // namespace waitroom::models::section
