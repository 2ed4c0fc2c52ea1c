#include "models/queues/queues.hpp"

namespace waitroom::models {

queues::queues(const scenario& s, users& u)
    : users_(u), sizes_(s.lists.size(), 0), classes_(static_cast<std::uint32_t>(s.classes.size())) {
  for (std::size_t l = 0; l < s.lists.size(); ++l)
    lists_.emplace_back(&users_, static_cast<std::uint8_t>(l),
                        static_cast<std::uint32_t>(s.classes.size()) + 1);
  if (s.release.selection.kind == selection_kind::lottery) lottery_.emplace(s, users_);
}

void queues::remove(std::uint32_t user, std::int64_t now_ns) {
  const std::uint32_t l = users_.list_of(user);
  const std::uint32_t c = users_.cls(user);
  if (lottery_) {
    lottery_->remove(user, c);
    if (mirror_) mirror_->remove(c, users_.token_of(user), now_ns);
  } else {
    lists_[l].remove(user);
    if (mirror_) mirror_->remove(l, users_.token_of(user), now_ns);
  }
  --sizes_[l];
  --queued_;
}

std::uint32_t queues::take_planned(std::int64_t now_ns) {
  const std::uint32_t user = lottery_->take_planned();
  --sizes_[0];
  --queued_;
  if (mirror_) mirror_->drawn(users_.cls(user), users_.token_of(user), now_ns);
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

void queues::report_sizes_to_mirror(std::int64_t now_ns) const {
  if (lottery_) {
    for (std::uint32_t c = 0; c < classes_; ++c) mirror_->counted(c, lottery_->set_size(c), now_ns);
  } else {
    for (std::uint32_t l = 0; l < sizes_.size(); ++l) mirror_->counted(l, sizes_[l], now_ns);
  }
}

std::size_t queues::memory_bytes() const {
  std::size_t b = lottery_ ? lottery_->memory_bytes() : 0;
  for (const auto& l : lists_) b += l.memory_bytes();
  return b;
}

}  // namespace waitroom::models
