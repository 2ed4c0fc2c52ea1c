#include "models/visits/aging.hpp"

#include <algorithm>
#include <limits>

#include "models/events.hpp"

namespace waitroom::models {

aging::aging(const scenario& s, sim::simulator& sim, const users& u, queues& q)
    : sim_(sim), users_(u), queues_(q), lists_(s.lists.size()), scheduled_(s.lists.size(), false) {
  for (const auto& l : s.lists)
    max_wait_ns_.push_back(
        l.max_wait_s ? std::optional<std::int64_t>(sim::sim_time::from_seconds(*l.max_wait_s).ns())
                     : std::nullopt);
}

std::optional<std::int64_t> aging::next_due_ns(std::uint32_t l) const {
  const auto& q = lists_[l];
  std::optional<std::int64_t> since;
  if (!q.arrived.empty()) {
    const std::uint32_t u = q.arrived.front();
    since = users_.alive(u) ? users_.entry_ns(u) : std::numeric_limits<std::int64_t>::min() / 2;
  }
  if (!q.moved.empty() && (!since || q.moved.front().since_ns < *since))
    since = q.moved.front().since_ns;
  if (!since) return std::nullopt;
  // Saturating: a late entry plus a long step can pass the clock's end (the run stops there).
  return std::max(sim::sim_time::add_ns(*since, *max_wait_ns_[l]), sim_.now().ns());
}

void aging::schedule(std::uint32_t l) {
  const auto at = next_due_ns(l);
  scheduled_[l] = at.has_value();
  if (at) sim_.schedule(sim::sim_time::from_ns(*at), p_control, k_aging, l);
}

std::size_t aging::memory_bytes() const {
  std::size_t b = 0;
  for (const auto& a : lists_)
    b += a.arrived.size() * sizeof(std::uint32_t) + a.moved.size() * sizeof(moved_entry);
  return b;
}

}  // namespace waitroom::models
