#pragma once
// `load --speed max`: the fastest replay speed at which Redis keeps up with the scenario's
// command stream. Each probe replays the stream from its start for a few wall seconds at one
// speed; a probe fails when commands leave behind schedule (send lag p99 over 100 ms), a
// command type's latency p99 passes the limit, or a command fails. Speeds double (or halve
// from a failing start) until the outcome changes, then bisect geometrically. The probe is a
// function so the search is tested without a server.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace waitroom::redis {

struct probe_outcome {
  double speed = 0.0;
  double commands_per_s = 0.0;   // completed commands / wall seconds of the probe
  double worst_p99_ms = 0.0;     // the largest latency p99 over command types
  double lag_p99_ms = 0.0;       // send lag p99
  bool behind = false;           // lag p99 over 100 ms
  bool failed_commands = false;  // errors or timeouts
  bool exhausted = false;        // the whole stream was sent before the probe's time ran out
  double wall_s = 0.0;
  std::uint64_t completed = 0;  // commands answered in the probe; none: nothing to judge
  bool passed = false;          // set by the search: kept up and under the latency limit
  std::string reason;           // why it failed, for the report
};

struct speed_search_options {
  double start = 1.0;
  double p99_limit_ms = 50.0;
  double min_speed = 1.0 / 64;  // below this the search gives up: Redis cannot keep up
  double max_speed = 65536.0;   // above this the search stops: no limit found
  double resolution = 1.25;     // stop bisecting when bad / good is at most this
};

struct speed_search_result {
  std::vector<probe_outcome> probes;    // in the order they ran
  std::optional<double> max_speed;      // the fastest passing speed; none: even min_speed failed
  double max_commands_per_s = 0.0;      // that probe's completed commands per second
  std::optional<double> failing_speed;  // the slowest failing speed above it; none: no limit
  std::string limited_by;               // the failing probe's reason, or why the search ended
};

using load_probe = std::function<probe_outcome(double speed)>;

// Fills each probe's `passed` and `reason` from the options and runs the search.
speed_search_result search_max_speed(const load_probe& probe, const speed_search_options& opt);

}  // namespace waitroom::redis
