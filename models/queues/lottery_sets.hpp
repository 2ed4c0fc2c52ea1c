#pragma once
// A lottery's waiting users: one unordered set per class (Redis SETs drawn like SPOP), or,
// weighted by wait, one entry-order set per class, and the draws made ahead of a release.
// queues (queues.hpp) owns one and keeps the counts and the mirror; this holds the sets.
#include <array>
#include <cstdint>
#include <vector>

#include "models/queues/entry_order_set.hpp"
#include "models/spec/scenario.hpp"
#include "models/users/users.hpp"
#include "sim/random.hpp"
#include "sim/serial_table.hpp"

namespace waitroom::models {

class lottery_sets {
 public:
  lottery_sets(const scenario& s, users& u);
  lottery_sets(const lottery_sets&) = delete;  // users holds a pointer to set_pos_
  lottery_sets& operator=(const lottery_sets&) = delete;

  bool by_wait() const { return by_wait_; }
  std::size_t set_size(std::uint32_t user_class) const {
    return by_wait_ ? wait_sets_[user_class].size() : sets_[user_class].size();
  }
  // Per class, the expected number of users now waiting who will be drawn before one of its
  // users, sum over the others of w_j / (w_i + w_j) (sequential weighted draws; later
  // arrivals not counted).
  std::vector<double> expected_ranks(const std::vector<double>& weights) const;

  // SADD to the class's set.
  void enter(std::uint32_t user, std::uint32_t user_class, std::int64_t now_ns) {
    check_no_plan();
    if (by_wait_) {
      const std::uint32_t slot = wait_sets_[user_class].push(user, now_ns);
      if (removals_) set_pos_.push(user, slot);
    } else {
      auto& set = sets_[user_class];
      if (removals_) set_pos_.push(user, static_cast<std::uint32_t>(set.size()));
      set.push_back(user);
    }
    users_.set_list(user, 0);  // waiting (in a set, not in list 0's sorted set)
  }
  // SREM of a waiting user who gave up.
  void remove(std::uint32_t user, std::uint32_t user_class);

  // A draw: a class with probability weight x size (x its users' waits with wait_scale_s),
  // then a member. Made up to max_planned ahead while the members' memory (random among
  // millions: a cache miss each) is fetched. Unweighted by wait, a draw's class and index
  // depend only on the sets' sizes and the generator; weighted by wait, on the sets' counts
  // and each group's oldest entry (entry_order_set), which the draws before update exactly
  // without reading their members, so a plan ends early only where a set must be compacted
  // (its slots move; compacted before the next plan's first draw). plan_draws(r, n, now)
  // draws up to min(n, max_planned) (n at most the users waiting) and returns how many (at
  // least one when anyone waits); each take_planned() then removes the next, exactly as one
  // draw at a time would have. Nothing may enter or leave a set otherwise while a plan is
  // pending, and take_planned() needs a pending draw (both checked: std::logic_error).
  static constexpr std::size_t max_planned = 64;
  std::size_t plan_draws(sim::rng& r, std::uint64_t n, std::int64_t now_ns);
  std::uint32_t take_planned();

  template <class F>
  void for_each(F&& f) const {
    for (const auto& set : sets_)
      for (std::uint32_t user : set) f(user);
    for (const auto& set : wait_sets_) set.for_each(f);
  }

  std::size_t memory_bytes() const;

 private:
  void remove_from_set(std::uint32_t user_class, std::uint32_t index);
  std::size_t plan_by_wait(sim::rng& r, std::size_t m, std::int64_t now_ns);
  // One draw weighted by wait, its member taken from its set; false (nothing drawn, r
  // untouched) when a set must be compacted first and draws are pending.
  bool draw_by_wait(sim::rng& r, std::int64_t now_ns);
  // A user's entry time, as the entry-order sets ask for it.
  auto entry_of() const {
    return [this](std::uint32_t user) { return users_.entry_ns(user); };
  }
  // tau of the lottery by wait, in nanoseconds: a member weighs w_c (tau + its wait).
  double wait_scale_ns() const { return selection_.wait_scale_s * 1e9; }
  // A by-wait class's envelope and weight at now_ns, after its members changed.
  void weigh(std::size_t user_class, std::int64_t now_ns);
  // Clears the first n members drawn but not yet cleared (entry_order_set::clear), in order.
  void clear_taken(std::size_t n);
  // A set changed while draws made ahead were pending: they would differ from draw()'s.
  void check_no_plan() const;

  users& users_;
  const selection_spec& selection_;
  bool by_wait_;
  // Only a class with a patience removes users other than by a draw: without one, no set
  // position is kept (each would be a write at random per draw or compaction).
  bool removals_;
  std::vector<std::vector<std::uint32_t>> sets_;
  std::vector<entry_order_set> wait_sets_;
  sim::serial_table<std::uint32_t> set_pos_;  // each user's index or slot (only with removals_)
  // Per class, of draw_by_wait: the envelope of the waits (also as a double) and the class's
  // weight, set by weigh() at a plan's start and after each change.
  std::vector<entry_order_set::u128> envelope_;
  std::vector<double> envelope_d_;
  std::vector<double> weight_;
  struct uncleared {  // a draw made ahead whose member is taken but not cleared (no slot yet)
    std::uint32_t plan_index, user_class, word, rank;
  };
  static constexpr std::size_t clear_behind = 8;     // draws; their words' bits fetched meanwhile
  std::array<uncleared, clear_behind> uncleared_{};  // a ring, oldest at uncleared_head_
  std::size_t uncleared_head_ = 0, uncleared_count_ = 0;
  struct planned_draw {
    std::uint32_t user_class;
    std::uint32_t index;
  };
  std::vector<planned_draw> plan_;  // the draws made ahead, taken from plan_next_ on
  std::size_t plan_next_ = 0;
  std::vector<std::size_t> plan_sizes_;  // per class, scratch of plan_draws
};

}  // namespace waitroom::models
