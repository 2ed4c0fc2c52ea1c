// `waitroom load SCENARIO --redis URL`: the scenario's own Redis command stream sent in
// wall-clock time from several connections, with rates and latency per command.
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <optional>

#include <fmt/format.h>

#include "commands.hpp"
#include "options.hpp"
#include "output_file.hpp"
#include "output_writer.hpp"
#include "redis/cleanup.hpp"
#include "redis/error.hpp"
#include "redis/load.hpp"
#include "redis/report.hpp"
#include "redis_commands.hpp"
#include "redis_load.hpp"
#include "redis_mirror.hpp"
#include "scenario_loading.hpp"
#include "sim/input_error.hpp"

namespace waitroom::cli {

namespace {

// The formats load writes.
constexpr output_format load_formats[] = {output_format::table, output_format::json};

double number(const std::string& flag, const std::string& v, double lo) {
  double x = 0;
  auto r = std::from_chars(v.data(), v.data() + v.size(), x);
  if (v.empty() || r.ec != std::errc() || r.ptr != v.data() + v.size() || !(x > lo))
    throw sim::input_error(flag, fmt::format("a number above {}", lo), "'" + v + "'");
  return x;
}

load_args parse(const std::vector<std::string>& args) {
  load_args a;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& f = args[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= args.size())
        throw sim::input_error(f, "a value after it", "the end of the line");
      return args[++i];
    };
    if (f == "--redis") {
      a.url = value();
    } else if (f == "--speed") {
      auto v = value();
      if (v == "max")
        a.search = true;
      else if (v == "asap")
        a.opt.max_speed = true;
      else
        a.opt.speed = number("--speed", v, 0.0);
    } else if (f == "--clients") {
      a.opt.clients = static_cast<unsigned>(number("--clients", value(), 0.0));
    } else if (f == "--threads") {
      a.opt.threads = static_cast<unsigned>(number("--threads", value(), 0.0));
    } else if (f == "--duration") {
      a.opt.duration_s = number("--duration", value(), 0.0);
    } else if (f == "--probe") {
      a.probe_s = number("--probe", value(), 0.0);
    } else if (f == "--p99-limit") {
      a.p99_limit_ms = number("--p99-limit", value(), 0.0);
    } else if (f == "--pipeline") {
      a.opt.pipeline = static_cast<std::size_t>(number("--pipeline", value(), 0.0));
    } else if (f == "--redis-retry") {
      const auto v = value();
      double x = 0;
      auto r = std::from_chars(v.data(), v.data() + v.size(), x);
      if (v.empty() || r.ec != std::errc() || r.ptr != v.data() + v.size() || !(x >= 0.0) ||
          x > 86400.0)  // a day: far beyond any restart, and no overflow in milliseconds
        throw sim::input_error("--redis-retry", "seconds from 0 (no reconnect) to 86400",
                               "'" + v + "'");
      a.retry_s = x;
    } else if (f == "--no-status-cache") {
      a.opt.status_cache = false;
    } else if (f == "--redis-keep") {
      a.keep = true;
    } else if (f == "--set") {
      a.sets.push_back(value());
    } else if (f == "--unset") {
      a.sets.push_back(std::string(unset_prefix) + value());
    } else if (f == "--seed") {
      a.seed = static_cast<std::uint64_t>(number("--seed", value(), -1.0));
    } else if (f == "--out") {
      a.out = value();
    } else if (f == "--format") {
      a.format = parse_format(value(), load_formats);
    } else if (!f.starts_with("--") && !a.scenario) {
      a.scenario = f;
    } else {
      throw sim::input_error("waitroom load", "one of the options in `waitroom --help`",
                             "'" + f + "'");
    }
  }
  if (!a.scenario) throw sim::input_error("waitroom load", "a SCENARIO file", "none");
  if (a.out) refuse_same_file({{"--out", *a.out}}, {{"the scenario file", *a.scenario}});
  if (!a.url)
    throw sim::input_error("--redis", "a URL (redis://host:port or unix:///path)", "none");
  a.opt.connect = reconnecting(a.retry_s);
  if (!a.search && (a.probe_s || a.p99_limit_ms))
    throw sim::input_error(a.probe_s ? "--probe" : "--p99-limit", "--speed max with it",
                           "no search (--speed is not max)");
  if (a.search && a.opt.duration_s > 0)
    throw sim::input_error("--duration", "--probe S with --speed max (each probe's length)",
                           "--duration");
  return a;
}

nlohmann::json to_json(const redis::load_result& r, const redis::load_options& o,
                       const std::string& where) {
  nlohmann::json cmds = nlohmann::json::object();
  for (const auto& [name, c] : r.commands) {
    cmds[name] = {{"requested", c.requested},
                  {"completed", c.completed},
                  {"errors", c.errors},
                  {"timeouts", c.timeouts},
                  {"latency_ms",
                   {{"p50", ms(c.latency_ns.quantile(0.5))},
                    {"p99", ms(c.latency_ns.quantile(0.99))},
                    {"p999", ms(c.latency_ns.quantile(0.999))},
                    {"max", ms(static_cast<double>(c.latency_ns.max()))}}},
                  {"requested_per_s", c.requested_per_s},
                  {"completed_per_s", c.completed_per_s}};
  }
  return {{"redis", where},
          {"speed", o.max_speed ? nlohmann::json("asap") : nlohmann::json(o.speed)},
          {"clients", o.clients},
          {"threads", o.threads},
          {"pipeline", o.pipeline},
          {"status_cache", o.status_cache},
          {"wall_s", r.wall_s},
          {"simulated_s", r.virtual_s},
          {"users", r.users},
          {"stopped_by_duration", r.stopped_by_duration},
          {"behind_schedule", r.behind},
          {"send_lag_ms",
           {{"p50", ms(r.lag_ns.quantile(0.5))},
            {"p99", ms(r.lag_ns.quantile(0.99))},
            {"max", ms(static_cast<double>(r.lag_ns.max()))}}},
          {"commands", cmds},
          {"releases",
           {{"consumers", r.releases.consumers},
            {"atomic", r.releases.atomic},
            {"requested", r.releases.requested},
            {"handed_out", r.releases.handed_out},
            {"duplicated", r.releases.duplicated},
            {"lost", r.releases.lost},
            {"drawn", r.releases.drawn},
            {"released_set", r.releases.released_set >= 0 ? nlohmann::json(r.releases.released_set)
                                                          : nlohmann::json(nullptr)},
            {"counted", r.releases.counted >= 0 ? nlohmann::json(r.releases.counted)
                                                : nlohmann::json(nullptr)}}},
          {"reconnects", r.reconnects},
          {"gap_s", r.gap_s},
          {"retried", r.retried},
          {"unsent", r.unsent},
          {"tokens", r.checks.lookups > 0 ? "signed" : "hex"},
          {"token_checks",
           {{"lookups", r.checks.lookups},
            {"rejected", r.checks.rejected},
            {"ns_per_lookup", r.checks.lookups > 0
                                  ? nlohmann::json(static_cast<double>(r.checks.ns) /
                                                   static_cast<double>(r.checks.lookups))
                                  : nlohmann::json(nullptr)}}}};
}

std::string to_table(const redis::load_result& r, const redis::load_options& o,
                     const std::string& where) {
  std::string s =
      fmt::format("load against {}  speed {}  clients {}  threads {}  pipeline {}\n", where,
                  o.max_speed ? std::string("asap") : fmt::format("{}x", o.speed), o.clients,
                  o.threads, o.pipeline);
  s += fmt::format(
      "wall {:.1f} s, simulated {:.1f} s, {} users; sent behind schedule by p50 {:.2f} ms, p99 "
      "{:.2f} ms, max {:.2f} ms\n\n",
      r.wall_s, r.virtual_s, r.users, ms(r.lag_ns.quantile(0.5)), ms(r.lag_ns.quantile(0.99)),
      ms(static_cast<double>(r.lag_ns.max())));
  if (r.checks.lookups > 0)
    s += fmt::format(
        "signed tokens: {} lookups verified before ZRANK, {} rejected, {:.0f} ns each\n\n",
        r.checks.lookups, r.checks.rejected,
        static_cast<double>(r.checks.ns) / static_cast<double>(r.checks.lookups));
  // Always: a run whose table shows every command completed may still have lost users.
  const auto& rel = r.releases;
  s += fmt::format(
      "releases: {} releaser{} a tick ({}): {} members requested, {} handed out, {} "
      "duplicated, {} lost",
      rel.consumers, rel.consumers == 1 ? "" : "s",
      rel.atomic ? "the release script" : "ZRANGE, then ZREM", rel.requested, rel.handed_out,
      rel.duplicated, rel.lost);
  if (rel.drawn > 0) s += fmt::format(", {} drawn", rel.drawn);
  if (rel.released_set >= 0) {
    s += fmt::format("; Redis's released set {}", rel.released_set);
    if (rel.atomic) s += fmt::format(", counters {}", rel.counted);
  }
  s += "\n";
  if (const auto why = redis::release_failure(rel); !why.empty())
    s += "RELEASES FAILED: " + why + "\n";
  else if (rel.lost > 0 && rel.released_set >= 0)
    s += fmt::format(
        "  {} lost: still waiting in Redis (a release overtook their entry, sent on another "
        "connection)\n",
        rel.lost);
  s += "\n";
  if (r.reconnects > 0)
    s += fmt::format(
        "reconnects: {} (connections down for {:.2f} s of wall time), {} commands retried\n\n",
        r.reconnects, r.gap_s, r.retried);
  if (r.behind)
    s += "BEHIND SCHEDULE: p99 of the send lag is above 100 ms (Redis or these clients cannot "
         "keep this speed)\n\n";
  s += fmt::format("{:<16} {:>10} {:>10} {:>10} {:>10} {:>7} {:>8} {:>9} {:>9} {:>9} {:>9}\n",
                   "command", "requested", "completed", "req/s", "done/s", "errors", "timeouts",
                   "p50 ms", "p99 ms", "p99.9 ms", "max ms");
  for (const auto& [name, c] : r.commands) {
    double wall = r.wall_s > 0 ? r.wall_s : 1.0;
    s += fmt::format(
        "{:<16} {:>10} {:>10} {:>10.0f} {:>10.0f} {:>7} {:>8} {:>9.3f} {:>9.3f} {:>9.3f} "
        "{:>9.3f}\n",
        name, c.requested, c.completed, static_cast<double>(c.requested) / wall,
        static_cast<double>(c.completed) / wall, c.errors, c.timeouts,
        ms(c.latency_ns.quantile(0.5)), ms(c.latency_ns.quantile(0.99)),
        ms(c.latency_ns.quantile(0.999)), ms(static_cast<double>(c.latency_ns.max())));
  }
  return s;
}

}  // namespace

int load_command(const std::vector<std::string>& args) {
  if (std::find(args.begin(), args.end(), "--help") != args.end() ||
      std::find(args.begin(), args.end(), "-h") != args.end()) {
    fmt::print("usage:\n{}\nSee docs/redis.md (load mode).\n", load_usage());
    return exit_ok;
  }
  load_args a = parse(args);
  common_args c;
  c.scenario_path = a.scenario;
  c.sets = a.sets;
  c.seed = a.seed;
  models::scenario sc = load(c, a.scenario);
  try {
    redis::redis_url url = redis::parse_url_from_env(*a.url);
    redis::key_layout keys{redis::new_run_id()};
    if (::isatty(STDERR_FILENO) != 0)
      a.opt.progress = [](const std::string& line) { fmt::print(stderr, "\r{}", line); };
    if (a.search) return speed_search(sc, url, a);
    redis::load_result r = redis::deleting_keys_on_error(
        url, keys, a.keep, a.opt.connect, [&] { return redis::run_load(sc, url, keys, a.opt); });
    if (a.opt.progress) fmt::print(stderr, "\n");
    std::uint64_t failed = 0;
    for (const auto& [name, cl] : r.commands) failed += cl.errors + cl.timeouts;
    if (failed > 0) {
      // The load's own failure first: when Redis went away mid-run, the cleanup below fails
      // too, and its "connection refused" must not hide what happened to the commands.
      fmt::print(stderr, "{}", to_table(r, a.opt, url.describe()));
      fmt::print(stderr,
                 "waitroom: load: stopped after {:.1f} s ({:.1f} s simulated), {} commands not "
                 "sent: {} commands failed; first: {}\n",
                 r.wall_s, r.virtual_s, r.unsent, failed, r.first_error);
      if (!a.keep) {
        try {
          redis::connection cleanup(url, a.opt.connect);
          redis::delete_keys(cleanup, keys);
        } catch (const redis::redis_error& e) {
          fmt::print(stderr, "waitroom: load: the run's keys ({}*) could not be deleted: {}\n",
                     keys.prefix(), e.what());
        }
      }
      return exit_redis;
    }
    if (!a.keep) {
      redis::connection cleanup(url, a.opt.connect);
      redis::delete_keys(cleanup, keys);
    }
    const int rc =
        write_result(a.out, a.format.value_or(default_format(a.out.has_value())),
                     {.table = [&] { return to_table(r, a.opt, url.describe()); },
                      .json = [&] { return to_json(r, a.opt, url.describe()).dump(2) + "\n"; }});
    if (rc != exit_ok) return rc;
    // The result is written (it is the evidence); the exit says the room's state was not kept.
    if (const auto why = redis::release_failure(r.releases); !why.empty()) {
      fmt::print(stderr, "waitroom: load: {}\n", why);
      return exit_redis_parity;
    }
    return exit_ok;
  } catch (const redis::redis_error& e) {
    return redis_exit(e);
  }
}

}  // namespace waitroom::cli
