#include "models/queues/queues.hpp"

#include <algorithm>
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
    sets_.resize(s.classes.size());
    entry_sum_.assign(s.classes.size(), 0.0L);
    by_age_.resize(s.classes.size());
    if (by_wait_) waited_.resize(s.classes.size());
    users_.attach(&set_pos_);
  }
}

void queues::remove(std::uint32_t user, std::int64_t now_ns) {
  const std::uint32_t l = users_.list_of(user);
  const std::uint32_t c = users_.cls(user);
  if (lottery_) {
    check_no_plan();
    remove_from_set(c, set_pos_[user]);
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
  if (by_wait_) entry_sum_[c] -= static_cast<long double>(users_.entry_ns(set[i])) * 1e-9L;
  users_.set_list(set[i], users::no_list);
  set[i] = set.back();
  set_pos_[set[i]] = i;
  set.pop_back();
}

std::uint32_t queues::draw(sim::rng& r, std::int64_t now_ns) {
  if (!by_wait_) {
    plan_draws(r, 1);
    return take_planned(now_ns);
  }
  check_no_plan();
  const std::uint32_t user = draw_by_wait(r, now_ns);
  --sizes_[0];
  --queued_;
  if (mirror_) mirror_->drawn(users_.cls(user), users_.token_of(user), now_ns);
  return user;
}

std::size_t queues::plan_draws(sim::rng& r, std::uint64_t n) {
  check_no_plan();
  if (by_wait_)
    throw std::logic_error("plan_draws: a lottery weighted by wait draws one at a time");
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
    users_.prefetch(sets_[p.user_class][p.index]);
  }
  const planned_draw p = plan_[plan_next_++];
  const std::uint32_t user = sets_[p.user_class][p.index];
  remove_from_set(p.user_class, p.index);
  --sizes_[0];
  --queued_;
  if (mirror_) mirror_->drawn(users_.cls(user), users_.token_of(user), now_ns);
  return user;
}

void queues::check_no_plan() const {
  if (plan_next_ < plan_.size())
    throw std::logic_error("a lottery set changed while draws made ahead were pending");
}

// With wait_scale_s = tau, a user who has waited a seconds weighs w_c (1 + a / tau): a class
// weighs w_c (n + A / tau), A its users' total wait (from the sum of entry times), and
// within it a user is drawn uniformly with probability n / (n + A / tau), else in proportion
// to its wait (a uniform pick accepted with probability wait / longest wait).
std::uint32_t queues::draw_by_wait(sim::rng& r, std::int64_t now) {
  const auto& w = selection_.class_weights;
  const double tau = selection_.wait_scale_s;
  const long double now_s = static_cast<long double>(now) * 1e-9L;
  auto& waited = waited_;
  double total = 0;
  for (std::size_t c = 0; c < w.size(); ++c) {
    const auto n = static_cast<long double>(sets_[c].size());
    waited[c] = std::max(0.0, static_cast<double>(n * now_s - entry_sum_[c]));
    total += w[c] * (static_cast<double>(n) + waited[c] / tau);
  }
  const std::size_t c = choose_class(
      r.uniform01() * total, w.size(),
      [&](std::size_t k) {
        return w[k] * (static_cast<double>(sets_[k].size()) + waited[k] / tau);
      },
      [&](std::size_t k) { return sets_[k].empty(); });
  auto& set = sets_[c];
  const auto n = static_cast<double>(set.size());
  auto i = static_cast<std::uint32_t>(r.below(set.size()));
  if (r.uniform01() * (n + waited[c] / tau) >= n) {
    auto& oldest = by_age_[c];  // entry order; users gone since are dropped here
    while (!users_.waiting(oldest.front())) oldest.pop_front();
    const auto longest = static_cast<double>(now - users_.entry_ns(oldest.front()));
    while (r.uniform01() * longest >= static_cast<double>(now - users_.entry_ns(set[i])))
      i = static_cast<std::uint32_t>(r.below(set.size()));
  }
  const std::uint32_t user = set[i];
  remove_from_set(static_cast<std::uint32_t>(c), i);
  return user;
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
      const double others = static_cast<double>(sets_[o].size()) - (o == c ? 1.0 : 0.0);
      if (others > 0) rank += others * w[o] / (w[o] + w[c]);
    }
    out.push_back(rank);
  }
  return out;
}

std::size_t queues::memory_bytes() const {
  std::size_t b = set_pos_.memory_bytes();
  for (const auto& set : sets_) b += set.capacity() * sizeof(std::uint32_t);
  for (const auto& q : by_age_) b += q.size() * sizeof(std::uint32_t);
  for (const auto& l : lists_) b += l.memory_bytes();
  return b;
}

}  // namespace waitroom::models
