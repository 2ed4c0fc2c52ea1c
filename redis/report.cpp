#include "redis/report.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <thread>

namespace waitroom::redis {

namespace {

std::optional<std::int64_t> find_field(std::string_view info, std::string_view name) {
  std::string key = std::string(name) + ":";
  auto at = info.find("\r\n" + key);
  if (at == std::string_view::npos) {
    if (!info.starts_with(key)) return std::nullopt;
    at = 0;
  } else {
    at += 2;
  }
  return std::stoll(std::string(info.substr(at + key.size(), 24)));
}

std::int64_t field(std::string_view info, std::string_view name) {
  if (auto v = find_field(info, name)) return *v;
  throw redis_error(error_kind::reply, "INFO memory: no " + std::string(name) + " field");
}

}  // namespace

memory_info info_memory(connection& c) {
  reply r = c.call({"INFO", "memory"});
  return {field(r.str, "used_memory"), field(r.str, "used_memory_peak")};
}

bool wait_for_lazy_free(connection& c, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    reply r = c.call({"INFO", "memory"});
    auto pending = find_field(r.str, "lazyfree_pending_objects");
    if (!pending) return false;
    if (*pending == 0) return true;
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

void memory_sampler::baseline(connection& c) {
  wait_for_lazy_free(c);
  sample(c, 0);
}

void memory_sampler::sample(connection& c, std::uint64_t waiting_users) {
  auto m = info_memory(c);
  if (samples_++ == 0) first_ = m.used_memory;
  if (m.used_memory > peak_) {
    peak_ = m.used_memory;
    waiting_at_peak_ = waiting_users;
  }
}

nlohmann::json redis_block(const command_stats& c, const mirror_stats& m,
                           const memory_sampler& mem) {
  nlohmann::json commands = nlohmann::json::object();
  for (const auto& [name, n] : c.sent) commands[name] = n;
  nlohmann::json memory = {
      {"peak_used_bytes", mem.peak_used_memory()},
      {"waiting_at_peak", mem.waiting_at_peak()},
      {"samples", mem.samples()},
      {"start_used_bytes", mem.first_used_memory()},
      {"peak_above_start_mb",
       static_cast<double>(mem.peak_used_memory() - mem.first_used_memory()) / 1e6}};
  if (mem.waiting_at_peak() > 0)
    memory["per_waiting_user_bytes"] =
        static_cast<double>(mem.peak_used_memory()) / static_cast<double>(mem.waiting_at_peak());
  nlohmann::json block = {{"commands", commands},
                          {"round_trips", c.round_trips},
                          {"wait_s", static_cast<double>(c.wait_ns) * 1e-9},
                          {"reconnects", c.reconnects},
                          {"gap_s", static_cast<double>(c.gap_ns) * 1e-9},
                          {"replayed", c.replayed},
                          {"releases", m.releases},
                          {"released", m.released_members},
                          {"replies_checked", m.replies_checked},
                          {"memory", memory}};
  // Only where Redis chose the lists itself (strict, ratio, probabilistic over several lists).
  if (m.chosen_releases > 0)
    block["list_choice"] = {{"script_calls", m.chosen_releases}, {"lost_units", m.chosen_lost}};
  // Only with release.consumers or release.atomic set, so other results keep their bytes.
  if (m.releasers > 1 || !m.atomic) {
    nlohmann::json sent = nlohmann::json::object();
    for (const auto& [name, n] : m.releaser_commands.sent) sent[name] = n;
    block["releasers"] = {{"consumers", m.releasers},
                          {"atomic", m.atomic},
                          {"rounds", m.rounds},
                          {"calls", m.releaser_calls},
                          {"handed_out", m.handed_out},
                          {"duplicated", m.duplicated},
                          {"lost", m.lost},
                          {"commands", sent},
                          {"round_trips", m.releaser_commands.round_trips},
                          {"wait_s", static_cast<double>(m.releaser_commands.wait_ns) * 1e-9},
                          // Summed over the releasers' connections (gap_s: each one's gaps).
                          {"reconnects", m.releaser_commands.reconnects},
                          {"gap_s", static_cast<double>(m.releaser_commands.gap_ns) * 1e-9},
                          {"replayed", m.releaser_commands.replayed}};
  }
  return block;
}

}  // namespace waitroom::redis
