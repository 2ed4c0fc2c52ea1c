#include "models/visits/returns.hpp"

#include <algorithm>
#include <stdexcept>

namespace waitroom::models {

returns::returns(const scenario& s, sim::simulator& sim, const users& u, queues& q,
                 std::uint64_t seed, std::uint64_t replication)
    : sim_(sim),
      users_(u),
      queues_(q),
      comp_(s.compensation),
      returns_(s.returns),
      active_(s.compensation || s.returns),
      rng_(seed, replication, "returns") {
  if (comp_) {
    result_.emplace();
    threshold_ns_ = sim::sim_time::from_seconds(comp_->threshold_s).ns();
  }
}

void returns::note_entry(std::uint32_t user, const visit& v) {
  if (v.credit_day >= 0) set_credit_day(user, v.credit_day);
  if (comp_ && comp_->in_place && comp_->eligible[v.user_class] && !v.boosted) {
    due_.push_back(user);
    if (!compensation_scheduled_) {
      compensation_scheduled_ = true;
      sim_.schedule(sim_.now() + sim::sim_time::from_ns(threshold_ns_), p_control, k_compensate);
    }
  }
}

void returns::set_credit_day(std::uint32_t user, std::int64_t day) {
  credit_day_[user] = day;  // first: should it throw, no bit is left without its entry
  if (user >= has_credit_day_.size()) has_credit_day_.resize(std::size_t{user} + 1, false);
  has_credit_day_[user] = true;
}

std::int64_t returns::take_credit_day(std::uint32_t user) {
  if (!has_credit_day(user)) return -1;
  has_credit_day_[user] = false;
  const auto it = credit_day_.find(user);
  if (it == credit_day_.end()) throw std::logic_error("returns: a credit bit without its day");
  const std::int64_t day = it->second;
  credit_day_.erase(it);
  return day;
}

// Whoever leaves, released or giving up, may come back, and a long wait earns a credit.
void returns::visit_ended(std::uint32_t user, std::uint32_t c, std::int64_t wait_ns,
                          bool released) {
  const bool was_boosted = users_.boosted(user);
  const std::int64_t credit_day = take_credit_day(user);
  if (released && was_boosted) {
    result_->credited.wait_s.add(static_cast<double>(wait_ns) * 1e-9);
    result_->credited.wait_ns.add(wait_ns);
    ++result_->credited.released;
  }
  after_visit(c, wait_ns, was_boosted, credit_day);
}

void returns::after_visit(std::uint32_t c, std::int64_t wait_ns, bool was_boosted,
                          std::int64_t credit_day) {
  const std::int64_t today = day_of(sim_.now().ns());
  // A long wait earns a credit for the next visit: once a day, not for a credited visit,
  // and not when credits are applied in place.
  const bool grant = comp_ && !comp_->in_place && comp_->eligible[c] && wait_ns > threshold_ns_ &&
                     !was_boosted && credit_day != today;
  if (grant) ++result_->granted;
  if (returns_ && rng_.uniform01() < returns_->probability) {
    const pending_return rec{static_cast<std::uint8_t>(c), grant ? (today + 1) * day_ns : -1,
                             credit_day};
    std::uint32_t idx;
    if (!free_.empty()) {
      idx = free_.back();
      free_.pop_back();
      pending_[idx] = rec;
    } else {
      idx = static_cast<std::uint32_t>(pending_.size());
      pending_.push_back(rec);
    }
    ++in_flight_;
    const double d = std::max(0.0, returns_->delay_s.sample(rng_));
    sim_.schedule_far(sim_.now() + sim::sim_time::from_seconds(d), p_arrival, k_return, idx);
  } else if (grant) {
    ++result_->unused;  // the holder never comes back
  }
}

returns::visit returns::on_return(std::uint32_t idx) {
  const pending_return rec = pending_[idx];
  pending_[idx].credit_expires_ns = -1;  // a free record holds no credit
  free_.push_back(idx);
  --in_flight_;
  ++returning_visits_;
  const std::int64_t now = sim_.now().ns();
  visit v{rec.user_class, false, rec.credit_day};
  if (rec.credit_expires_ns >= 0) {
    if (now < rec.credit_expires_ns) {
      v.boosted = true;
      v.credit_day = day_of(now);
      ++result_->used;
    } else {
      ++result_->expired;
    }
  }
  return v;
}

std::optional<compensation_result> returns::finish() {
  if (result_) {  // credits whose holders had not come back yet
    for (const auto& rec : pending_)
      if (rec.credit_expires_ns >= 0) ++result_->unused;
    result_->credited.arrived = result_->used + result_->used_in_place;
  }
  return std::move(result_);
}

}  // namespace waitroom::models
