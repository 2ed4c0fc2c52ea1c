#include "models/queues/queues.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace waitroom::models {

namespace {
// The class a lottery draw takes: u (uniform below the total of the weights) walked through
// the classes in order, empty ones passed over; rounding at the top end gives the last
// non-empty class.
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
}  // namespace

queues::queues(const scenario& s, users& u)
    : users_(u),
      selection_(s.release.selection),
      sizes_(s.lists.size(), 0),
      lottery_(s.release.selection.kind == selection_kind::lottery),
      by_wait_(lottery_ && s.release.selection.wait_scale_s > 0) {
  for (std::size_t l = 0; l < s.lists.size(); ++l)
    lists_.emplace_back(&users_, static_cast<std::uint8_t>(l),
                        static_cast<std::uint32_t>(s.classes.size()) + 1);
  if (lottery_) {
    const std::size_t n = s.classes.size();
    if (by_wait_) {
      wait_sets_.resize(n);
      entry_sum_.assign(n, 0.0L);
      pending_mid_s_.assign(n, 0.0L);
      pending_half_s_.assign(n, 0.0L);
      waited_.resize(n);
      weight_.resize(n);
      slack_.resize(n);
    } else {
      sets_.resize(n);
    }
    users_.attach(&set_pos_);
  }
}

void queues::remove(std::uint32_t user, std::int64_t now_ns) {
  const std::uint32_t l = users_.list_of(user);
  const std::uint32_t c = users_.cls(user);
  if (lottery_) {
    check_no_plan();
    if (by_wait_) {
      entry_sum_[c] -= static_cast<long double>(users_.entry_ns(user)) * 1e-9L;
      wait_sets_[c].erase(set_pos_[user]);
      users_.set_list(user, users::no_list);
    } else {
      remove_from_set(c, set_pos_[user]);
    }
    if (mirror_) mirror_->remove(c, users_.token_of(user), now_ns);
  } else {
    lists_[l].remove(user);
    if (mirror_) mirror_->remove(l, users_.token_of(user), now_ns);
  }
  --sizes_[l];
  --queued_;
}

// Like SPOP: swap member i with the last one and drop it.
void queues::remove_from_set(std::uint32_t c, std::uint32_t i) {
  auto& set = sets_[c];
  users_.set_list(set[i], users::no_list);
  set[i] = set.back();
  set_pos_[set[i]] = i;
  set.pop_back();
}

std::uint32_t queues::draw(sim::rng& r, std::int64_t now_ns) {
  plan_draws(r, 1, now_ns);
  return take_planned(now_ns);
}

std::size_t queues::plan_draws(sim::rng& r, std::uint64_t n, std::int64_t now_ns) {
  check_no_plan();
  if (by_wait_) return plan_by_wait(r, n, now_ns);
  const auto m = static_cast<std::size_t>(std::min<std::uint64_t>({n, max_planned, queued_}));
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

std::uint32_t queues::take_planned(std::int64_t now_ns) {
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
  if (by_wait_) {  // already out of its set: its wait leaves its class's total now
    user = wait_sets_[p.user_class].user_at(p.index);
    entry_sum_[p.user_class] -= static_cast<long double>(users_.entry_ns(user)) * 1e-9L;
    users_.set_list(user, users::no_list);
  } else {
    user = sets_[p.user_class][p.index];
    remove_from_set(p.user_class, p.index);
  }
  --sizes_[0];
  --queued_;
  if (mirror_) mirror_->drawn(users_.cls(user), users_.token_of(user), now_ns);
  return user;
}

void queues::check_no_plan() const {
  if (plan_next_ < plan_.size())
    throw std::logic_error("a lottery set changed while draws made ahead were pending");
}

std::size_t queues::plan_by_wait(sim::rng& r, std::uint64_t n, std::int64_t now_ns) {
  const auto m = static_cast<std::size_t>(std::min<std::uint64_t>({n, max_planned, queued_}));
  plan_.clear();
  plan_next_ = 0;
  for (std::size_t c = 0; c < wait_sets_.size(); ++c) {
    pending_mid_s_[c] = pending_half_s_[c] = 0.0L;
    if (wait_sets_[c].sparse())
      wait_sets_[c].compact([&](std::uint32_t user, std::uint32_t slot) { set_pos_[user] = slot; },
                            [&](std::uint32_t user) { return users_.entry_ns(user); });
  }
  while (plan_.size() < m && draw_by_wait(r, now_ns)) {
  }
  clear_taken(uncleared_count_);
  return plan_.size();
}

// With wait_scale_s = tau, a user who has waited a seconds weighs w_c (1 + a / tau): a class
// weighs w_c (n + A / tau), A its users' total wait (from the sum of entry times), and
// within it a user is drawn uniformly with probability n / (n + A / tau), else in proportion
// to its wait (a uniform pick accepted with probability wait / longest wait).
//
// With draws pending (made, not taken), A is known to within their bounds plus rounding
// (slack_, seconds), so each comparison below is made with the midpoints and must clear the
// most the slack could move it; one that does not ends the plan, and the draw is made again,
// exactly, once the pending ones are taken. So the outcome is always the exact draw's.
bool queues::draw_by_wait(sim::rng& r, std::int64_t now) {
  const auto& w = selection_.class_weights;
  const double tau = selection_.wait_scale_s;
  const long double now_s = static_cast<long double>(now) * 1e-9L;
  const bool exact = plan_.empty();
  // Far above the rounding of ~64 long double sums and the casts to double, far below any
  // gap the draws' uniforms are likely to fall in.
  constexpr double rel = 1e-12;
  double total = 0, shift = 0;  // shift: the most the slack moves any class's weight sum
  for (std::size_t c = 0; c < w.size(); ++c) {
    const auto n = static_cast<long double>(wait_sets_[c].size());
    const long double sum = entry_sum_[c] - pending_mid_s_[c];
    waited_[c] = std::max(0.0, static_cast<double>(n * now_s - sum));
    weight_[c] = w[c] * (static_cast<double>(n) + waited_[c] / tau);
    total += weight_[c];
    slack_[c] = exact ? 0.0
                      : static_cast<double>(pending_half_s_[c]) +
                            rel * static_cast<double>(std::fabs(sum) + n * now_s + 1);
    shift += w[c] * slack_[c] / tau;
  }
  const sim::rng before = r;
  const auto weight = [&](std::size_t k) { return weight_[k]; };
  const auto empty = [&](std::size_t k) { return wait_sets_[k].empty(); };
  const double x = r.uniform01() * total;
  const std::size_t c = choose_class(x, w.size(), weight, empty);
  if (!exact) {
    // x against the class's lower and upper bounds (the outer ends of the first and last
    // non-empty classes are 0 and the total, which the slack cannot cross): each moves by
    // at most `shift`, x by at most u * shift.
    double below = 0;
    bool first = true, last = true;
    for (std::size_t k = 0; k < w.size(); ++k) {
      if (empty(k)) continue;
      if (k < c) {
        below += weight(k);
        first = false;
      } else if (k > c) {
        last = false;
      }
    }
    const double margin = 2 * shift + rel * total;
    if ((!first && x - below <= margin) || (!last && below + weight(c) - x <= margin)) {
      r = before;
      return false;
    }
  }
  entry_order_set& set = wait_sets_[c];
  const auto size = static_cast<double>(set.size());
  std::uint64_t k = r.below(set.size());
  std::size_t group = set.select_group(k);
  const double y = r.uniform01() * (size + waited_[c] / tau);
  if (!exact && std::fabs(y - size) <= slack_[c] / tau + rel * (size + waited_[c] / tau)) {
    r = before;
    return false;
  }
  if (y >= size) {
    const std::uint32_t oldest = set.oldest_word();
    for (std::size_t i = 0; i < uncleared_count_; ++i) {
      const uncleared& u = uncleared_[(uncleared_head_ + i) % uncleared_.size()];
      if (u.word == oldest && u.user_class == c) {
        clear_taken(uncleared_count_);  // its first member may be taken
        break;
      }
    }
    const auto longest =
        static_cast<double>(now - users_.entry_ns(set.user_at(set.first_in_word(oldest))));
    // Nobody has waited (the total wait only rounding's residue): the uniform pick stands;
    // the rejection step would never accept.
    for (; longest > 0;) {
      const double z = r.uniform01() * longest;
      // The member's wait lies in [now - hi, now - lo] (its group's bounds); its entry is read
      // only when z falls in between (a group spans an instant of the wait).
      bool reject = z >= static_cast<double>(now - set.group_lo(group));
      if (!reject && z >= static_cast<double>(now - set.group_hi(group))) {
        clear_taken(uncleared_count_);
        std::uint64_t in_word = k;
        const std::uint32_t word = set.select_word(group, in_word);
        const std::uint32_t user = set.user_at(set.slot_in_word(word, in_word));
        reject = z >= static_cast<double>(now - users_.entry_ns(user));
      }
      if (!reject) break;
      k = r.below(set.size());
      group = set.select_group(k);
    }
  }
  const std::int64_t lo = set.group_lo(group), hi = set.group_hi(group);
  const std::uint32_t word = set.select_word(group, k);
  set.take(word);
  pending_mid_s_[c] += (static_cast<long double>(lo) + static_cast<long double>(hi)) * 0.5e-9L;
  pending_half_s_[c] += static_cast<long double>(hi - lo) * 0.5e-9L;
  // Its slot comes from its word's bits, fetched meanwhile: a few draws later.
  if (uncleared_count_ == clear_behind) clear_taken(1);
  uncleared_[(uncleared_head_ + uncleared_count_++) % uncleared_.size()] = {
      static_cast<std::uint32_t>(plan_.size()), static_cast<std::uint32_t>(c), word,
      static_cast<std::uint32_t>(k)};
  plan_.push_back({static_cast<std::uint32_t>(c), 0});
  set.prefetch_word(word);
  return true;
}

void queues::clear_taken(std::size_t n) {
  for (; n > 0 && uncleared_count_ > 0; --n, --uncleared_count_) {
    const uncleared& u = uncleared_[uncleared_head_];
    uncleared_head_ = (uncleared_head_ + 1) % uncleared_.size();
    entry_order_set& set = wait_sets_[u.user_class];
    const std::uint32_t slot = set.clear(u.word, u.rank);
    plan_[u.plan_index].index = slot;
    set.prefetch(slot);
  }
}

void queues::move(std::uint32_t user, std::uint32_t from, std::uint32_t to, std::int64_t now_ns) {
  lists_[from].remove(user);
  --sizes_[from];
  const double score = users_.score_of(user);
  lists_[to].add(score, user);
  ++sizes_[to];
  if (mirror_) mirror_->move(from, to, users_.token_of(user), score, now_ns);
}

void queues::rescore_boosted(std::uint32_t user, std::int64_t now_ns) {
  const std::uint32_t l = users_.list_of(user);
  lists_[l].remove(user);
  users_.boost(user);
  const double score = users_.score_of(user);
  lists_[l].add(score, user);
  if (mirror_) mirror_->move(l, l, users_.token_of(user), score, now_ns);
}

std::uint64_t queues::rank(std::uint32_t user, std::int64_t now_ns) const {
  const std::uint32_t l = users_.list_of(user);
  const std::uint64_t r = lists_[l].rank(user, users_.score_of(user));
  if (mirror_) mirror_->ranked(l, users_.token_of(user), r, now_ns);
  return r;
}

std::vector<double> queues::expected_ranks(const std::vector<double>& w) const {
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

std::size_t queues::memory_bytes() const {
  std::size_t b = set_pos_.memory_bytes();
  for (const auto& set : sets_) b += set.capacity() * sizeof(std::uint32_t);
  for (const auto& set : wait_sets_) b += set.memory_bytes();
  for (const auto& l : lists_) b += l.memory_bytes();
  return b;
}

}  // namespace waitroom::models
