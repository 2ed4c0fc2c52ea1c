#include "models/room/room.hpp"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "models/events.hpp"

namespace waitroom::models {

room::room(const scenario& s, std::uint64_t seed, std::uint64_t replication)
    : sc_(s),
      entrance_(s, sim_, seed, replication),
      users_(s.policy, static_cast<std::uint32_t>(s.classes.size()),
             sim::rng(seed, replication, "tokens").next(),
             sim::rng(seed, replication, "score_noise").next(),
             s.release.selection.kind == selection_kind::lottery),
      queues_(s, users_),
      trace_(sim_, users_, queues_),
      releaser_(s, queues_, users_, seed, replication),
      controller_(s.release.controller, s.release.batch),
      modes_(s.release, sim_, seed, replication),
      aging_(s, sim_, users_, queues_),
      abandonment_(s.classes, sim_, seed, replication),
      returns_(s, sim_, users_, queues_, seed, replication),
      redis_memory_(s),
      ledger_(s, seed, replication) {
  if (s.admission) orders_.emplace(*s.admission, sim_, seed, replication);
  if (s.backend) backend_.emplace(*s.backend, sim_, controller_, trace_, seed, replication);
  if (s.polling) page_.emplace(s, sim_, users_, queues_, seed, replication);
}

std::size_t room::memory_bytes() const {
  return users_.memory_bytes() + queues_.memory_bytes() + sim_.queue().memory_bytes() +
         aging_.memory_bytes() + (page_ ? page_->memory_bytes() : 0);
}

// Both estimates fall only when users leave: called before each release, at every sample and
// at the end, which finds their peaks.
void room::note_peaks() {
  peak_memory_ = std::max<std::uint64_t>(peak_memory_, memory_bytes());
  redis_memory_.observe(queues_, ledger_.released_from_lists());
}

room_result room::run() {
  using sim::sim_time;
  entrance_.start();
  modes_.start();
  const auto& schedule = sc_.release.selection.schedule;
  for (std::uint32_t i = 0; i < schedule.size(); ++i)
    sim_.schedule(sim_time::from_seconds(schedule[i].at_s), p_control, k_weights, i);
  sim_.schedule(sim_time{}, p_sample, k_sample);
  if (sc_.backend)
    for (std::uint32_t i = 0; i < sc_.backend->capacity.size(); ++i)
      sim_.schedule(sim_time::from_seconds(sc_.backend->capacity[i].at_s), p_control, k_capacity,
                    i);
  if (sc_.release.controller.kind == controller_kind::window)
    sim_.schedule(sim_time::from_seconds(sc_.release.controller.every_s), p_control, k_control);
  if (page_) page_->start();

  sim::stop_conditions stop;
  if (sc_.run.horizon_s) stop.horizon = sim_time::from_seconds(*sc_.run.horizon_s);
  if (sc_.run.max_events) stop.max_events = sc_.run.max_events;
  const sim::stop_reason why = sim_.run(*this, stop);

  const std::int64_t end_ns = sim_.now().ns();
  ledger_.finish(queues_, users_, end_ns);
  note_peaks();
  room_result& result = ledger_.result();
  result.stop_reason = sim::to_string(why);
  result.end_time_s = sim_.now().seconds();
  result.events = sim_.events_executed();
  result.peak_memory_bytes = peak_memory_;
  result.redis_memory_bytes = redis_memory_.peak_bytes();
  result.compensation = returns_.finish();
  result.returning_visits = returns_.returning_visits();
  result.lost_release_units = releaser_.lost_units();
  if (orders_) result.admission = orders_->result();
  if (page_) result.polling = page_->finish(end_ns);
  if (backend_) backend_->finish(end_ns);
  // A final sample at the end time, unless the sampler just took one.
  if (!ledger_.sampled_at(result.end_time_s)) on_sample();
  if (backend_) result.backend = backend_->take_result();
  return std::move(result);
}

bool room::done() const {
  return entrance_.closed() && queues_.total() == 0 && !returns_.in_flight() &&
         (!backend_ || backend_->idle());
}

void room::handle(const sim::event& e) {
  const std::int64_t now = sim_.now().ns();
  switch (e.kind) {
    case k_arrival:
      entrance_.on_arrival(e.arg, [this](std::uint32_t c) { enter({c, false, -1}); });
      break;
    case k_backlog:
      entrance_.on_backlog([this](std::uint32_t c) { enter({c, false, -1}); });
      break;
    case k_tick:
      on_tick();
      break;
    case k_session_end:
      on_session_end();
      break;
    case k_sample:
      on_sample();
      break;
    case k_weights:
      releaser_.set_weights(sc_.release.selection.schedule[e.arg].weights);
      break;
    case k_aging:
      aging_.on_aging(e.arg, [&](std::uint32_t user, std::uint32_t from, std::uint32_t to) {
        ledger_.aged_in(to, queues_.size(to));
        trace_.line(user, users_.cls(user), "age", static_cast<std::int32_t>(to));
        if (page_) page_->moved(from, now);
      });
      break;
    case k_cancel:
      orders_->on_cancel();
      break;
    case k_return:
      enter(returns_.on_return(e.arg));
      break;
    case k_compensate:
      returns_.on_compensate([&](std::uint32_t user) {
        trace_.line(user, users_.cls(user), "rescore",
                    static_cast<std::int32_t>(users_.list_of(user)));
        if (page_) page_->rescored(now);
      });
      break;
    case k_abandon:
      on_abandon(e.arg);
      break;
    case k_service_end: {
      const std::uint64_t before = backend_->completed();
      backend_->on_service_end(e.arg);
      if (modes_.counts_exits()) serve(modes_.exits(backend_->completed() - before));
      break;
    }
    case k_capacity:
      backend_->on_capacity(e.arg);
      break;
    case k_control:
      controller_.look(now);
      if (!done())
        sim_.schedule(sim_.now() + sim::sim_time::from_seconds(sc_.release.controller.every_s),
                      p_control, k_control);
      break;
    case k_suggest:
      page_->on_suggest(queues_.total(), done());
      break;
    case k_poll:
      page_->on_poll(e.arg);
      break;
    case k_poll_queue:
      page_->on_poll_queue(e.arg);
      break;
    case k_reach:
      backend_->reached(e.arg);
      reach_backend(e.arg);
      break;
    case k_ps_done: {
      const std::uint64_t before = backend_->completed();
      backend_->on_ps_done(e.arg);
      if (modes_.counts_exits()) serve(modes_.exits(backend_->completed() - before));
      break;
    }
    case k_reclaim:
      backend_->reclaim(e.arg);
      if (orders_) orders_->give_back();  // the stock slot comes back too (never ordered)
      if (modes_.counts_exits()) serve(modes_.exits(backend_->take_reclaimed()));
      break;
    case k_active_end:
      modes_.session_ended();
      admit_waiting();
      break;
    case k_admit_check:
      modes_.checked();
      admit_waiting();
      break;
  }
}

void room::enter(const returns::visit& v) {
  const std::int64_t now = sim_.now().ns();
  const std::uint32_t c = v.user_class;
  ledger_.arrived(c);
  if (orders_ && !orders_->try_enter()) {  // sold out: refused at once, never queued
    ledger_.sold_out(c, now);
    trace_.unqueued_line(c, "refused");
    return;
  }
  const auto way = modes_.arrive(queues_.total() == 0, now);
  if (way == release_modes::way::refuse) {  // the gate's queueing_method reject
    ledger_.turned_away(c, now);
    trace_.line(users_.next(), c, "refused", -1);
    return;
  }
  if (way == release_modes::way::direct) {  // a free concurrency slot: nobody waits
    ledger_.served_at_once(c, now);
    if (orders_) orders_->place();
    trace_.unqueued_line(c, "direct");
    returns_.served_at_once(v);
    modes_.start_session();
    return;
  }
  account_queue_change();
  const std::uint32_t user = users_.add(now, c, v.boosted);
  const std::uint32_t l = entrance_.list_for(c);
  queues_.enter(user, c, l, now);
  ledger_.entered(c, l, queues_.total(), queues_.size(l));
  trace_.line(user, c, "enter", static_cast<std::int32_t>(l));
  if (page_) page_->entered(user, c, now);
  abandonment_.entered(user, c);
  aging_.arrived(user, l);
  returns_.entered(user, v);
  if (const std::uint64_t n = modes_.entered(user)) serve(n);  // the counter passed it
  // Let in by the gate: it still passes through the queue (entered and released at the same
  // instant), so it reaches the backend like everyone else.
  if (way == release_modes::way::let_in) {
    release(1);
    modes_.admitted(now);
  }
}

void room::leave_on_release(std::uint32_t user, std::uint32_t list) {
  const std::int64_t now = sim_.now().ns();
  const std::uint32_t c = users_.cls(user);
  const std::int64_t wait = ledger_.released(c, list, users_.entry_ns(user), now);
  trace_.line(user, c, "release", static_cast<std::int32_t>(list));
  // With a backend the user orders when it gets there (and a no-show never does).
  if (orders_ && !backend_) orders_->place();
  const std::int64_t told = page_ ? page_->released(user, list, now) : now;
  if (backend_ && backend_->send(user, c, told)) reach_backend(user);
  returns_.released(user, c, wait);
  users_.retire(user);
}

void room::reach_backend(std::uint32_t user) {
  if (orders_) orders_->place();
  backend_->arrive(user);
}

std::uint64_t room::release(std::uint64_t n) {
  return releaser_.release(n, sim_.now().ns(), [this](std::uint32_t user, std::uint32_t list) {
    leave_on_release(user, list);
  });
}

// A user whose patience ran out leaves the queue (ZREM), if still waiting.
void room::on_abandon(std::uint32_t user) {
  if (!users_.waiting(user)) return;  // released already
  account_queue_change();
  const std::int64_t now = sim_.now().ns();
  const std::uint32_t l = users_.list_of(user);
  const std::uint32_t c = users_.cls(user);
  queues_.remove(user, now);
  const std::int64_t waited =
      ledger_.abandoned(c, users_.entry_ns(user), now, abandonment_.pays_later(user, c));
  trace_.line(user, c, "abandon", static_cast<std::int32_t>(l));
  if (page_) page_->gave_up(user, l, now);
  returns_.gave_up(user, c, waited);
  modes_.gave_up(user);
  users_.retire(user);
}

void room::on_tick() {
  const std::int64_t now = sim_.now().ns();
  // Releases taken back from no-shows go to this tick, on top of the controller's batch.
  const std::uint64_t reclaimed = backend_ ? backend_->take_reclaimed() : 0;
  const std::uint64_t batch = modes_.tick_batch(now, controller_, reclaimed);
  if (queues_.total() > 0) {
    account_queue_change();
    note_peaks();
    release(batch);
  }
  queues_.round_end(now);
  if (page_) {
    page_->release_ran(now);  // the release script runs every tick
    page_->round(now);
  }
  modes_.next_tick();
}

void room::on_session_end() {
  account_queue_change();
  if (page_ && queues_.total() > 0) page_->release_ran(sim_.now().ns());
  if (queues_.total() == 0 || release(1) == 0) {
    modes_.free_slot();
    return;
  }
  queues_.round_end(sim_.now().ns());
  modes_.start_session();
}

void room::admit_waiting() {
  const std::int64_t now = sim_.now().ns();
  if (queues_.total() == 0) return;
  const std::uint64_t n = modes_.gate_room(now);
  if (n == 0) return;
  account_queue_change();
  if (page_) page_->release_ran(now);
  modes_.admitted(now, release(n));
  queues_.round_end(now);
  if (queues_.total() > 0) modes_.gate_room(now);  // schedules the window's next turn
}

void room::serve(std::uint64_t n) {
  if (n == 0) return;
  const std::int64_t now = sim_.now().ns();
  account_queue_change();
  if (page_) page_->release_ran(now);
  release(n);
  queues_.round_end(now);
}

void room::on_sample() {
  // A run with no horizon and no arrivals left that released nobody since the last sample
  // may be one that cannot drain: checked here, off the hot path.
  if (!sc_.run.horizon_s && entrance_.closed() && !ledger_.released_since_sample()) check_stalled();
  if (progress_) progress_(sim_.now().seconds(), queues_.total(), sim_.events_executed());
  queues_.report_sizes(sim_.now().ns());
  // A lottery's users have no position; weighted by wait there is no closed form either.
  ledger_.sample(sim_.now().seconds(), queues_.total(),
                 queues_.lottery() && sc_.release.selection.wait_scale_s == 0
                     ? queues_.expected_ranks(sc_.release.selection.class_weights)
                     : std::vector<double>{});
  // Without ticks (concurrency, active users, the max-size inlet) the ETA estimators' rounds
  // are the samples.
  if (page_ && !modes_.ticks()) page_->round(sim_.now().ns());
  if (backend_) backend_->record_controller(sim_.now().seconds());
  if (orders_) orders_->sample(sim_.now().seconds());
  note_peaks();
  if (!done() && ledger_.sample_count() < max_queue_samples)
    sim_.schedule(sim_.now() + sim::sim_time::from_seconds(sc_.run.sample_interval_s), p_sample,
                  k_sample);
}

void room::check_stalled() {
  const std::string why = stall_reason(
      {sim_.queue(), returns_.in_flight(), backend_ && !backend_->idle(), queues_.total(),
       sc_.release.mode, controller_.frozen_at_zero(), releaser_.starves()});
  if (why.empty()) return;
  throw stall_error("/run/horizon_s", "a run that can drain (or a horizon)",
                    fmt::format("nothing can leave after t = {:.3f} s with {} users waiting: {}",
                                sim_.now().seconds(), queues_.total(), why),
                    "set /run/horizon_s to stop there and report the users still waiting");
}

}  // namespace waitroom::models
