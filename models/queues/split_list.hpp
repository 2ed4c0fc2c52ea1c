#pragma once
// One waiting list, held as one sorted set per score class (each user class, and boosted
// users as one more) once it is long, merged on every read into the order of the single
// Redis sorted set the list is: by score, then by token. Users of one class enter in score
// order (entry time plus the class's offset), so each set takes its entries as appends at
// its tail; one set for a long list placed each VIP among the ties of the millisecond it
// cuts into, a search and a shift in the tree's middle (in a profile of the flash
// crowd: 12% of the samples). A short list (a priority M/M/1 holds a few
// users) and a list of one class stay one set: there a merge costs more than it saves.
// Tokens are distinct (a bijection of the user's serial), so the merge has no ties.
// Shorter still (up to short_capacity users), the list is a small sorted array and no tree:
// an arrival scans back from the tail (one comparison for an append; a VIP passes the few
// users ahead of it), a release takes the head. A tree's routing, finger and leaf shifts cost
// a priority M/M/1 more than the rest of its queue (a throwaway build holding its
// list as two FIFOs ran 1.5x as fast). Past that length the users move into the tree, and back once
// it is empty.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "models/zset/zset.hpp"

namespace waitroom::models {

template <class Owner>
class split_list {
 public:
  using set_type = zset<derived_store<Owner>>;

  // Owner: list_of/set_list/score_of/token_of/score_class per user (users.hpp).
  split_list(Owner* owner, std::uint8_t list, std::uint32_t score_classes)
      : owner_(owner), list_(list), sets_(score_classes) {}

  // The length at which a list splits into sets by score class (and stays split).
  static constexpr std::uint64_t split_at = 1024;

  // The length up to which the list is a small sorted array (short_list() true).
  static constexpr std::uint32_t short_capacity = 64;

  std::uint64_t size() const { return size_; }
  bool split() const { return split_; }
  bool short_list() const { return short_; }

  // ZADD of a user not in the list.
  [[gnu::always_inline]] void add(double score, std::uint32_t user) {
    const std::uint32_t c = owner_->score_class(user);
    if (short_) {
      if (short_n_ < short_capacity) {
        add_short(score, user);
        classes_seen_ |= std::uint64_t{1} << std::min<std::uint32_t>(c, 63);
        return;
      }
      to_tree();
    }
    auto& s = sets_[split_ ? c : 0];
    size_ += static_cast<std::uint64_t>((s ? *s : make_set(s)).zadd(score, user));
    if (!split_) {
      classes_seen_ |= std::uint64_t{1} << std::min<std::uint32_t>(c, 63);
      // A list of one class (a strict policy's lists, per-SKU lists) has nothing to merge.
      if (size_ >= split_at && (classes_seen_ & (classes_seen_ - 1)) != 0) [[unlikely]]
        split_up();
    }
  }
  // ZREM (nothing when the user is not in the list).
  void remove(std::uint32_t user) {
    if (short_) {
      remove_short(user);
      return;
    }
    if (const auto& s = sets_[split_ ? owner_->score_class(user) : 0])
      size_ -= static_cast<std::uint64_t>(s->zrem(user));
    if (size_ == 0 && !split_) short_ = true;
  }

  // ZPOPMIN of up to n users: f(user) for each in order, after the user left the set.
  template <class F>
  std::uint64_t pop_min(std::uint64_t n, F&& f) {
    n = std::min(n, size_);
    if (n == 0) return 0;
    size_ -= n;
    if (short_) {
      for (std::uint64_t k = 0; k < n; ++k) {
        // Out of the array before f, as ZPOPMIN's member: f sees the list as it now is.
        const std::uint32_t user = short_id_[short_head_++];
        --short_n_;
        owner_->set_list(user, derived_store<Owner>::no_list);
        f(user);
      }
      if (short_n_ == 0) short_head_ = 0;
      return n;
    }
    if (!split_) {
      n = sets_[0]->pop_min(n, [&](std::uint32_t user, double) { f(user); });
      if (size_ == 0) short_ = true;  // the tree is empty: short again
      return n;
    }
    return pop_merged(n, f);
  }

  // ZRANK of a user in the list (for one not in it: where it would be, as the tree says).
  std::uint64_t rank(std::uint32_t user, double score) const {
    if (short_) {
      std::uint64_t r = 0;
      for (std::uint32_t i = short_head_; i < short_head_ + short_n_; ++i)
        r += short_id_[i] != user && after(score, user, short_score_[i], short_id_[i]) ? 1 : 0;
      return r;
    }
    std::uint64_t r = 0;
    for (const auto& s : sets_)
      if (s) r += s->tree().rank(score, user);
    return r;
  }

  // The first user (the list is not empty).
  [[gnu::always_inline]] std::uint32_t head_user() const {
    if (short_) return short_id_[short_head_];
    return split_ ? split_head() : sets_[0]->tree().at(0).id;
  }

  // f(user) for every user, in the list's order.
  template <class F>
  void for_each(F&& f) const {
    if (short_) {
      for (std::uint32_t i = short_head_; i < short_head_ + short_n_; ++i) f(short_id_[i]);
      return;
    }
    std::vector<reader> rs;
    for (const auto& s : sets_)
      if (s && s->zcard() > 0) rs.push_back({&s->tree(), s->tree().pending_in_order()});
    for (auto& r : rs) r.load(*owner_);
    for (;;) {
      reader* best = nullptr;
      for (auto& r : rs)
        if (!r.done() && (!best || r.before(*best))) best = &r;
      if (!best) return;
      f(best->id());
      best->advance(*owner_);
    }
  }

  std::size_t memory_bytes() const {
    std::size_t b = sets_.capacity() * sizeof(sets_[0]) + heads_.capacity() * sizeof(head) +
                    sizeof(short_score_) + sizeof(short_id_);
    for (const auto& s : sets_)
      if (s) b += s->memory_bytes();
    return b;
  }

 private:
  // Whether (sa, ia) comes after (sb, ib) in the sorted set: by score, then by token.
  bool after(double sa, std::uint32_t ia, double sb, std::uint32_t ib) const {
    if (sa != sb) return sa > sb;
    return owner_->token_of(ia) > owner_->token_of(ib);
  }
  // An insert into the short array (not full): scanned back from the tail.
  [[gnu::always_inline]] void add_short(double score, std::uint32_t user) {
    if (std::isnan(score)) [[unlikely]]
      not_a_float();
    if (owner_->list_of(user) == list_) [[unlikely]]
      remove_short(user);  // ZADD of a member: a new score
    if (short_head_ + short_n_ == short_capacity) [[unlikely]]
      compact_short();
    std::uint32_t i = short_head_ + short_n_;
    while (i > short_head_ && after(short_score_[i - 1], short_id_[i - 1], score, user)) {
      short_score_[i] = short_score_[i - 1];
      short_id_[i] = short_id_[i - 1];
      --i;
    }
    short_score_[i] = score;
    short_id_[i] = user;
    ++short_n_;
    ++size_;
    owner_->set_list(user, list_);
  }
  // The free room is before the head: the entries move down to the start.
  [[gnu::noinline]] void compact_short() {
    std::copy_n(short_score_.begin() + short_head_, short_n_, short_score_.begin());
    std::copy_n(short_id_.begin() + short_head_, short_n_, short_id_.begin());
    short_head_ = 0;
  }
  // The position of a user of the short array (its end when absent).
  std::uint32_t short_index(std::uint32_t user) const {
    const std::uint32_t end = short_head_ + short_n_;
    std::uint32_t i = short_head_;
    while (i < end && short_id_[i] != user) ++i;
    return i;
  }
  [[noreturn, gnu::noinline, gnu::cold]] static void not_a_float() {
    throw zset_error("ERR value is not a valid float");  // as ZADD
  }
  // ZREM from the short array (nothing when the user is not in the list). Out of line: the
  // arrival's insert inlines where it is called, and ZADD's with it.
  [[gnu::noinline]] void remove_short(std::uint32_t user) {
    if (owner_->list_of(user) != list_) return;
    const std::uint32_t end = short_head_ + short_n_;
    for (std::uint32_t i = short_index(user); i + 1 < end; ++i) {
      short_score_[i] = short_score_[i + 1];
      short_id_[i] = short_id_[i + 1];
    }
    --short_n_;
    --size_;
    if (short_n_ == 0) short_head_ = 0;
    owner_->set_list(user, derived_store<Owner>::no_list);
  }
  // The short array is full: its users go into the tree, in order (appends).
  [[gnu::noinline]] void to_tree() {
    auto& s = sets_[0];
    if (!s) make_set(s);
    for (std::uint32_t i = short_head_; i < short_head_ + short_n_; ++i) {
      owner_->set_list(short_id_[i], derived_store<Owner>::no_list);  // so ZADD adds it
      move_in(*s, short_score_[i], short_id_[i]);
    }
    short_ = false;
    short_head_ = short_n_ = 0;
  }

  // The pop of a split list: n (<= size) users, size_ already counted down.
  template <class F>
  std::uint64_t pop_merged(std::uint64_t n, F& f) {
    if (n == 1) {  // a free slot takes one user (concurrency): the smallest head, popped
      set_type* best = nullptr;
      double best_score = 0;
      std::uint32_t best_id = 0;
      for (const auto& s : sets_) {
        if (!s || s->zcard() == 0) continue;
        s->settle(1);
        const auto r = s->tree().run_at(0);
        // Tokens only for equal scores: in microseconds they seldom tie.
        if (!best || s->tree().less(*r.score, *r.id, best_score, best_id)) {
          best = s.get();
          best_score = *r.score;
          best_id = *r.id;
        }
      }
      return best->pop_min(1, [&](std::uint32_t user, double) { f(user); });
    }
    heads_.clear();
    for (const auto& s : sets_)
      if (s && s->zcard() > 0) heads_.push_back({s.get()});
    if (heads_.size() == 1)  // one class waiting: the set's own pop
      return heads_[0].set->pop_min(n, [&](std::uint32_t user, double) { f(user); });
    for (auto& h : heads_) {
      h.set->settle(n);  // the ranks read below are in the tree
      h.end = std::min<std::uint64_t>(h.set->zcard(), n);
      load(h);
    }
    for (std::uint64_t i = 0; i < n; ++i) {
      head* best = nullptr;
      if (heads_.size() == 2) {
        // Two classes interleave at random by token: the choice as data, not as a branch
        // the processor would mispredict half the time.
        head& a = heads_[0];
        head& b = heads_[1];
        const bool take_b = a.taken == a.end || (b.taken < b.end && before(b, a));
        best = &heads_[static_cast<std::size_t>(take_b)];
      } else {
        for (auto& h : heads_)
          if (h.taken < h.end && (!best || before(h, *best))) best = &h;
      }
      const std::uint32_t user = *best->r.id;
      best->set->release_member(user);
      f(user);
      ++best->taken;
      ++best->r.score;
      ++best->r.id;
      if (--best->r.n == 0 || best->taken == best->end) {
        if (best->taken < best->end) load(*best);
      } else {
        best->tie = owner_->token_of(*best->r.id);
      }
    }
    for (auto& h : heads_)
      if (h.taken > 0)
        h.set->drop_released_min(h.taken);  // a pop of none would drop the set's finger
    return n;
  }

  [[gnu::noinline]] std::uint32_t split_head() const {
    bool found = false;
    zentry best{};
    for (const auto& s : sets_) {
      if (!s || s->zcard() == 0) continue;
      const zentry e = s->tree().at(0);
      if (!found || s->tree().less(e.score, e.id, best.score, best.id)) {
        best = e;
        found = true;
      }
    }
    return best.id;
  }

  using tree_type = order_tree<derived_store<Owner>>;
  // A set's first entries, read in place by a pop.
  struct head {
    set_type* set;
    std::uint64_t taken = 0;  // entries passed to f
    std::uint64_t end = 0;    // entries the pop may take
    typename tree_type::leaf_run r{};
    std::uint64_t tie = 0;  // the token of *r.id
  };
  void load(head& h) const {
    h.r = h.set->tree().run_at(h.taken);
    h.tie = owner_->token_of(*h.r.id);
  }
  static bool before(const head& a, const head& b) {
    const double sa = *a.r.score, sb = *b.r.score;
    return (sa < sb) | ((sa == sb) & (a.tie < b.tie));  // no branch: see pop_merged
  }

  // A set read whole, off the hot path: the tree's ranks, then the pending run in order.
  struct reader {
    const tree_type* tree;
    std::vector<zentry> tail;
    std::size_t rank = 0;
    typename tree_type::leaf_run r{};
    double score = 0;
    std::uint32_t user = 0;
    std::uint64_t tie = 0;

    bool done() const { return rank >= tree->tree_size() + tail.size(); }
    std::uint32_t id() const { return user; }
    bool before(const reader& o) const { return score != o.score ? score < o.score : tie < o.tie; }
    void load(const Owner& owner) {
      if (done()) return;
      if (rank < tree->tree_size()) {
        if (r.n == 0) r = tree->run_at(rank);
        score = *r.score;
        user = *r.id;
      } else {
        score = tail[rank - tree->tree_size()].score;
        user = tail[rank - tree->tree_size()].id;
      }
      tie = owner.token_of(user);
    }
    void advance(const Owner& owner) {
      ++rank;
      if (r.n > 0) {
        ++r.score;
        ++r.id;
        --r.n;
      }
      load(owner);
    }
  };

  // The ZADD of a user moved between sets, one call for both moves: with more than one
  // call site of ZADD besides add(), the compiler stopped inlining it there.
  [[gnu::noinline]] static void move_in(set_type& s, double score, std::uint32_t user) {
    s.zadd(score, user);
  }
  [[gnu::noinline]] set_type& make_set(std::unique_ptr<set_type>& s) {
    s = std::make_unique<set_type>(owner_, list_);
    return *s;
  }
  // Moves every user out of the one set into its class's set, in order (appends). The first
  // class gets a fresh set too: the old tree's maximum (a bound for appends that erase does
  // not lower) would send that class's later arrivals through a search among ties.
  [[gnu::noinline]] void split_up() {
    split_ = true;
    std::unique_ptr<set_type> old = std::move(sets_[0]);
    std::vector<zentry> all;
    all.reserve(old->zcard());
    old->tree().for_range(0, old->zcard(), [&](zentry e) { all.push_back(e); });
    for (const zentry& e : all) {
      old->zrem(e.id);  // out of the list for the store, so the zadd below adds
      auto& s = sets_[owner_->score_class(e.id)];
      move_in(s ? *s : make_set(s), e.score, e.id);
    }
  }

  Owner* owner_;
  std::uint8_t list_;
  bool short_ = true;  // the users are short_id_[short_head_, short_head_ + short_n_)
  std::uint32_t short_head_ = 0;
  std::uint32_t short_n_ = 0;
  std::array<double, short_capacity> short_score_{};
  std::array<std::uint32_t, short_capacity> short_id_{};
  bool split_ = false;
  std::uint64_t classes_seen_ = 0;  // while one set: a bit per score class added (63: above)
  std::vector<std::unique_ptr<set_type>> sets_;  // by score class, made at first use
  std::uint64_t size_ = 0;
  std::vector<head> heads_;  // a pop's scratch
};

}  // namespace waitroom::models
