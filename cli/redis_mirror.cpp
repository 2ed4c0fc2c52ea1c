#include "redis_mirror.hpp"

#include <algorithm>
#include <chrono>
#include <optional>

#include <fmt/format.h>

#include "commands.hpp"
#include "models/room/room.hpp"
#include "redis/cleanup.hpp"
#include "redis/mirror.hpp"
#include "redis/report.hpp"
#include "redis_commands.hpp"
#include "sim/input_error.hpp"

namespace waitroom::cli {

// A broken connection is retried with bounded backoff for `retry_s` seconds (20 by default),
// then the run fails with exit 6; 0 turns reconnecting off.
redis::connect_options reconnecting(std::optional<double> retry_s) {
  redis::connect_options o;
  const double s = retry_s.value_or(20.0);
  o.reconnect = s > 0.0;
  o.give_up_after = std::chrono::milliseconds(static_cast<std::int64_t>(s * 1000.0));
  return o;
}

int redis_exit(const redis::redis_error& e) {
  fmt::print(stderr, "waitroom: {}\n", e.what());
  if (e.kind() == redis::error_kind::bad_url) return exit_bad_input;
  return e.kind() == redis::error_kind::parity ? exit_redis_parity : exit_redis;
}

namespace {

// A mirror that also samples INFO memory at the end of every release round (at most ten
// times a simulated second), with the number of waiting users the operations imply.
class sampled_mirror final : public models::forwarding_mirror {
 public:
  sampled_mirror(redis::redis_mirror& m, redis::connection& c) : forwarding_mirror(m), c_(c) {}
  void enter(std::uint32_t l, std::uint64_t t, double s, std::int64_t n) override {
    ++waiting_;
    forwarding_mirror::enter(l, t, s, n);
  }
  void remove(std::uint32_t l, std::uint64_t t, std::int64_t n) override {
    --waiting_;
    forwarding_mirror::remove(l, t, n);
  }
  void released(std::uint32_t l, std::span<const std::uint64_t> t, std::int64_t n) override {
    waiting_ -= t.size();
    forwarding_mirror::released(l, t, n);
  }
  void drawn(std::uint32_t set, std::uint64_t t, std::int64_t n) override {
    --waiting_;
    forwarding_mirror::drawn(set, t, n);
  }
  void round_end(std::int64_t n) override {
    forwarding_mirror::round_end(n);
    if (n - last_sample_ns_ >= 100'000'000) {
      last_sample_ns_ = n;
      memory.sample(c_, waiting_);
    }
  }
  redis::memory_sampler memory;

 private:
  redis::connection& c_;
  std::uint64_t waiting_ = 0;
  std::int64_t last_sample_ns_ = INT64_MIN / 2;
};

}  // namespace

void require_redis_backend() {}

void refuse_unmirrorable(const models::scenario& s, const std::string& where) {
  if (s.run.warmup == models::warmup_kind::mser5)
    throw sim::input_error(where + "/run/warmup", "no mser5 warm-up with --redis (it runs twice)",
                           "mser5");
}

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

}  // namespace waitroom::cli
