#pragma once
// The room's books: what one replication counts while it runs, per class and per list, under
// the warm-up rule (warmup.hpp): arrivals, refusals, waits of released users, abandonments,
// peaks, the queue-length integral for Little's law, the queue samples, and at the end the
// waits of users still queued (censored). The room reports each change; the ledger owns the
// room_result being built and the warm-up. The per-user calls are inline (hot path).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "models/queues/queues.hpp"
#include "models/results/result.hpp"
#include "models/room/warmup.hpp"
#include "models/spec/scenario.hpp"
#include "models/users/users.hpp"

namespace waitroom::models {

class ledger {
 public:
  ledger(const scenario& s, std::uint64_t seed, std::uint64_t replication);

  void arrived(std::uint32_t c) { ++result_.by_class[c].arrived; }
  // Refused at once because the stock sold out: counted under the warm-up rule by its time.
  void sold_out(std::uint32_t c, std::int64_t now) {
    auto& st = result_.by_class[c];
    ++st.refused;
    if (warmup_.counts(now)) ++st.refused_counted;
  }
  // Refused by the active-user gate (queueing_method reject): counted as a sold-out refusal
  // is (it was left out of refused_counted, so refused_share read 0 for a gate refusing all).
  void turned_away(std::uint32_t c, std::int64_t now) { sold_out(c, now); }
  // Let in at once without queueing (a free concurrency slot): a wait of 0.
  void served_at_once(std::uint32_t c, std::int64_t now) {
    auto& st = result_.by_class[c];
    if (warmup_.record(now, 0)) {
      st.wait_s.add(0.0);
      st.wait_ns.add(0);
    }
    warmup_.released_at(now);
    ++st.released;
    ++released_since_sample_;
  }

  // Before every change of the number waiting (`length` until now): the area under the
  // queue-length curve, and its part after the warm-up for Little's law under the same rule
  // as the waits. Counting from 0, the two areas are the same sums: finish() copies the
  // whole one.
  [[gnu::always_inline]] void queue_changed(std::int64_t now, std::uint64_t length) {
    const auto len = static_cast<double>(length);
    result_.queue_length_area += len * static_cast<double>(now - last_change_ns_) * 1e-9;
    if (const std::int64_t from = warmup_.partial_area_from(); now > from) [[unlikely]]
      result_.queue_length_area_counted +=
          len * static_cast<double>(now - std::max(last_change_ns_, from)) * 1e-9;
    last_change_ns_ = now;
  }
  // A user of class c entered list l; `waiting` and `in_list` count it.
  void entered(std::uint32_t c, std::uint32_t l, std::uint64_t waiting, std::uint64_t in_list) {
    ++waiting_by_class_[c];
    result_.peak_queue_length = std::max(result_.peak_queue_length, waiting);
    peak(l, in_list);
  }
  // A user moved up into list l by aging (`in_list` counts it).
  void aged_in(std::uint32_t l, std::uint64_t in_list) {
    ++result_.by_list[l].aged_in;
    peak(l, in_list);
  }
  // A waiting user of class c who entered at entry_ns left `list` on release now: its wait.
  std::int64_t released(std::uint32_t c, std::uint32_t list, std::int64_t entry_ns,
                        std::int64_t now) {
    const std::int64_t wait = now - entry_ns;
    auto& st = result_.by_class[c];
    if (warmup_.record(entry_ns, wait)) {
      st.wait_s.add(static_cast<double>(wait) * 1e-9);
      st.wait_ns.add(wait);
    }
    warmup_.released_at(now);
    ++st.released;
    --waiting_by_class_[c];
    ++result_.by_list[list].released;
    ++released_since_sample_;
    return wait;
  }
  // A waiting user of class c who entered at entry_ns gave up now: how long it waited.
  std::int64_t abandoned(std::uint32_t c, std::int64_t entry_ns, std::int64_t now,
                         bool paid_later) {
    const std::int64_t waited = now - entry_ns;
    --waiting_by_class_[c];
    auto& st = result_.by_class[c];
    ++st.abandoned;
    if (warmup_.counts(entry_ns)) {
      st.abandon_s.add(static_cast<double>(waited) * 1e-9);
      if (!st.abandon_ns) st.abandon_ns.emplace();
      st.abandon_ns->add(waited);
    }
    if (paid_later) ++st.paid_later;
    return waited;
  }

  // Released from the lists so far (the Redis memory estimate's count).
  std::uint64_t released_from_lists() const;
  bool released_since_sample() const { return released_since_sample_ > 0; }
  const std::vector<std::uint64_t>& waiting_by_class() const { return waiting_by_class_; }
  // A queue sample at t_s with `length` waiting (and, for a lottery, the expected ranks).
  void sample(double t_s, std::uint64_t length, std::vector<double> expected_ranks = {});
  std::size_t sample_count() const { return result_.samples.size(); }
  // Whether the last sample was taken at t_s (or later).
  bool sampled_at(double t_s) const {
    return !result_.samples.empty() && result_.samples.back().t_s >= t_s;
  }

  // At the end of the run (end_ns): the last piece of the area, the censored waits of the
  // users still in `q`, when counting started, who is still waiting, the totals over classes.
  void finish(const queues& q, const users& u, std::int64_t end_ns);

  room_result& result() { return result_; }
  const room_result& result() const { return result_; }
  const std::vector<double>& batch_means() const { return warmup_.batch_means(); }

 private:
  void peak(std::uint32_t l, std::uint64_t in_list) {
    result_.by_list[l].peak_length = std::max(result_.by_list[l].peak_length, in_list);
  }

  warmup warmup_;
  room_result result_;
  std::vector<std::uint64_t> waiting_by_class_;
  std::uint64_t released_since_sample_ = 0;
  std::int64_t last_change_ns_ = 0;
};

}  // namespace waitroom::models
