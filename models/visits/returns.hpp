#pragma once
// Returning users and temporary-VIP credits (the Redis ZSet VIP article §4.3; see
// docs/references.md). After a visit (released or gave up) the same person comes back with
// `returns.probability`; a wait over the threshold earns a credit, once a day, used by the next
// visit that day (it enters with the VIP offset). In place, a waiting user is re-scored when its
// wait passes the threshold instead. Only returning visits and users who used a credit have an
// entry in the day-of-last-credit map, so a first visit costs nothing.
#include <cstdint>
#include <deque>
#include <optional>
#include <unordered_map>
#include <vector>

#include "models/events.hpp"
#include "models/queues/queues.hpp"
#include "models/results/result.hpp"
#include "models/spec/scenario.hpp"
#include "models/users/users.hpp"
#include "sim/random.hpp"
#include "sim/simulator.hpp"

namespace waitroom::models {

class returns {
 public:
  returns(const scenario& s, sim::simulator& sim, const users& u, queues& q, std::uint64_t seed,
          std::uint64_t replication);

  // A visit to enter: its class, whether it holds a credit, and the day it last used one
  // (-1: never), carried across the person's visits.
  struct visit {
    std::uint32_t user_class;
    bool boosted;
    std::int64_t credit_day;
  };

  // Whether the scenario has returns or credits at all.
  bool active() const { return active_; }
  // A visit entered the queue as `user`. (The tests of active_ here keep the common case, no
  // returns and no credits, to a predictable branch on the hot path.)
  void entered(std::uint32_t user, const visit& v) {
    if (active_) note_entry(user, v);
  }
  // A visit that never queued (concurrency mode, a free slot) ended at once.
  void served_at_once(const visit& v) {
    if (active_) after_visit(v.user_class, 0, v.boosted, v.credit_day);
  }
  // A waiting user was released after wait_ns.
  void released(std::uint32_t user, std::uint32_t user_class, std::int64_t wait_ns) {
    if (active_) visit_ended(user, user_class, wait_ns, true);
  }
  // A waiting user gave up after wait_ns.
  void gave_up(std::uint32_t user, std::uint32_t user_class, std::int64_t wait_ns) {
    if (active_) visit_ended(user, user_class, wait_ns, false);
  }
  // k_return: the visit that comes back.
  visit on_return(std::uint32_t index);
  // k_compensate: re-scores users whose wait passed the threshold, calling rescored(user).
  template <class F>
  void on_compensate(F&& rescored);

  bool in_flight() const { return in_flight_ > 0; }
  std::uint64_t returning_visits() const { return returning_visits_; }
  std::optional<compensation_result> finish();

 private:
  static constexpr std::int64_t day_ns = 86'400'000'000'000;
  static std::int64_t day_of(std::int64_t ns) { return ns / day_ns; }
  std::int64_t take_credit_day(std::uint32_t user);
  void note_entry(std::uint32_t user, const visit& v);
  void visit_ended(std::uint32_t user, std::uint32_t user_class, std::int64_t wait_ns,
                   bool released);
  void after_visit(std::uint32_t c, std::int64_t wait_ns, bool was_boosted,
                   std::int64_t credit_day);
  void schedule_compensation(std::int64_t now);

  struct pending_return {
    std::uint8_t user_class;
    std::int64_t credit_expires_ns;  // -1: no credit
    std::int64_t credit_day;         // -1: no credit used yet
  };

  sim::simulator& sim_;
  const users& users_;
  queues& queues_;
  const std::optional<compensation_spec>& comp_;
  const std::optional<returns_spec>& returns_;
  bool active_;
  std::int64_t threshold_ns_ = 0;
  sim::rng rng_;
  std::optional<compensation_result> result_;
  std::vector<pending_return> pending_;
  std::vector<std::uint32_t> free_;
  std::uint64_t in_flight_ = 0;
  std::uint64_t returning_visits_ = 0;
  std::unordered_map<std::uint32_t, std::int64_t> credit_day_;  // user -> day a credit was used
  // One bit per serial: whether credit_day_ holds the user. Nearly every visit ends without
  // an entry there, and the bit (read in about entry order) spares the map's lookup, a
  // division and a cache miss or two. Sized to the highest serial that held a credit day
  // (1 bit per visit: 12.5 MB at 100M visits), not shrunk as users leave.
  std::vector<bool> has_credit_day_;
  bool has_credit_day(std::uint32_t user) const {
    return user < has_credit_day_.size() && has_credit_day_[user];
  }
  void set_credit_day(std::uint32_t user, std::int64_t day);
  std::deque<std::uint32_t> due_;  // in place: users by entry time
  bool compensation_scheduled_ = false;
};

// In place: a user still waiting when its wait passes the threshold is re-scored with the
// credit's offset (ZREM, then ZADD with the new score), once a day.
template <class F>
void returns::on_compensate(F&& rescored) {
  const std::int64_t now = sim_.now().ns();
  while (!due_.empty()) {
    const std::uint32_t user = due_.front();
    if (!users_.waiting(user)) {  // released already
      due_.pop_front();
      continue;
    }
    if (users_.entry_ns(user) + threshold_ns_ > now) break;
    due_.pop_front();
    if (has_credit_day(user) && credit_day_.at(user) == day_of(now))
      continue;  // used one today already
    queues_.rescore_boosted(user, now);
    set_credit_day(user, day_of(now));
    ++result_->used_in_place;
    rescored(user);
  }
  compensation_scheduled_ = !due_.empty();
  if (compensation_scheduled_) {
    const std::uint32_t next = due_.front();
    const std::int64_t at = users_.alive(next) ? users_.entry_ns(next) + threshold_ns_ : now;
    sim_.schedule(sim::sim_time::from_ns(std::max(at, now)), p_control, k_compensate);
  }
}

}  // namespace waitroom::models
