#include "models/room/room.hpp"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "models/events.hpp"

namespace waitroom::models {

namespace {
// A run without a horizon could sample without end; the cap keeps memory bounded.
constexpr std::size_t max_samples = 10'000'000;

template <class T, class F>
std::vector<double> shares(const std::vector<T>& items, F share) {
  std::vector<double> out;
  for (const auto& it : items) out.push_back(share(it));
  return out;
}

}  // namespace

room::room(const scenario& s, std::uint64_t seed, std::uint64_t replication)
    : sc_(s),
      arrival_rng_(seed, replication, "arrivals"),
      class_rng_(seed, replication, "class"),
      service_rng_(seed, replication, "service"),
      select_rng_(seed, replication, "selection"),
      patience_rng_(seed, replication, "patience"),
      pay_later_salt_(sim::rng(seed, replication, "pay_later").next()),
      arrivals_(make_arrival_process(s.arrivals)),
      mix_(shares(s.classes, [](const user_class& c) { return c.share; })),
      sku_mix_(shares(s.skus, [](const sku_spec& k) { return k.share; })),
      sku_rng_(seed, replication, "sku"),
      free_slots_(s.release.mode == release_mode::concurrency ? s.release.slots : 0),
      users_(s.policy, static_cast<std::uint32_t>(s.classes.size()),
             sim::rng(seed, replication, "tokens").next(),
             sim::rng(seed, replication, "score_noise").next()),
      queues_(s, users_),
      trace_(sim_, users_, queues_),
      selection_(selection_policy_of(s.release.selection.kind)),
      selector_(s.release.selection, s.lists.size()),
      controller_(s.release.controller, s.release.batch),
      aging_(s, sim_, users_, queues_),
      returns_(s, sim_, users_, queues_, seed, replication),
      warmup_(s.run),
      redis_memory_(s),
      waiting_by_class_(s.classes.size(), 0) {
  if (s.admission) orders_.emplace(*s.admission, sim_, seed, replication);
  if (s.backend) backend_.emplace(*s.backend, sim_, controller_, trace_, seed, replication);
  if (s.polling) page_.emplace(s, sim_, users_, queues_, seed, replication);
  if (s.release.mode == release_mode::active_users)
    gate_.emplace(s.release.active, sim_, seed, replication);
  if (s.release.mode == release_mode::serving_counter) {
    max_size_inlet_ = s.release.counter.inlet == inlet_kind::max_size;
    counter_.emplace(max_size_inlet_ ? s.release.counter.max_size : 0);
  }
  for (const auto& l : s.lists) result_.list_names.push_back(l.name);
  result_.by_list.resize(s.lists.size());
  result_.seed = seed;
  result_.replication = replication;
  result_.class_names = s.class_names();
  result_.by_class.resize(s.classes.size());
}

std::size_t room::memory_bytes() const {
  return users_.memory_bytes() + queues_.memory_bytes() + sim_.queue().memory_bytes() +
         aging_.memory_bytes() + (page_ ? page_->memory_bytes() : 0);
}

// Both estimates fall only when users leave: called before each release, at every sample and
// at the end, which finds their peaks.
void room::note_peaks() {
  peak_memory_ = std::max<std::uint64_t>(peak_memory_, memory_bytes());
  std::uint64_t released = 0;
  for (const auto& l : result_.by_list) released += l.released;
  redis_memory_.observe(queues_, released);
}

room_result room::run() {
  using sim::sim_time;
  if (sc_.arrivals.backlog_users > 0) {
    backlog_pending_ = true;
    sim_.schedule(sim_time{}, p_arrival, k_backlog);
  }
  next_arrival();
  if (sc_.release.mode == release_mode::tick || (counter_ && !max_size_inlet_))
    sim_.schedule(sc_.release.first_tick_s ? sim_time::from_seconds(*sc_.release.first_tick_s)
                                           : sc_.release.interval,
                  p_release, k_tick);
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
  if (gate_) gate_->start();

  sim::stop_conditions stop;
  if (sc_.run.horizon_s) stop.horizon = sim_time::from_seconds(*sc_.run.horizon_s);
  if (sc_.run.max_events) stop.max_events = sc_.run.max_events;
  const sim::stop_reason why = sim_.run(*this, stop);

  account_queue_change();
  if (warmup_.counted_from_ns() == 0) result_.queue_length_area_counted = result_.queue_length_area;
  note_peaks();
  result_.stop_reason = sim::to_string(why);
  result_.end_time_s = sim_.now().seconds();
  result_.events = sim_.events_executed();
  result_.peak_memory_bytes = peak_memory_;
  result_.redis_memory_bytes = redis_memory_.peak_bytes();
  result_.compensation = returns_.finish();
  result_.returning_visits = returns_.returning_visits();
  result_.warmup_dropped = warmup_.dropped();
  if (orders_) result_.admission = orders_->result();
  // With the waits of users still queued, the area under the queue-length curve is exactly
  // accounted for: area = sum of completed waits + censored waits (Little's law, sample path).
  // A user still waiting has waited at least this long: its censored wait (warm-up rule too).
  const std::int64_t end_ns = sim_.now().ns();
  queues_.for_each_waiting([&](std::uint32_t user) {
    if (!warmup_.counts(users_.entry_ns(user))) return;
    const std::int64_t waited = end_ns - users_.entry_ns(user);
    auto& st = result_.by_class[users_.cls(user)];
    st.censored_s.add(static_cast<double>(waited) * 1e-9);
    if (!st.censored_ns) st.censored_ns.emplace();
    st.censored_ns->add(waited);
    result_.censored_wait_s += static_cast<double>(waited) * 1e-9;
  });
  result_.counted_from_s =
      sim::sim_time::from_ns(warmup_.counted_from_ns().value_or(end_ns)).seconds();
  for (std::size_t c = 0; c < waiting_by_class_.size(); ++c) {
    result_.by_class[c].waiting_at_end = waiting_by_class_[c];
    result_.overall.merge(result_.by_class[c]);
  }
  if (page_) result_.polling = page_->finish(end_ns);
  if (backend_) backend_->finish(end_ns);
  // A final sample at the end time, unless the sampler just took one.
  if (result_.samples.empty() || result_.samples.back().t_s < result_.end_time_s) on_sample();
  if (backend_) result_.backend = backend_->take_result();
  return std::move(result_);
}

bool room::done() const {
  return !arrivals_open_ && !backlog_pending_ && queues_.total() == 0 && !returns_.in_flight() &&
         (!backend_ || backend_->idle());
}

void room::handle(const sim::event& e) {
  const std::int64_t now = sim_.now().ns();
  switch (e.kind) {
    case k_arrival:
      enter({e.arg == draw_class ? mix_.draw(class_rng_) : e.arg, false, -1});
      next_arrival();
      break;
    case k_backlog:
      for (std::uint64_t i = 0; i < sc_.arrivals.backlog_users; ++i)
        enter({mix_.draw(class_rng_), false, -1});
      backlog_pending_ = false;
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
      selector_.set_weights(sc_.release.selection.schedule[e.arg].weights);
      break;
    case k_aging:
      aging_.on_aging(e.arg, [&](std::uint32_t user, std::uint32_t from, std::uint32_t to) {
        ++result_.by_list[to].aged_in;
        trace_.line(user, users_.cls(user), "age", static_cast<std::int32_t>(to));
        if (page_) page_->moved(from, now);
        result_.by_list[to].peak_length =
            std::max(result_.by_list[to].peak_length, queues_.size(to));
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
      if (max_size_inlet_) exits_since(before);
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
      reach_backend();
      break;
    case k_ps_done: {
      const std::uint64_t before = backend_->completed();
      backend_->on_ps_done(e.arg);
      if (max_size_inlet_) exits_since(before);
      break;
    }
    case k_reclaim:
      backend_->reclaim(e.arg);
      if (orders_) orders_->give_back();  // the stock slot comes back too (never ordered)
      if (max_size_inlet_) serve(counter_->advance(backend_->take_reclaimed()));
      break;
    case k_active_end:
      gate_->session_ended();
      admit_waiting();
      break;
    case k_admit_check:
      gate_->checked();
      admit_waiting();
      break;
  }
}

void room::next_arrival() {
  sim::arrival a{};
  if (arrivals_.next(arrival_rng_, a))
    sim_.schedule(a.time, p_arrival, k_arrival, static_cast<std::uint32_t>(a.user_class));
  else
    arrivals_open_ = false;
}

[[gnu::always_inline]] inline void room::account_queue_change() {
  const std::int64_t now = sim_.now().ns();
  const auto length = static_cast<double>(queues_.total());
  result_.queue_length_area += length * static_cast<double>(now - last_change_ns_) * 1e-9;
  // The part after the warm-up, for Little's law under the same rule as the waits.
  // Counting from 0, the two areas are the same sums: run() copies the whole one at the end.
  if (const std::int64_t from = warmup_.partial_area_from(); now > from) [[unlikely]]
    result_.queue_length_area_counted +=
        length * static_cast<double>(now - std::max(last_change_ns_, from)) * 1e-9;
  last_change_ns_ = now;
}

void room::schedule_session_end() {
  const double d = std::max(0.0, sc_.release.session.sample(service_rng_));
  sim_.schedule(sim_.now() + sim::sim_time::from_seconds(d), p_release, k_session_end);
}

void room::enter(const returns::visit& v) {
  const std::int64_t now = sim_.now().ns();
  const std::uint32_t c = v.user_class;
  auto& st = result_.by_class[c];
  ++st.arrived;
  if (orders_ && !orders_->try_enter()) {  // sold out: refused at once, never queued
    ++st.refused;
    if (warmup_.counts(now)) ++st.refused_counted;
    trace_.unqueued_line(c, "refused");
    return;
  }
  // Active-user admission: a user let in at once still passes through the queue (entered and
  // released at the same instant), so it reaches the backend like everyone else.
  bool let_in = false;
  if (gate_) {
    const auto verdict = gate_->arrive(queues_.total() == 0, now);
    if (verdict == active_gate::verdict::refuse) {  // queueing_method reject
      ++st.refused;
      trace_.line(users_.next(), c, "refused", -1);
      return;
    }
    let_in = verdict == active_gate::verdict::admit;
  }
  if (free_slots_ > 0) {  // concurrency mode with a free slot (so nobody waits): straight in
    --free_slots_;
    if (warmup_.record(now, 0)) {
      st.wait_s.add(0.0);
      st.wait_ns.add(0);
    }
    warmup_.released_at(now);
    ++st.released;
    ++released_since_sample_;
    if (orders_) orders_->place();
    trace_.unqueued_line(c, "direct");
    returns_.served_at_once(v);
    schedule_session_end();
    return;
  }
  account_queue_change();
  const std::uint32_t user = users_.add(now, c, v.boosted);
  const std::uint32_t l = sc_.route[c][draw_sku()];
  queues_.enter(user, c, l, now);
  ++waiting_by_class_[c];
  trace_.line(user, c, "enter", static_cast<std::int32_t>(l));
  if (page_) page_->entered(user, c, now);
  result_.peak_queue_length = std::max(result_.peak_queue_length, queues_.total());
  result_.by_list[l].peak_length = std::max(result_.by_list[l].peak_length, queues_.size(l));
  if (const auto& patience = sc_.classes[c].patience_s) {
    const double d = std::max(0.0, patience->sample(patience_rng_));
    sim_.schedule(sim_.now() + sim::sim_time::from_seconds(d), p_control, k_abandon, user);
  }
  aging_.arrived(user, l);
  returns_.entered(user, v);
  if (counter_) serve(counter_->entered(user));  // the counter had passed its number
  if (let_in) {
    release(1);
    gate_->admitted(now);
  }
}

void room::leave_on_release(std::uint32_t user, std::uint32_t list) {
  const std::int64_t now = sim_.now().ns();
  const std::int64_t wait = now - users_.entry_ns(user);
  const std::uint32_t c = users_.cls(user);
  auto& st = result_.by_class[c];
  if (warmup_.record(users_.entry_ns(user), wait)) {
    st.wait_s.add(static_cast<double>(wait) * 1e-9);
    st.wait_ns.add(wait);
  }
  warmup_.released_at(now);
  ++st.released;
  --waiting_by_class_[c];
  trace_.line(user, c, "release", static_cast<std::int32_t>(list));
  ++result_.by_list[list].released;
  ++released_since_sample_;
  // With a backend the user orders when it gets there (and a no-show never does).
  if (orders_ && !backend_) orders_->place();
  const std::int64_t told = page_ ? page_->released(user, list, now) : now;
  if (backend_ && backend_->send(user, c, told)) reach_backend();
  returns_.released(user, c, wait);
  users_.retire(user);
}

void room::reach_backend() {
  if (orders_) orders_->place();
  backend_->arrive();
}

std::uint64_t room::release(std::uint64_t n) {
  const std::int64_t now = sim_.now().ns();
  auto pop = [&](std::uint32_t l, std::uint64_t k) {
    return queues_.pop(l, k, now, [&](std::uint32_t user) { leave_on_release(user, l); });
  };
  std::uint64_t done_n = 0;
  if (queues_.lottery()) {
    for (; done_n < n && queues_.total() > 0; ++done_n)
      leave_on_release(queues_.draw(select_rng_, now), 0);
    return done_n;
  }
  if (queues_.list_count() == 1) return pop(0, n);
  if (selection_.in_list_order) {
    for (std::uint32_t l = 0; l < queues_.list_count() && done_n < n; ++l)
      done_n += pop(l, n - done_n);
    return done_n;
  }
  const pick_context ctx{queues_.sizes(), select_rng_, &queues_,
                         &users_,         now,         &sc_.release.selection};
  for (std::uint64_t k = 0; k < n && queues_.total() > 0; ++k) {
    const int l = selection_.pick(selector_, ctx);
    if (l == list_selector::none) {
      ++result_.lost_release_units;  // a non-work-conserving share of an empty list
      continue;
    }
    done_n += pop(static_cast<std::uint32_t>(l), 1);
  }
  return done_n;
}

// A user whose patience ran out leaves the queue (ZREM), if still waiting.
void room::on_abandon(std::uint32_t user) {
  if (!users_.waiting(user)) return;  // released already
  account_queue_change();
  const std::int64_t now = sim_.now().ns();
  const std::uint32_t l = users_.list_of(user);
  const std::uint32_t c = users_.cls(user);
  const std::int64_t waited = now - users_.entry_ns(user);
  queues_.remove(user, now);
  --waiting_by_class_[c];
  trace_.line(user, c, "abandon", static_cast<std::int32_t>(l));
  if (page_) page_->gave_up(user, l, now);
  auto& st = result_.by_class[c];
  ++st.abandoned;
  if (warmup_.counts(users_.entry_ns(user))) {
    st.abandon_s.add(static_cast<double>(waited) * 1e-9);
    if (!st.abandon_ns) st.abandon_ns.emplace();
    st.abandon_ns->add(waited);
  }
  if (sim::unit_from_hash(sim::mix64(user ^ pay_later_salt_)) <
      sc_.classes[c].pay_later_probability)
    ++st.paid_later;
  returns_.gave_up(user, c, waited);
  if (counter_) counter_->gave_up(user);
  users_.retire(user);
}

void room::on_tick() {
  const std::int64_t now = sim_.now().ns();
  // Releases taken back from no-shows go to this tick, on top of the controller's batch.
  const std::uint64_t reclaimed = backend_ ? backend_->take_reclaimed() : 0;
  std::uint64_t batch = controller_.tick_batch() + reclaimed;
  // The periodic inlet moves the counter; it serves the waiting users it passes.
  if (counter_)
    batch =
        counter_->advance(periodic_increment(sc_.release.counter, now, controller_) + reclaimed);
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
  sim_.schedule(sim_.now() + sc_.release.interval, p_release, k_tick);
}

void room::on_session_end() {
  account_queue_change();
  if (page_ && queues_.total() > 0) page_->release_ran(sim_.now().ns());
  if (queues_.total() == 0 || release(1) == 0) {
    ++free_slots_;
    return;
  }
  queues_.round_end(sim_.now().ns());
  schedule_session_end();
}

void room::admit_waiting() {
  const std::int64_t now = sim_.now().ns();
  if (queues_.total() == 0) return;
  const std::uint64_t n = gate_->room(now, true);
  if (n == 0) return;
  account_queue_change();
  if (page_) page_->release_ran(now);
  const std::uint64_t let_in = release(n);
  for (std::uint64_t i = 0; i < let_in; ++i) gate_->admitted(now);
  queues_.round_end(now);
  if (queues_.total() > 0) gate_->room(now, true);  // schedules the window's next turn
}

void room::serve(std::uint64_t n) {
  if (n == 0) return;
  const std::int64_t now = sim_.now().ns();
  account_queue_change();
  if (page_) page_->release_ran(now);
  release(n);
  queues_.round_end(now);
}

void room::exits_since(std::uint64_t before) {
  serve(counter_->advance(backend_->completed() - before));
}

void room::on_sample() {
  // A run with no horizon and no arrivals left that released nobody since the last sample
  // may be one that cannot drain: checked here, off the hot path.
  if (!sc_.run.horizon_s && !arrivals_open_ && !backlog_pending_ && released_since_sample_ == 0)
    check_stalled();
  if (progress_) progress_(sim_.now().seconds(), queues_.total(), sim_.events_executed());
  queue_sample s{
      sim_.now().seconds(), queues_.total(), waiting_by_class_, released_since_sample_, {}};
  // A lottery's users have no position; weighted by wait there is no closed form either.
  if (queues_.lottery() && sc_.release.selection.wait_scale_s == 0)
    s.expected_rank_by_class = queues_.expected_ranks(sc_.release.selection.class_weights);
  released_since_sample_ = 0;
  result_.samples.push_back(std::move(s));
  // Without ticks (concurrency, active users, the max-size inlet) the ETA estimators' rounds
  // are the samples.
  const bool ticks = sc_.release.mode == release_mode::tick || (counter_ && !max_size_inlet_);
  if (page_ && !ticks) page_->round(sim_.now().ns());
  if (backend_) backend_->record_controller(sim_.now().seconds());
  if (orders_) orders_->sample(sim_.now().seconds());
  note_peaks();
  if (!done() && result_.samples.size() < max_samples)
    sim_.schedule(sim_.now() + sim::sim_time::from_seconds(sc_.run.sample_interval_s), p_sample,
                  k_sample);
}

void room::check_stalled() {
  const std::string why = stall_reason(
      {sim_.queue(), returns_.in_flight(), backend_ && !backend_->idle(), queues_.total(),
       sc_.release.mode, controller_.frozen_at_zero(), selector_.starves(queues_.sizes())});
  if (why.empty()) return;
  throw stall_error("/run/horizon_s", "a run that can drain (or a horizon)",
                    fmt::format("nothing can leave after t = {:.3f} s with {} users waiting: {}",
                                sim_.now().seconds(), queues_.total(), why),
                    "set /run/horizon_s to stop there and report the users still waiting");
}

}  // namespace waitroom::models
