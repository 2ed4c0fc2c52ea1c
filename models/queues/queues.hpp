#pragma once
// The waiting lists behind one interface: one Redis-style sorted set per list (held as one
// set per score class once long: split_list.hpp), or, for a lottery, one unordered set per class
// (lottery_sets.hpp). The room enters, removes, pops and ranks users only through this class,
// and every change is reported to an optional mirror (a live Redis): the seam for a second
// store. In memory the mirror is a null pointer and each operation is inline, with no virtual
// call.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "models/queues/lottery_sets.hpp"
#include "models/queues/queue_mirror.hpp"
#include "models/queues/split_list.hpp"
#include "models/spec/scenario.hpp"
#include "models/users/users.hpp"
#include "sim/random.hpp"

namespace waitroom::models {

class queues {
 public:
  queues(const scenario& s, users& u);
  void set_mirror(queue_mirror* m) { mirror_ = m; }

  bool lottery() const { return lottery_.has_value(); }
  std::uint64_t total() const { return queued_; }
  std::uint64_t size(std::uint32_t list) const { return sizes_[list]; }
  const std::vector<std::uint64_t>& sizes() const { return sizes_; }
  std::uint32_t list_count() const { return static_cast<std::uint32_t>(sizes_.size()); }
  // The first user of a non-empty list (sorted sets only).
  std::uint32_t head(std::uint32_t list) const { return lists_[list].head_user(); }
  // A lottery's class set (lottery_sets::set_size, expected_ranks).
  std::size_t set_size(std::uint32_t user_class) const { return lottery_->set_size(user_class); }
  std::vector<double> expected_ranks(const std::vector<double>& weights) const {
    return lottery_->expected_ranks(weights);
  }

  // ZADD to `list` (a lottery: SADD to the class's set, counted as list 0).
  void enter(std::uint32_t user, std::uint32_t user_class, std::uint32_t list,
             std::int64_t now_ns) {
    if (lottery_) {
      lottery_->enter(user, user_class, now_ns);
      if (mirror_) mirror_->enter(user_class, users_.token_of(user), 0.0, now_ns);
    } else {
      const double score = users_.score_of(user);
      lists_[list].add(score, user);
      if (mirror_) mirror_->enter(list, users_.token_of(user), score, now_ns);
    }
    ++sizes_[list];
    ++queued_;
  }

  // ZREM (SREM) of a waiting user who gave up.
  void remove(std::uint32_t user, std::int64_t now_ns);

  // The release: takes up to n users from the head of `list`, calling f(user) for each in
  // order; returns how many left.
  template <class F>
  std::uint64_t pop(std::uint32_t list, std::uint64_t n, std::int64_t now_ns, F&& f) {
    if (mirror_) popped_.clear();
    const std::uint64_t got = lists_[list].pop_min(n, [&](std::uint32_t user) {
      --sizes_[list];
      --queued_;
      if (mirror_) popped_.push_back(users_.token_of(user));
      f(user);
    });
    if (mirror_ && got > 0) mirror_->released(list, popped_, now_ns);
    return got;
  }

  // A lottery's release of one user, gone from its set; draws made ahead of the release
  // (lottery_sets::plan_draws says how): plan_draws draws up to min(n, max_planned, total()),
  // each take_planned() takes the next.
  std::uint32_t draw(sim::rng& r, std::int64_t now_ns) {
    plan_draws(r, 1, now_ns);
    return take_planned(now_ns);
  }
  static constexpr std::size_t max_planned = lottery_sets::max_planned;
  std::size_t plan_draws(sim::rng& r, std::uint64_t n, std::int64_t now_ns) {
    return lottery_->plan_draws(r, std::min(n, queued_), now_ns);
  }
  std::uint32_t take_planned(std::int64_t now_ns);
  bool by_wait() const { return lottery_ && lottery_->by_wait(); }

  // Aging: ZREM from one list, ZADD to another, same score.
  void move(std::uint32_t user, std::uint32_t from, std::uint32_t to, std::int64_t now_ns);
  // A temporary-VIP credit applied in place: ZREM, the user is boosted, ZADD at its new score.
  void rescore_boosted(std::uint32_t user, std::int64_t now_ns);
  // ZRANK of a waiting user in its list.
  std::uint64_t rank(std::uint32_t user, std::int64_t now_ns) const;
  void round_end(std::int64_t now_ns) const {
    if (mirror_) mirror_->round_end(now_ns);
  }
  // At a queue-length sample: each list's (a lottery: each class set's) size to the mirror.
  void report_sizes(std::int64_t now_ns) const {
    if (mirror_) report_sizes_to_mirror(now_ns);
  }

  // Every waiting user (for the censored waits and polls at the end of a run).
  template <class F>
  void for_each_waiting(F&& f) const {
    for (const auto& l : lists_) l.for_each(f);
    if (lottery_) lottery_->for_each(f);
  }

  std::size_t memory_bytes() const;

 private:
  void report_sizes_to_mirror(std::int64_t now_ns) const;

  users& users_;
  queue_mirror* mirror_ = nullptr;
  std::vector<split_list<users>> lists_;
  std::vector<std::uint64_t> sizes_;  // per list (a lottery counts everyone in list 0)
  std::uint64_t queued_ = 0;
  std::vector<std::uint64_t> popped_;  // one release's tokens, for the mirror
  std::optional<lottery_sets> lottery_;
  std::uint32_t classes_ = 0;
};

}  // namespace waitroom::models
