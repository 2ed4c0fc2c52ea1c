#include "models/release/releaser.hpp"

namespace waitroom::models {

releaser::releaser(const scenario& s, queues& q, const users& u, std::uint64_t seed,
                   std::uint64_t replication)
    : queues_(q),
      users_(u),
      spec_(s.release.selection),
      policy_(selection_policy_of(s.release.selection.kind)),
      selector_(s.release.selection, s.lists.size()),
      rng_(seed, replication, "selection") {}

}  // namespace waitroom::models
