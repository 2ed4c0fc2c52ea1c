#pragma once
// A stream of queue operations built from the project's own score policies and tokens, run
// through the in-memory sorted set (models/zset) and reported to a queue_mirror, as the room
// does: entries (Poisson, a VIP share), abandonments, aging moves from the normal list to the
// VIP list, a release every tick (ratio between the lists), followed users' ZRANK.
#include <cstdint>
#include <memory>
#include <vector>

#include "models/queues/queue_mirror.hpp"
#include "models/scores/score_policy.hpp"
#include "models/zset/zset.hpp"
#include "sim/random.hpp"
#include "sim/time.hpp"

namespace waitroom::testing_support {

struct stream_config {
  models::score_policy policy;
  std::uint64_t users = 100'000;
  double rate_per_s = 20'000;  // arrivals
  double vip_share = 0.2;
  std::uint32_t lists = 1;  // 1: one list for all; 2: VIP list 0, normal list 1
  std::int64_t tick_ns = 100'000'000;
  std::size_t batch = 1'000;    // per tick, split 1:3 between the lists when two
  double abandon_share = 0.01;  // of arrivals, someone earlier gives up
  double aging_share = 0.0;     // of ticks, the normal head moves to the VIP list
  bool follow = true;           // ZRANK of a few users each tick
  std::uint64_t seed = 7;
};

struct stream_result {
  std::uint64_t released = 0;
  std::uint64_t abandoned = 0;
  std::uint64_t moved = 0;
  std::uint64_t ranks = 0;
  std::uint64_t out_of_arrival_order = 0;  // released before someone of its class who came earlier
  std::int64_t end_ns = 0;
};

inline stream_result run_stream(const stream_config& cfg, models::queue_mirror* mirror) {
  using namespace waitroom::models;
  const std::uint64_t salt = sim::mix64(cfg.seed ^ 0x70c3e5);
  const std::uint64_t noise_salt = sim::mix64(cfg.seed ^ 0x5c0e);
  std::vector<std::unique_ptr<token_zset>> lists;
  for (std::uint32_t l = 0; l < cfg.lists; ++l) lists.push_back(std::make_unique<token_zset>(salt));
  std::vector<std::uint32_t> cls(cfg.users), where(cfg.users);
  std::vector<std::int64_t> entry(cfg.users);
  sim::rng arrivals(cfg.seed, 0, "arrivals"), pick(cfg.seed, 0, "pick");
  stream_result res;
  auto token = [&](std::uint32_t u) { return sim::mix64(u ^ salt); };
  auto score = [&](std::uint32_t u, std::uint32_t c) {
    double x = static_cast<double>(sim::mix64(u ^ noise_salt) >> 11) * 0x1.0p-53;
    return cfg.policy.score(sim::sim_time::from_ns(entry[u]), c, x);
  };
  std::int64_t last_released_entry[2] = {-1, -1};
  std::uint32_t next = 0;
  double t = 0.0;
  std::int64_t next_arrival = 0;
  std::vector<std::uint64_t> out;
  std::int64_t now = 0;
  std::uint64_t tick = 0;
  for (;; ++tick) {
    now = static_cast<std::int64_t>(tick) * cfg.tick_ns;
    while (next < cfg.users && next_arrival <= now) {
      std::uint32_t u = next++;
      entry[u] = next_arrival;
      cls[u] = arrivals.uniform01() < cfg.vip_share ? 0 : 1;
      std::uint32_t l = cfg.lists == 1 ? 0 : cls[u];
      where[u] = l;
      double s = score(u, cls[u]);
      lists[l]->zadd(s, u);
      if (mirror) mirror->enter(l, token(u), s, next_arrival);
      if (pick.uniform01() < cfg.abandon_share) {
        auto v = static_cast<std::uint32_t>(pick.below(next));
        if (lists[where[v]]->zrem(v) == 1) {
          ++res.abandoned;
          if (mirror) mirror->remove(where[v], token(v), next_arrival);
        }
      }
      t += -std::log(arrivals.uniform_open0()) / cfg.rate_per_s;
      next_arrival = static_cast<std::int64_t>(t * 1e9);
    }
    if (cfg.lists == 2 && pick.uniform01() < cfg.aging_share && lists[1]->zcard() > 0) {
      auto head = lists[1]->zrange(0, 0).front().first;
      lists[1]->zrem(head);
      where[head] = 0;
      double s = score(head, 0);  // aged: scored as a VIP from its own entry time
      lists[0]->zadd(s, head);
      ++res.moved;
      if (mirror) mirror->move(1, 0, token(head), s, now);
    }
    for (std::uint32_t l = 0; l < cfg.lists; ++l) {
      std::size_t n =
          cfg.lists == 1 ? cfg.batch : (l == 0 ? cfg.batch / 4 : cfg.batch - cfg.batch / 4);
      out.clear();
      lists[l]->pop_min(n, [&](std::uint32_t u, double) {
        out.push_back(token(u));
        std::uint32_t c = cls[u];
        if (entry[u] < last_released_entry[c]) ++res.out_of_arrival_order;
        last_released_entry[c] = std::max(last_released_entry[c], entry[u]);
      });
      res.released += out.size();
      if (mirror && !out.empty()) mirror->released(l, out, now);
    }
    if (cfg.follow) {
      for (int k = 0; k < 3 && next > 0; ++k) {
        auto v = static_cast<std::uint32_t>(pick.below(next));
        if (auto r = lists[where[v]]->zrank(v)) {
          ++res.ranks;
          if (mirror) mirror->ranked(where[v], token(v), *r, now);
        }
      }
    }
    if (mirror) mirror->round_end(now);
    bool empty = true;
    for (auto& l : lists) empty = empty && l->zcard() == 0;
    if (next == cfg.users && empty) break;
  }
  res.end_ns = now;
  return res;
}

}  // namespace waitroom::testing_support
