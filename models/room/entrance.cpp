#include "models/room/entrance.hpp"

namespace waitroom::models {

namespace {
template <class T, class F>
std::vector<double> shares(const std::vector<T>& items, F share) {
  std::vector<double> out;
  for (const auto& it : items) out.push_back(share(it));
  return out;
}
}  // namespace

entrance::entrance(const scenario& s, sim::simulator& sim, std::uint64_t seed,
                   std::uint64_t replication)
    : sim_(sim),
      route_(s.route),
      backlog_users_(s.arrivals.backlog_users),
      arrival_rng_(seed, replication, "arrivals"),
      class_rng_(seed, replication, "class"),
      sku_rng_(seed, replication, "sku"),
      arrivals_(make_arrival_process(s.arrivals)),
      mix_(shares(s.classes, [](const user_class& c) { return c.share; })) {
  if (s.skus.size() > 1)
    sku_mix_.emplace(shares(s.skus, [](const sku_spec& k) { return k.share; }));
}

void entrance::start() {
  if (backlog_users_ > 0) {
    backlog_pending_ = true;
    sim_.schedule(sim::sim_time{}, p_arrival, k_backlog);
  }
  next();
}

}  // namespace waitroom::models
