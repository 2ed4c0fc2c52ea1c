#include "models/polling/waiting_page.hpp"

#include "models/events.hpp"

namespace waitroom::models {

waiting_page::waiting_page(const scenario& s, sim::simulator& sim, const users& u, const queues& q,
                           std::uint64_t seed, std::uint64_t replication)
    : sim_(sim),
      users_(u),
      queues_(q),
      counter_(*s.polling, q.lottery(), s.classes.size(),
               sim::rng(seed, replication, "poll_phase").next()) {
  // A lottery has no rank to show: users are not followed there.
  if (!q.lottery() && s.polling->follow_share > 0) {
    board_.emplace(*s.polling, s.lists.size());
    follower_.emplace(*s.polling, sim::rng(seed, replication, "follow").next(), s.classes.size());
  }
}

void waiting_page::start() {
  if (counter_.suggests()) sim_.schedule(sim::sim_time{}, p_sample, k_suggest);
}

void waiting_page::entered(std::uint32_t user, std::uint32_t user_class, std::int64_t now) {
  counter_.count_enter(now);
  if (follower_ && follower_->follows(user)) {
    follower_->start(user, user_class, now);
    sim_.schedule(
        sim::sim_time::from_ns(sim::sim_time::add_ns(
            now, sim::sim_time::add_ns(counter_.start_offset(user), counter_.interval_at(now)))),
        p_sample, k_poll, user);
  }
}

std::int64_t waiting_page::released(std::uint32_t user, std::uint32_t list, std::int64_t now) {
  const std::int64_t told = counter_.walk(users_.entry_ns(user), now, true, user);
  if (board_) board_->left(list, true);
  if (follower_ && follower_->follows(user)) follower_->finish(user, now, true);
  return told;
}

void waiting_page::gave_up(std::uint32_t user, std::uint32_t list, std::int64_t now) {
  counter_.walk(users_.entry_ns(user), now, false, user);
  counter_.count_remove(now);
  if (board_) board_->left(list, false);
  if (follower_ && follower_->follows(user)) follower_->finish(user, now, false);
}

void waiting_page::moved(std::uint32_t from, std::int64_t now) {
  counter_.count_remove(now);
  counter_.count_enter(now);
  if (board_) board_->left(from, false);
}

void waiting_page::on_suggest(std::uint64_t queue_length, bool room_done) {
  counter_.refresh_suggestion(queue_length);
  ++suggest_refreshes_;
  if (!room_done)
    sim_.schedule(sim::sim_time::from_ns(suggest_refreshes_ * counter_.suggest_every_ns()),
                  p_sample, k_suggest);
}

void waiting_page::on_poll(std::uint32_t user) {
  const std::int64_t now = sim_.now().ns();
  auto* rec = follower_->find(user);
  if (!rec) return;  // left the queue since
  std::optional<poll_follower::answer> fresh;
  if (poll_follower::due_lookup(*rec, now)) {
    const std::uint64_t rank = queues_.rank(user, now);
    fresh = poll_follower::answer{rank, board_->estimate(users_.list_of(user), rank, now)};
  }
  const std::int64_t next = follower_->poll(*rec, now, fresh ? &*fresh : nullptr, counter_);
  std::size_t k = 0;
  while (k < poll_queues_.size() && poll_queues_[k].interval_ns != next) ++k;
  if (k == poll_queues_.size()) poll_queues_.push_back({next, {}});
  auto& q = poll_queues_[k].users;
  const std::int64_t due = sim::sim_time::add_ns(now, next);
  q.emplace_back(due, user);
  if (q.size() == 1)
    sim_.schedule(sim::sim_time::from_ns(due), p_sample, k_poll_queue,
                  static_cast<std::uint32_t>(k));
}

void waiting_page::on_poll_queue(std::uint32_t queue) {
  // The head of a queue of polls one interval apart: poll, then bring up the next head.
  auto& q = poll_queues_[queue].users;
  const std::uint32_t user = q.front().second;
  q.pop_front();
  // The next head first: on_poll may push onto this queue (scheduling it when it was empty)
  // or add a queue (so no reference into poll_queues_ is held across it).
  if (!q.empty())
    sim_.schedule(sim::sim_time::from_ns(q.front().first), p_sample, k_poll_queue, queue);
  on_poll(user);
}

polling_result waiting_page::finish(std::int64_t end_ns) {
  queues_.for_each_waiting(
      [&](std::uint32_t user) { counter_.walk(users_.entry_ns(user), end_ns, false, user); });
  polling_result out = std::move(counter_.finish());
  if (follower_) {
    follower_->finish_all(end_ns);
    out.by_class = std::move(follower_->results());
    out.followed_users = follower_->started();
  }
  return out;
}

}  // namespace waitroom::models
