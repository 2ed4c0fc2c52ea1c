#include "models/queues/lottery_sets.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>

namespace waitroom::models {

namespace {
// The class a lottery draw takes: u (uniform below the total of the weights) walked through
// the classes in order, empty ones passed over; rounding at the top end gives the last
// non-empty class. (A branch-free walk was tried: its extra instructions cost more than the
// mispredictions it saved, with two classes.)
template <class Weight, class Empty>
std::size_t choose_class(double u, std::size_t classes, Weight weight, Empty empty) {
  std::size_t last_nonempty = 0;
  for (std::size_t c = 0; c < classes; ++c) {
    if (empty(c)) continue;
    last_nonempty = c;
    const double wc = weight(c);
    if (u < wc) return c;
    u -= wc;
  }
  return last_nonempty;
}

// Uniform below n, which may need more than 64 bits (a long wait x millions of members).
entry_order_set::u128 below_wide(sim::rng& r, entry_order_set::u128 n) {
  const auto high = static_cast<std::uint64_t>(n >> 64);
  if (high == 0) return r.below(static_cast<std::uint64_t>(n));
  const std::uint64_t mask = ~std::uint64_t{0} >> std::countl_zero(high);
  for (;;) {                                   // accepted with probability at least 1/2
    const std::uint64_t hi = r.next() & mask;  // the high word first, on every compiler
    const std::uint64_t lo = r.next();
    const entry_order_set::u128 x = entry_order_set::u128{hi} << 64 | lo;
    if (x < n) return x;
  }
}

// static_cast<double>(x), which both round to nearest, without the library call while x fits
// in 64 bits.
double to_double(entry_order_set::u128 x) {
  if (static_cast<std::uint64_t>(x >> 64) == 0)
    return static_cast<double>(static_cast<std::uint64_t>(x));
  return static_cast<double>(x);
}
}  // namespace

lottery_sets::lottery_sets(const scenario& s, users& u)
    : users_(u),
      selection_(s.release.selection),
      by_wait_(s.release.selection.wait_scale_s > 0),
      removals_(std::any_of(s.classes.begin(), s.classes.end(),
                            [](const user_class& c) { return c.patience_s.has_value(); })) {
  const std::size_t n = s.classes.size();
  if (by_wait_) {
    wait_sets_.resize(n);
    envelope_.resize(n);
    envelope_d_.resize(n);
    weight_.resize(n);
  } else {
    sets_.resize(n);
  }
  if (removals_) users_.attach(&set_pos_);
}

void lottery_sets::remove(std::uint32_t user, std::uint32_t c) {
  check_no_plan();
  if (!removals_) throw std::logic_error("queues: a removal where no class has a patience");
  if (by_wait_) {
    wait_sets_[c].erase(set_pos_[user], entry_of());
    users_.set_list(user, users::no_list);
  } else {
    remove_from_set(c, set_pos_[user]);
  }
}

// Like SPOP: swap member i with the last one and drop it.
void lottery_sets::remove_from_set(std::uint32_t c, std::uint32_t i) {
  auto& set = sets_[c];
  users_.set_list(set[i], users::no_list);
  set[i] = set.back();
  if (removals_) set_pos_[set[i]] = i;
  set.pop_back();
}

std::size_t lottery_sets::plan_draws(sim::rng& r, std::uint64_t n, std::int64_t now_ns) {
  check_no_plan();
  const auto m = static_cast<std::size_t>(std::min<std::uint64_t>(n, max_planned));
  if (by_wait_) return plan_by_wait(r, m, now_ns);
  const auto& w = selection_.class_weights;
  auto& sz = plan_sizes_;
  sz.resize(sets_.size());
  for (std::size_t c = 0; c < sets_.size(); ++c) sz[c] = sets_[c].size();
  plan_.clear();
  plan_next_ = 0;
  for (std::size_t k = 0; k < m; ++k) {
    // As draw() with these sizes: the same arithmetic, the same draws from r.
    double total = 0;
    for (std::size_t c = 0; c < w.size(); ++c) total += w[c] * static_cast<double>(sz[c]);
    const std::size_t c = choose_class(
        r.uniform01() * total, w.size(),
        [&](std::size_t j) { return w[j] * static_cast<double>(sz[j]); },
        [&](std::size_t j) { return sz[j] == 0; });
    const auto i = static_cast<std::uint32_t>(r.below(sz[c]));
    --sz[c];
    plan_.push_back({static_cast<std::uint32_t>(c), i});
    __builtin_prefetch(&sets_[c][i]);
  }
  return m;
}

std::uint32_t lottery_sets::take_planned() {
  if (plan_next_ >= plan_.size()) throw std::logic_error("take_planned: no draw made ahead");
  // The member a later draw will take (if no swap moves another there first): its fields.
  constexpr std::size_t ahead = 8;
  if (plan_next_ + ahead < plan_.size()) {
    const planned_draw& p = plan_[plan_next_ + ahead];
    users_.prefetch(by_wait_ ? wait_sets_[p.user_class].user_at(p.index)
                             : sets_[p.user_class][p.index]);
  }
  const planned_draw p = plan_[plan_next_++];
  std::uint32_t user = 0;
  if (by_wait_) {  // already out of its set
    user = wait_sets_[p.user_class].user_at(p.index);
    users_.set_list(user, users::no_list);
  } else {
    user = sets_[p.user_class][p.index];
    remove_from_set(p.user_class, p.index);
  }
  return user;
}

void lottery_sets::check_no_plan() const {
  if (plan_next_ < plan_.size())
    throw std::logic_error("a lottery set changed while draws made ahead were pending");
}

std::size_t lottery_sets::plan_by_wait(sim::rng& r, std::size_t m, std::int64_t now_ns) {
  plan_.clear();
  plan_next_ = 0;
  for (const entry_order_set& set : wait_sets_)  // the draws' waits are unsigned
    if (now_ns < set.last_entry_ns())
      throw std::logic_error("queues: a lottery draw before its last member's entry");
  for (std::size_t c = 0; c < wait_sets_.size(); ++c) weigh(c, now_ns);  // a new instant
  while (plan_.size() < m && draw_by_wait(r, now_ns)) {
  }
  clear_taken(uncleared_count_);
  return plan_.size();
}

// With wait_scale_s = tau, a user who has waited a weighs w_c (tau + a) / tau. A draw is
// made by rejection: a class is proposed with probability in proportion to w_c (n tau + E),
// E the envelope of its members' waits (each counted as its group's oldest: the sum of the
// set's exact integers); then with probability n tau / (n tau + E) a member uniformly
// (accepted), else a group in proportion to its envelope, a member of it uniformly, accepted
// with probability wait / (now - the group's oldest entry). A rejection starts the draw again.
// Each member is so drawn in proportion to w_c (tau + a). The acceptance is decided by the
// group's bounds unless the uniform falls between them (then the member's entry is read).
// Nothing depends on whether earlier draws are pending or taken, so draws made ahead are the
// draws of one at a time.
bool lottery_sets::draw_by_wait(sim::rng& r, std::int64_t now) {
  // A set worth compacting is compacted before a draw: with none pending (slots move), so a
  // plan ends there and the next starts with it, at the same draw whatever the plan size.
  for (std::size_t c = 0; c < wait_sets_.size(); ++c) {
    entry_order_set& set = wait_sets_[c];
    if (!set.sparse()) continue;
    if (!plan_.empty()) return false;
    set.compact(
        [&](std::uint32_t user, std::uint32_t slot) {
          if (removals_) set_pos_[user] = slot;
        },
        entry_of());
    weigh(c, now);
  }
  const auto& w = selection_.class_weights;
  const double tau_ns = wait_scale_ns();
  const auto t = static_cast<std::uint64_t>(now);
  double total = 0;
  for (std::size_t c = 0; c < w.size(); ++c) total += weight_[c];
  const auto weight = [&](std::size_t k) { return weight_[k]; };
  const auto empty = [&](std::size_t k) { return wait_sets_[k].empty(); };
  for (;;) {
    const std::size_t c = choose_class(r.uniform01() * total, w.size(), weight, empty);
    entry_order_set& set = wait_sets_[c];
    const double uniform = static_cast<double>(set.size()) * tau_ns;
    std::size_t group = 0;
    std::uint64_t k = 0;
    if (envelope_[c] == 0 || r.uniform01() * (uniform + envelope_d_[c]) < uniform) {
      k = r.below(set.size());
      group = set.select_group(k);
    } else {
      group = set.select_group_by_wait(below_wide(r, envelope_[c]), t);
      k = r.below(set.group_count(group));
      // Accepted when z < its wait: surely when below the group's least wait.
      const std::uint64_t z = r.below(t - static_cast<std::uint64_t>(set.group_live_lo(group)));
      if (z >= t - static_cast<std::uint64_t>(set.group_hi(group))) {
        clear_taken(uncleared_count_);
        std::uint64_t in_word = k;
        const std::uint32_t word = set.select_word(group, in_word);
        const std::uint32_t user = set.user_at(set.slot_in_word(word, in_word));
        if (z >= t - static_cast<std::uint64_t>(users_.entry_ns(user))) continue;
      }
    }
    const bool oldest_in_group = k == 0;
    const std::uint32_t word = set.select_word(group, k);
    set.take(word);
    // Its slot comes from its word's bits, fetched meanwhile: a few draws later.
    if (uncleared_count_ == clear_behind) clear_taken(1);
    uncleared_[(uncleared_head_ + uncleared_count_++) % uncleared_.size()] = {
        static_cast<std::uint32_t>(plan_.size()), static_cast<std::uint32_t>(c), word,
        static_cast<std::uint32_t>(k)};
    plan_.push_back({static_cast<std::uint32_t>(c), 0});
    set.prefetch_word(word);
    if (oldest_in_group && set.group_count(group) > 0) {  // the group's envelope shrinks
      clear_taken(uncleared_count_);
      set.refresh_group_lo(group, entry_of());
    }
    weigh(c, now);  // within a plan (one instant) only the class taken from changes
    return true;
  }
}

void lottery_sets::weigh(std::size_t c, std::int64_t now_ns) {
  envelope_[c] = wait_sets_[c].wait_envelope(static_cast<std::uint64_t>(now_ns));
  envelope_d_[c] = to_double(envelope_[c]);
  weight_[c] = selection_.class_weights[c] *
               (static_cast<double>(wait_sets_[c].size()) * wait_scale_ns() + envelope_d_[c]);
}

void lottery_sets::clear_taken(std::size_t n) {
  for (; n > 0 && uncleared_count_ > 0; --n, --uncleared_count_) {
    const uncleared& u = uncleared_[uncleared_head_];
    uncleared_head_ = (uncleared_head_ + 1) % uncleared_.size();
    entry_order_set& set = wait_sets_[u.user_class];
    const std::uint32_t slot = set.clear(u.word, u.rank);
    plan_[u.plan_index].index = slot;
    set.prefetch(slot);
  }
}

std::vector<double> lottery_sets::expected_ranks(const std::vector<double>& w) const {
  std::vector<double> out;
  for (std::size_t c = 0; c < w.size(); ++c) {
    double rank = 0;
    for (std::size_t o = 0; o < w.size(); ++o) {
      const double others =
          static_cast<double>(set_size(static_cast<std::uint32_t>(o))) - (o == c ? 1.0 : 0.0);
      if (others > 0) rank += others * w[o] / (w[o] + w[c]);
    }
    out.push_back(rank);
  }
  return out;
}

std::size_t lottery_sets::memory_bytes() const {
  std::size_t b = set_pos_.memory_bytes();
  for (const auto& set : sets_) b += set.capacity() * sizeof(std::uint32_t);
  for (const auto& set : wait_sets_) b += set.memory_bytes();
  return b;
}

}  // namespace waitroom::models
