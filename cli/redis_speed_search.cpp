// `waitroom load --speed max`: the fastest speed Redis keeps up with, by probes.
#include <unistd.h>

#include <algorithm>

#include <fmt/format.h>

#include "commands.hpp"
#include "output_writer.hpp"
#include "redis/cleanup.hpp"
#include "redis/load.hpp"
#include "redis/speed_search.hpp"
#include "redis_load.hpp"

namespace waitroom::cli {

namespace {

redis::probe_outcome summarise(const redis::load_result& r, double speed) {
  redis::probe_outcome p;
  p.speed = speed;
  std::uint64_t done = 0;
  for (const auto& [name, c] : r.commands) {
    done += c.completed;
    p.failed_commands = p.failed_commands || c.errors + c.timeouts > 0;
    if (c.completed > 0) p.worst_p99_ms = std::max(p.worst_p99_ms, ms(c.latency_ns.quantile(0.99)));
  }
  p.wall_s = r.wall_s;
  p.completed = done;
  p.commands_per_s = r.wall_s > 0 ? static_cast<double>(done) / r.wall_s : 0.0;
  p.lag_p99_ms = r.lag_ns.count() > 0 ? ms(r.lag_ns.quantile(0.99)) : 0.0;
  p.behind = r.behind;
  p.exhausted = !r.stopped_by_duration;
  return p;
}

nlohmann::json to_json(const redis::speed_search_result& r, const load_args& a, double probe_s,
                       double limit_ms, const std::string& where) {
  nlohmann::json probes = nlohmann::json::array();
  for (const auto& p : r.probes)
    probes.push_back({{"speed", p.speed},
                      {"commands_per_s", p.commands_per_s},
                      {"worst_p99_ms", p.worst_p99_ms},
                      {"send_lag_p99_ms", p.lag_p99_ms},
                      {"wall_s", p.wall_s},
                      {"commands", p.completed},
                      {"whole_stream_sent", p.exhausted},
                      {"passed", p.passed},
                      {"failed_because", p.reason}});
  auto opt = [](const std::optional<double>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
  };
  return {{"redis", where},
          {"speed", "max"},
          {"clients", a.opt.clients},
          {"threads", a.opt.threads},
          {"pipeline", a.opt.pipeline},
          {"status_cache", a.opt.status_cache},
          {"probe_s", probe_s},
          {"p99_limit_ms", limit_ms},
          {"search",
           {{"max_speed", opt(r.max_speed)},
            {"max_commands_per_s",
             r.max_speed ? nlohmann::json(r.max_commands_per_s) : nlohmann::json(nullptr)},
            {"failing_speed", opt(r.failing_speed)},
            {"limited_by", r.limited_by},
            {"probes", probes}}}};
}

std::string to_table(const redis::speed_search_result& r, const load_args& a, double probe_s,
                     double limit_ms, const std::string& where) {
  std::string s = fmt::format(
      "speed search against {}  clients {}  threads {}  pipeline {}  probes of {} s  p99 limit "
      "{} ms\n\n",
      where, a.opt.clients, a.opt.threads, a.opt.pipeline, probe_s, limit_ms);
  s += fmt::format("{:>10} {:>12} {:>13} {:>12} {:>7}  {}\n", "speed", "commands/s", "worst p99 ms",
                   "lag p99 ms", "wall s", "verdict");
  for (const auto& p : r.probes)
    s += fmt::format("{:>10.4g} {:>12.0f} {:>13.3f} {:>12.2f} {:>7.2f}  {}{}\n", p.speed,
                     p.commands_per_s, p.worst_p99_ms, p.lag_p99_ms, p.wall_s,
                     p.passed ? "kept up" : p.reason, p.exhausted ? " (whole stream sent)" : "");
  if (r.max_speed)
    s += fmt::format("\nfastest speed kept up with: {:.4g}x ({:.0f} commands/s); {}{}\n",
                     *r.max_speed, r.max_commands_per_s,
                     r.failing_speed ? fmt::format("at {:.4g}x: ", *r.failing_speed) : "",
                     r.limited_by);
  else
    s += fmt::format("\nno speed kept up, down to {:.4g}x: {}\n", r.probes.back().speed,
                     r.limited_by);
  return s;
}

}  // namespace

// Every probe on its own keys, deleted after it (also when it throws).
int speed_search(const models::scenario& sc, const redis::redis_url& url, load_args& a) {
  const double probe_s = a.probe_s.value_or(5.0);
  const double limit_ms = a.p99_limit_ms.value_or(50.0);
  const bool tty = ::isatty(STDERR_FILENO) != 0;
  auto probe = [&](double speed) {
    redis::load_options o = a.opt;
    o.speed = speed;
    o.max_speed = false;
    o.duration_s = probe_s;
    o.progress = nullptr;
    redis::key_layout keys{redis::new_run_id()};
    redis::load_result r = redis::deleting_keys_on_error(
        url, keys, a.keep, a.opt.connect, [&] { return redis::run_load(sc, url, keys, o); });
    if (!a.keep) {
      redis::connection cleanup(url, a.opt.connect);
      redis::delete_keys(cleanup, keys);
    }
    auto p = summarise(r, speed);
    if (tty)
      fmt::print(stderr, "load: speed {:.4g}x: {:.0f} commands/s, worst p99 {:.3f} ms\n", speed,
                 p.commands_per_s, p.worst_p99_ms);
    return p;
  };
  redis::speed_search_options so;
  so.p99_limit_ms = limit_ms;
  auto r = redis::search_max_speed(probe, so);
  if (!r.max_speed)
    fmt::print(stderr, "waitroom: load: Redis kept up at no speed down to {:.4g}x: {}\n",
               r.probes.back().speed, r.limited_by);
  const int rc = write_result(
      a.out, a.format.value_or(default_format(a.out.has_value())),
      {.table = [&] { return to_table(r, a, probe_s, limit_ms, url.describe()); },
       .json = [&] { return to_json(r, a, probe_s, limit_ms, url.describe()).dump(2) + "\n"; }});
  if (rc != exit_ok) return rc;
  return r.max_speed ? exit_ok : exit_sla_failed;
}

}  // namespace waitroom::cli
