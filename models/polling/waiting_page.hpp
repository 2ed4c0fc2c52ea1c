#pragma once
// The waiting page in a room: every user's polls counted as Redis commands (poll_counter),
// a sample of users followed through each poll for the rank they are shown and the ETA
// estimators (poll_follower, eta_board). The room tells it when users enter, leave, move
// and when the release runs; it schedules the followed users' polls and the server's
// suggested-interval refreshes.
#include <cstdint>
#include <deque>
#include <optional>
#include <utility>
#include <vector>

#include "models/polling/polling.hpp"
#include "models/queues/queues.hpp"
#include "models/spec/scenario.hpp"
#include "models/users/users.hpp"
#include "sim/simulator.hpp"

namespace waitroom::models {

class waiting_page {
 public:
  waiting_page(const scenario& s, sim::simulator& sim, const users& u, const queues& q,
               std::uint64_t seed, std::uint64_t replication);

  // Schedules the first suggestion refresh (at time 0), when the server suggests intervals.
  void start();
  void entered(std::uint32_t user, std::uint32_t user_class, std::int64_t now_ns);
  // A waiting user was released: returns when it learns of it (its next status lookup).
  std::int64_t released(std::uint32_t user, std::uint32_t list, std::int64_t now_ns);
  void gave_up(std::uint32_t user, std::uint32_t list, std::int64_t now_ns);
  // Aging: ZREM from `from`, ZADD to another list.
  void moved(std::uint32_t from, std::int64_t now_ns);
  // A credit applied in place: ZREM and ZADD in the same list.
  void rescored(std::int64_t now_ns) {
    counter_.count_remove(now_ns);
    counter_.count_enter(now_ns);
  }
  // The release script ran (a tick, or a session end with users waiting).
  void release_ran(std::int64_t now_ns) { counter_.count_release(now_ns); }
  // The ETA estimators' round: a tick, or in concurrency mode a sample.
  void round(std::int64_t now_ns) {
    if (board_) board_->round(now_ns);
  }
  // k_suggest: returns true when another refresh should follow.
  void on_suggest(std::uint64_t queue_length, bool room_done);
  void on_poll(std::uint32_t user);
  void on_poll_queue(std::uint32_t queue);

  // The polls of users still waiting at the end, and the results.
  polling_result finish(std::int64_t end_ns);
  std::size_t memory_bytes() const {
    return counter_.memory_bytes() + (follower_ ? follower_->memory_bytes() : 0);
  }

 private:
  sim::simulator& sim_;
  const users& users_;
  const queues& queues_;
  poll_counter counter_;
  std::optional<eta_board> board_;
  std::optional<poll_follower> follower_;
  std::int64_t suggest_refreshes_ = 0;
  // Every poll after a followed user's first comes one of a few intervals after the previous
  // one, so the polls of each interval arrive in time order: a FIFO per interval, with only
  // its head in the event heap (200k followed users would otherwise keep 200k events there).
  struct poll_queue {
    std::int64_t interval_ns;
    std::deque<std::pair<std::int64_t, std::uint32_t>> users;  // (due, user), in time order
  };
  std::vector<poll_queue> poll_queues_;
};

}  // namespace waitroom::models
