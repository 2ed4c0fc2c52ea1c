#include "redis_commands.hpp"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <optional>

#include <fmt/format.h>

#include "commands.hpp"
#include "models/room/room.hpp"
#include "options.hpp"
#include "output_file.hpp"
#include "redis/cleanup.hpp"
#include "redis/error.hpp"
#include "redis/load.hpp"
#include "redis/mirror.hpp"
#include "redis/report.hpp"
#include "redis/speed_search.hpp"
#include "reports/report.hpp"
#include "scenario_loading.hpp"
#include "sim/input_error.hpp"
#include "version.hpp"

namespace waitroom::cli {

namespace {

struct load_args {
  std::optional<std::string> scenario;
  std::optional<std::string> url;
  redis::load_options opt;
  std::vector<std::string> sets;
  std::optional<std::uint64_t> seed;
  std::optional<std::string> out, format;
  bool keep = false;
  bool search = false;  // --speed max: find the fastest speed Redis keeps up with
  std::optional<double> probe_s, p99_limit_ms;
  std::optional<double> retry_s;  // --redis-retry: the reconnect budget, 0: none
};

// A broken connection is retried with bounded backoff for `retry_s` seconds (20 by default),
// then the run fails with exit 6; 0 turns reconnecting off.
redis::connect_options reconnecting(std::optional<double> retry_s) {
  redis::connect_options o;
  const double s = retry_s.value_or(20.0);
  o.reconnect = s > 0.0;
  o.give_up_after = std::chrono::milliseconds(static_cast<std::int64_t>(s * 1000.0));
  return o;
}

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
      a.format = value();
      if (*a.format != "table" && *a.format != "json")
        throw sim::input_error("--format", "table or json", "'" + *a.format + "'");
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

double ms(double ns) {
  return ns * 1e-6;
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

bool wants_redis(const std::vector<std::string>& args) {
  return std::find(args.begin(), args.end(), "--redis") != args.end();
}

namespace {

// A mirror that also samples INFO memory at the end of every release round (at most ten
// times a simulated second), with the number of waiting users the operations imply.
class sampled_mirror final : public models::queue_mirror {
 public:
  sampled_mirror(redis::redis_mirror& m, redis::connection& c) : m_(m), c_(c) {}
  void enter(std::uint32_t l, std::uint64_t t, double s, std::int64_t n) override {
    ++waiting_;
    m_.enter(l, t, s, n);
  }
  void remove(std::uint32_t l, std::uint64_t t, std::int64_t n) override {
    --waiting_;
    m_.remove(l, t, n);
  }
  void move(std::uint32_t f, std::uint32_t to, std::uint64_t t, double s, std::int64_t n) override {
    m_.move(f, to, t, s, n);
  }
  void released(std::uint32_t l, std::span<const std::uint64_t> t, std::int64_t n) override {
    waiting_ -= t.size();
    m_.released(l, t, n);
  }
  void drawn(std::uint32_t set, std::uint64_t t, std::int64_t n) override {
    --waiting_;
    m_.drawn(set, t, n);
  }
  void ranked(std::uint32_t l, std::uint64_t t, std::uint64_t r, std::int64_t n) override {
    m_.ranked(l, t, r, n);
  }
  void round_end(std::int64_t n) override {
    m_.round_end(n);
    if (n - last_sample_ns_ >= 100'000'000) {
      last_sample_ns_ = n;
      memory.sample(c_, waiting_);
    }
  }
  redis::memory_sampler memory;

 private:
  redis::redis_mirror& m_;
  redis::connection& c_;
  std::uint64_t waiting_ = 0;
  std::int64_t last_sample_ns_ = INT64_MIN / 2;
};

}  // namespace

redis_request take_redis_flags(std::vector<std::string>& args) {
  redis_request r;
  std::vector<std::string> rest;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--redis") {
      if (i + 1 >= args.size())
        throw sim::input_error("--redis", "a URL (redis://host:port or unix:///path)", "nothing");
      r.url = args[++i];
    } else if (args[i] == "--redis-keep") {
      r.keep = true;
    } else {
      rest.push_back(args[i]);
    }
  }
  if (r.keep && !r.url) throw sim::input_error("--redis-keep", "--redis URL with it", "no --redis");
  args = std::move(rest);
  return r;
}

void refuse_unmirrorable(const models::scenario& s, const std::string& where) {
  if (s.run.warmup == models::warmup_kind::mser5)
    throw sim::input_error(where + "/run/warmup", "no mser5 warm-up with --redis (it runs twice)",
                           "mser5");
}

namespace {

struct mirrored_run {
  models::room_result result;
  nlohmann::json block;  // redis_block + "keys"
  std::uint64_t keys_deleted = 0;
};

// One replication of `s`, every queue operation mirrored on Redis and checked, on its own keys
// (deleted at the end, and on any error, unless keep). Throws redis_error.
mirrored_run mirror_replication(const models::scenario& s, const std::string& where,
                                std::uint64_t seed, std::uint64_t replication,
                                const redis::redis_url& url, bool keep) {
  redis::connection conn(url, reconnecting(std::nullopt));
  redis::key_layout keys{redis::new_run_id()};
  redis::mirror_options mo;
  mo.lottery = s.release.selection.kind == models::selection_kind::lottery;
  mo.releasers = s.release.consumers;
  mo.atomic = s.release.atomic;
  mo.releasers_from = where + "/release/consumers";
  std::optional<redis::token_signer> signer;
  if (s.redis.tokens == models::token_format::signed_hmac) {
    signer = redis::token_signer::from_env_or_random();
    mo.signer = &*signer;
  }
  mirrored_run out;
  redis::deleting_keys_on_error(url, keys, keep, {}, [&] {
    redis::redis_mirror mirror(conn, keys, mo);
    sampled_mirror sampled(mirror, conn);
    // Before the first key, once an earlier scenario's keys are freed: Redis's own used_memory.
    sampled.memory.baseline(conn);
    models::room rm(s, seed, replication);
    rm.set_mirror(&sampled);
    // Strict, ratio or probabilistic over several lists: Redis picks each unit's list itself,
    // one script call per release (docs/redis.md, "The scripts").
    const auto lists = static_cast<std::uint32_t>(s.lists.size());
    if (!mo.lottery &&
        redis::redis_mirror::can_choose(s.release.selection, lists, mo.releasers, mo.atomic)) {
      const auto& rel = rm.release_state();
      mirror.choose_lists(s.release.selection, lists, rel.selector(), rel.stream(),
                          [&rel] { return rel.lost_units(); });
    }
    out.result = rm.run();
    mirror.finish(static_cast<std::int64_t>(out.result.end_time_s * 1e9));
    out.block = redis::redis_block(conn.stats(), mirror.stats(), sampled.memory);
    // Beside Redis's own figure, the model's estimate (the result's run.redis_memory_mb).
    out.block["memory"]["model_estimate_mb"] = out.result.redis_memory_bytes / 1e6;
  });
  if (!keep) out.keys_deleted = redis::delete_keys(conn, keys);
  out.block["keys"] = keep ? keys.prefix() + "*" : std::string("deleted");
  return out;
}

// "parity held over ... ; peak used_memory ..., N keys deleted" (no password: url.describe()).
std::string summary_line(const std::string& where, const nlohmann::json& block,
                         std::uint64_t keys_deleted) {
  const bool kept = block["keys"] != "deleted";
  std::string releasers;
  if (block.contains("releasers")) {
    const auto& r = block["releasers"];
    releasers = fmt::format(
        "\n  {} concurrent releasers ({}): {} calls handed out {} members, {} duplicated, {} "
        "lost{}",
        r["consumers"].get<unsigned>(),
        r["atomic"].get<bool>() ? "the release script" : "ZRANGE, then ZREM",
        r["calls"].get<std::uint64_t>(), r["handed_out"].get<std::uint64_t>(),
        r["duplicated"].get<std::uint64_t>(), r["lost"].get<std::uint64_t>(),
        r["lost"].get<std::uint64_t>() > 0
            ? " (left in Redis by the race; released after it so the run stays in step)"
            : "");
    if (r["reconnects"].get<std::uint64_t>() > 0)
      releasers += fmt::format(
          "; their reconnects: {} ({:.2f} s down in all, "
          "{} commands replayed)",
          r["reconnects"].get<std::uint64_t>(), r["gap_s"].get<double>(),
          r["replayed"].get<std::uint64_t>());
  }
  if (block["reconnects"].get<std::uint64_t>() > 0)
    releasers = fmt::format(
                    "\n  reconnects: {} ({:.2f} s down, {} commands replayed); "
                    "Redis's state matched the model's after each",
                    block["reconnects"].get<std::uint64_t>(), block["gap_s"].get<double>(),
                    block["replayed"].get<std::uint64_t>()) +
                releasers;
  return fmt::format(
      "redis {}: parity held over {} releases ({} users) and {} checked replies; {} round "
      "trips, {:.2f} s waiting on Redis; peak used_memory {:.1f} MB ({:.1f} MB above the "
      "start; the model's estimate {:.1f} MB){}{}\n",
      where, block["releases"].get<std::uint64_t>(), block["released"].get<std::uint64_t>(),
      block["replies_checked"].get<std::uint64_t>(), block["round_trips"].get<std::uint64_t>(),
      block["wait_s"].get<double>(),
      static_cast<double>(block["memory"]["peak_used_bytes"].get<std::int64_t>()) / 1e6,
      block["memory"]["peak_above_start_mb"].get<double>(),
      block["memory"]["model_estimate_mb"].get<double>(),
      kept ? ", keys kept under " + block["keys"].get<std::string>()
           : fmt::format(", {} keys deleted", keys_deleted),
      releasers);
}

int redis_exit(const redis::redis_error& e) {
  fmt::print(stderr, "waitroom: {}\n", e.what());
  if (e.kind() == redis::error_kind::bad_url) return exit_bad_input;
  return e.kind() == redis::error_kind::parity ? exit_redis_parity : exit_redis;
}

}  // namespace

int mirror_first_replications(const redis_request& req,
                              const std::vector<const models::scenario*>& scenarios,
                              const std::vector<std::string>& names, const std::string& name_key,
                              mirrored_blocks& out) {
  try {
    redis::redis_url url = redis::parse_url_from_env(*req.url);
    out.json = nlohmann::json::array();
    for (std::size_t i = 0; i < scenarios.size(); ++i) {
      // As commands.cpp names them in refuse_unmirrorable.
      const std::string where =
          name_key == "scenario" ? names[i] + ": " : "--variant " + names[i] + ": ";
      auto m = mirror_replication(*scenarios[i], where, scenarios[i]->seed, 0, url, req.keep);
      m.block[name_key] = names[i];
      m.block["replication"] = 0;
      if (out.text.empty()) out.text.push_back('\n');
      out.text +=
          summary_line(fmt::format("{} ({} {}, replication 0)", url.describe(), name_key, names[i]),
                       m.block, m.keys_deleted);
      out.json.push_back(std::move(m.block));
    }
    return exit_ok;
  } catch (const redis::redis_error& e) {
    return redis_exit(e);
  }
}

int redis_run_command(const std::vector<std::string>& args) {
  std::vector<std::string> rest = args;
  const redis_request req = take_redis_flags(rest);
  common_args a = parse_args("run", rest, command_kind::run);
  if (a.replications > 1)
    throw sim::input_error("--replications", "1 with --redis (one replication is mirrored)",
                           std::to_string(a.replications));
  if (a.trace) throw sim::input_error("--trace", "no trace with --redis", "--trace");
  models::scenario s = load(a, a.scenario_path);
  refuse_unmirrorable(s, "");
  std::uint64_t seed = a.seed.value_or(s.seed);
  s.seed = seed;
  std::string format = a.format.value_or(a.out ? "json" : "table");
  try {
    redis::redis_url url = redis::parse_url_from_env(*req.url);
    auto m = mirror_replication(s, *a.scenario_path + ": ", seed, 0, url, req.keep);
    std::string text;
    if (format == "json") {
      auto j = reports::result_json(s, m.result, version);
      j["redis"] = m.block;
      text = j.dump(2) + "\n";
    } else {
      text = reports::result_table(s, m.result);
      text += '\n';
      text += summary_line(url.describe(), m.block, m.keys_deleted);
    }
    if (a.out) {
      if (!write_atomically(*a.out, text)) {
        fmt::print(stderr, "waitroom: {}: could not write the result file ({})\n", *a.out,
                   last_write_error());
        return exit_output;
      }
    } else {
      fmt::print("{}", text);
    }
    return exit_ok;
  } catch (const redis::redis_error& e) {
    return redis_exit(e);
  }
}

namespace {

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
  std::string format =
      a.format.value_or(a.out ? "json" : (::isatty(STDOUT_FILENO) ? "table" : "json"));
  std::string text = format == "json"
                         ? to_json(r, a, probe_s, limit_ms, url.describe()).dump(2) + "\n"
                         : to_table(r, a, probe_s, limit_ms, url.describe());
  if (!r.max_speed)
    fmt::print(stderr, "waitroom: load: Redis kept up at no speed down to {:.4g}x: {}\n",
               r.probes.back().speed, r.limited_by);
  if (a.out) {
    if (!write_atomically(*a.out, text)) {
      fmt::print(stderr, "waitroom: {}: could not write the result file ({})\n", *a.out,
                 last_write_error());
      return exit_output;
    }
  } else {
    fmt::print("{}", text);
  }
  return r.max_speed ? exit_ok : exit_sla_failed;
}

}  // namespace

std::string load_usage() {
  return R"(  waitroom load SCENARIO --redis URL [--speed X|asap] [--clients K] [--duration S]
               [--threads T] [--pipeline N] [--no-status-cache] [--redis-keep] [--redis-retry S]
               [--set P=V] [--unset P] [--seed N] [--format table|json] [--out FILE]
  waitroom load SCENARIO --redis URL --speed max [--probe S] [--p99-limit MS] [...]
               the fastest speed Redis keeps up with (exit 1 when none down to 1/64x)
)";
}

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
    std::string format =
        a.format.value_or(a.out ? "json" : (::isatty(STDOUT_FILENO) ? "table" : "json"));
    std::string text = format == "json" ? to_json(r, a.opt, url.describe()).dump(2) + "\n"
                                        : to_table(r, a.opt, url.describe());
    if (a.out) {
      if (!write_atomically(*a.out, text)) {
        fmt::print(stderr, "waitroom: {}: could not write the result file ({})\n", *a.out,
                   last_write_error());
        return exit_output;
      }
    } else {
      fmt::print("{}", text);
    }
    // The result is written (it is the evidence); the exit says the room's state was not kept.
    if (const auto why = redis::release_failure(r.releases); !why.empty()) {
      fmt::print(stderr, "waitroom: load: {}\n", why);
      return exit_redis_parity;
    }
    return exit_ok;
  } catch (const redis::redis_error& e) {
    fmt::print(stderr, "waitroom: {}\n", e.what());
    if (e.kind() == redis::error_kind::bad_url) return exit_bad_input;
    return e.kind() == redis::error_kind::parity ? exit_redis_parity : exit_redis;
  }
}

}  // namespace waitroom::cli
