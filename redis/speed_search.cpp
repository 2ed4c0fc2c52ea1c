#include "redis/speed_search.hpp"

#include <cmath>

#include <fmt/format.h>

namespace waitroom::redis {

namespace {

probe_outcome judged(probe_outcome p, const speed_search_options& opt) {
  if (p.completed == 0)
    p.reason = "no command answered within the probe (lengthen --probe)";
  else if (p.failed_commands)
    p.reason = "commands failed";
  else if (p.behind)
    p.reason = fmt::format("behind schedule (send lag p99 {:.1f} ms > 100 ms)", p.lag_p99_ms);
  else if (!(p.worst_p99_ms <= opt.p99_limit_ms))
    p.reason = fmt::format("latency p99 {:.3f} ms > {} ms", p.worst_p99_ms, opt.p99_limit_ms);
  p.passed = p.reason.empty();
  return p;
}

}  // namespace

speed_search_result search_max_speed(const load_probe& probe, const speed_search_options& opt) {
  speed_search_result r;
  auto run = [&](double speed) {
    r.probes.push_back(judged(probe(speed), opt));
    return r.probes.back();
  };
  std::optional<probe_outcome> good, bad;
  probe_outcome first = run(opt.start);
  (first.passed ? good : bad) = first;
  if (first.passed) {
    // Faster until one fails. A probe that sent the whole stream with time to spare still
    // counts: the stream is then compressed further by the next speed.
    while (!bad && good->speed * 2 <= opt.max_speed) {
      probe_outcome p = run(good->speed * 2);
      (p.passed ? good : bad) = p;
    }
  } else {
    while (!good && bad->speed / 2 >= opt.min_speed) {
      probe_outcome p = run(bad->speed / 2);
      (p.passed ? good : bad) = p;
    }
  }
  if (good && bad) {
    while (bad->speed / good->speed > opt.resolution) {
      probe_outcome p = run(std::sqrt(good->speed * bad->speed));
      (p.passed ? good : bad) = p;
    }
  }
  if (good) {
    r.max_speed = good->speed;
    r.max_commands_per_s = good->commands_per_s;
  }
  if (bad) {
    r.failing_speed = bad->speed;
    r.limited_by = bad->reason;
  } else {
    r.limited_by = fmt::format("no limit found up to speed {}", opt.max_speed);
  }
  return r;
}

}  // namespace waitroom::redis
