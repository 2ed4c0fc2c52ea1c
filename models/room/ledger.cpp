#include "models/room/ledger.hpp"

#include <utility>

#include "sim/time.hpp"

namespace waitroom::models {

ledger::ledger(const scenario& s, std::uint64_t seed, std::uint64_t replication)
    : warmup_(s.run), waiting_by_class_(s.classes.size(), 0) {
  for (const auto& l : s.lists) result_.list_names.push_back(l.name);
  result_.by_list.resize(s.lists.size());
  result_.seed = seed;
  result_.replication = replication;
  result_.class_names = s.class_names();
  result_.by_class.resize(s.classes.size());
}

std::uint64_t ledger::released_from_lists() const {
  std::uint64_t released = 0;
  for (const auto& l : result_.by_list) released += l.released;
  return released;
}

void ledger::sample(double t_s, std::uint64_t length, std::vector<double> expected_ranks) {
  result_.samples.push_back(
      {t_s, length, waiting_by_class_, released_since_sample_, std::move(expected_ranks)});
  released_since_sample_ = 0;
}

void ledger::finish(const queues& q, const users& u, std::int64_t end_ns) {
  queue_changed(end_ns, q.total());
  if (warmup_.counted_from_ns() == 0) result_.queue_length_area_counted = result_.queue_length_area;
  // With the waits of users still queued, the area under the queue-length curve is exactly
  // accounted for: area = sum of completed waits + censored waits (Little's law, sample path).
  // A user still waiting has waited at least this long: its censored wait (warm-up rule too).
  q.for_each_waiting([&](std::uint32_t user) {
    if (!warmup_.counts(u.entry_ns(user))) return;
    const std::int64_t waited = end_ns - u.entry_ns(user);
    auto& st = result_.by_class[u.cls(user)];
    st.censored_s.add(static_cast<double>(waited) * 1e-9);
    if (!st.censored_ns) st.censored_ns.emplace();
    st.censored_ns->add(waited);
    result_.censored_wait_s += static_cast<double>(waited) * 1e-9;
  });
  result_.counted_from_s =
      sim::sim_time::from_ns(warmup_.counted_from_ns().value_or(end_ns)).seconds();
  result_.warmup_dropped = warmup_.dropped();
  for (std::size_t c = 0; c < waiting_by_class_.size(); ++c) {
    result_.by_class[c].waiting_at_end = waiting_by_class_[c];
    result_.overall.merge(result_.by_class[c]);
  }
}

}  // namespace waitroom::models
