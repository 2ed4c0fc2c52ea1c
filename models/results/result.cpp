#include "models/results/result.hpp"

namespace waitroom::models {

void wait_stats::merge(const wait_stats& o) {
  arrived += o.arrived;
  released += o.released;
  waiting_at_end += o.waiting_at_end;
  refused += o.refused;
  abandoned += o.abandoned;
  paid_later += o.paid_later;
  abandon_s.merge(o.abandon_s);
  if (o.abandon_ns) {
    if (!abandon_ns) abandon_ns.emplace();
    abandon_ns->merge(*o.abandon_ns);
  }
  wait_s.merge(o.wait_s);
  wait_ns.merge(o.wait_ns);
  refused_counted += o.refused_counted;
  censored_s.merge(o.censored_s);
  if (o.censored_ns) {
    if (!censored_ns) censored_ns.emplace();
    censored_ns->merge(*o.censored_ns);
  }
}

}  // namespace waitroom::models
