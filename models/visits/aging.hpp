#pragma once
// Aging (the request-priority article; see docs/references.md): a user who has waited max_wait_s in
// a list moves up to the list before it, keeping its entry time and so its score (it slots in among
// that list's users by when it came). Per list, users in the order they entered it: those who
// entered on arrival as bare serials (their entry time is in the user table), those who moved
// in with the time they moved. Entries of users who left are dropped lazily, when due.
#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "models/queues/queues.hpp"
#include "models/spec/scenario.hpp"
#include "models/users/users.hpp"
#include "sim/simulator.hpp"

namespace waitroom::models {

class aging {
 public:
  aging(const scenario& s, sim::simulator& sim, const users& u, queues& q);

  // A user entered list l on arrival.
  void arrived(std::uint32_t user, std::uint32_t l) {
    if (!max_wait_ns_[l]) return;
    lists_[l].arrived.push_back(user);
    if (!scheduled_[l]) schedule(l);
  }
  // k_aging for list l: moves every user due up one list, calling moved(user, from, to)
  // after each move.
  template <class F>
  void on_aging(std::uint32_t l, F&& moved) {
    const std::int64_t now = sim_.now().ns();
    const std::int64_t max_wait = *max_wait_ns_[l];
    auto& q = lists_[l];
    for (;;) {
      if (!q.arrived.empty()) {
        const std::uint32_t u = q.arrived.front();
        if (!users_.alive(u) || users_.list_of(u) != l) {  // released (or moved) already
          q.arrived.pop_front();
          continue;
        }
        if (sim::sim_time::add_ns(users_.entry_ns(u), max_wait) <= now) {
          q.arrived.pop_front();
          move_up(u, l, moved);
          continue;
        }
      }
      if (!q.moved.empty() && sim::sim_time::add_ns(q.moved.front().since_ns, max_wait) <= now) {
        const std::uint32_t u = q.moved.front().user;
        q.moved.pop_front();
        if (users_.alive(u) && users_.list_of(u) == l) move_up(u, l, moved);
        continue;
      }
      break;
    }
    schedule(l);
  }

  std::size_t memory_bytes() const;

 private:
  struct moved_entry {
    std::uint32_t user;
    std::int64_t since_ns;
  };
  struct list_queue {
    std::deque<std::uint32_t> arrived;
    std::deque<moved_entry> moved;
  };

  template <class F>
  void move_up(std::uint32_t user, std::uint32_t l, F& moved) {
    const std::uint32_t up = l - 1;
    queues_.move(user, l, up, sim_.now().ns());
    moved(user, l, up);
    if (max_wait_ns_[up]) {
      lists_[up].moved.push_back({user, sim_.now().ns()});
      if (!scheduled_[up]) schedule(up);
    }
  }
  // The earliest time a user in list l is due to move up, if any.
  std::optional<std::int64_t> next_due_ns(std::uint32_t l) const;
  void schedule(std::uint32_t l);

  sim::simulator& sim_;
  const users& users_;
  queues& queues_;
  std::vector<std::optional<std::int64_t>> max_wait_ns_;  // per list; none: no aging
  std::vector<list_queue> lists_;
  std::vector<bool> scheduled_;
};

}  // namespace waitroom::models
