#pragma once
// The release itself: takes up to n users out of the waiting lists by the scenario's
// selection policy and hands each to the caller, which records it and sends it on. A lottery
// draws users (a few dozen drawn ahead, see queues::plan_draws); one list, or a policy that
// releases in list order (strict), pops in bulk; any other policy picks a list for each released
// unit. It owns the selection's state (list_selector), its random stream, and the units lost to an
// empty list's share. A template over the caller's callback: no virtual call, no std::function.
#include <cstdint>
#include <vector>

#include "models/queues/queues.hpp"
#include "models/release/selection.hpp"
#include "models/release/selector.hpp"
#include "models/spec/scenario.hpp"
#include "models/users/users.hpp"
#include "sim/random.hpp"

namespace waitroom::models {

class releaser {
 public:
  releaser(const scenario& s, queues& q, const users& u, std::uint64_t seed,
           std::uint64_t replication);

  // Releases up to n users now, calling leave(user, list) for each in release order (the
  // user is already out of its list); returns how many left.
  template <class F>
  std::uint64_t release(std::uint64_t n, std::int64_t now, F&& leave);

  // The ratio schedule's next weights.
  void set_weights(const std::vector<double>& w) { selector_.set_weights(w); }
  // Ratio only: every list with users has weight 0, so nobody can ever be released.
  bool starves() const { return selector_.starves(queues_.sizes()); }
  // Release units that fell to an empty list's share (ratio without work conservation).
  std::uint64_t lost_units() const { return lost_; }
  // Read-only, for a live Redis that makes the same choice: the selection's state and the
  // random stream its picks draw from.
  const list_selector& selector() const { return selector_; }
  const sim::rng& stream() const { return rng_; }

 private:
  // A lottery's release, out of line: inlined, its loop made the sorted-set release spill
  // registers (+6 instructions a customer on the priority M/M/1).
  template <class F>
  [[gnu::noinline]] std::uint64_t release_lottery(std::uint64_t n, std::int64_t now, F& leave);

  queues& queues_;
  const users& users_;
  const selection_spec& spec_;
  const selection_policy& policy_;
  list_selector selector_;
  sim::rng rng_;
  std::uint64_t lost_ = 0;
};

template <class F>
std::uint64_t releaser::release(std::uint64_t n, std::int64_t now, F&& leave) {
  auto pop = [&](std::uint32_t l, std::uint64_t k) {
    return queues_.pop(l, k, now, [&](std::uint32_t user) { leave(user, l); });
  };
  std::uint64_t done = 0;
  if (queues_.lottery()) return release_lottery(n, now, leave);
  if (queues_.list_count() == 1) return pop(0, n);
  if (policy_.in_list_order) {
    for (std::uint32_t l = 0; l < queues_.list_count() && done < n; ++l) done += pop(l, n - done);
    return done;
  }
  const pick_context ctx{queues_.sizes(), rng_, &queues_, &users_, now, &spec_};
  for (std::uint64_t k = 0; k < n && queues_.total() > 0; ++k) {
    const int l = policy_.pick(selector_, ctx);
    if (l == list_selector::none) {
      ++lost_;
      continue;
    }
    done += pop(static_cast<std::uint32_t>(l), 1);
  }
  return done;
}

template <class F>
std::uint64_t releaser::release_lottery(std::uint64_t n, std::int64_t now, F& leave) {
  std::uint64_t done = 0;
  // Draws made a few dozen ahead (their members' memory fetched meanwhile); leave() must
  // not enter or remove anyone, which queues checks.
  while (done < n && queues_.total() > 0) {
    const std::size_t m = queues_.plan_draws(rng_, n - done, now);
    for (std::size_t k = 0; k < m; ++k) leave(queues_.take_planned(now), 0u);
    done += m;
  }
  return done;
}

}  // namespace waitroom::models
