#include "models/room/room.hpp"

#include <algorithm>
#include <limits>

namespace waitroom::models {

void wait_stats::merge(const wait_stats& o) {
  arrived += o.arrived;
  released += o.released;
  waiting_at_end += o.waiting_at_end;
  refused += o.refused;
  abandoned += o.abandoned;
  paid_later += o.paid_later;
  abandon_s.merge(o.abandon_s);
  wait_s.merge(o.wait_s);
  wait_ns.merge(o.wait_ns);
}

namespace {
constexpr std::size_t max_samples = 10'000'000;
constexpr std::uint8_t no_list = derived_store<room>::no_list;

sim::arrival_process make_arrivals(const arrival_spec& a) {
  switch (a.kind) {
    case arrival_kind::poisson:
      return sim::arrival_process::poisson(a.rate_per_s);
    case arrival_kind::piecewise:
      return sim::arrival_process::piecewise(a.segments);
    case arrival_kind::trace:
      return sim::arrival_process::replay(a.trace);
  }
  return sim::arrival_process::poisson(1.0);
}

std::vector<double> sku_shares(const scenario& s) {
  std::vector<double> out;
  for (const auto& k : s.skus) out.push_back(k.share);
  return out;
}

std::vector<double> shares_of(const scenario& s) {
  std::vector<double> out;
  for (const auto& c : s.classes) out.push_back(c.share);
  return out;
}

}  // namespace

room::room(const scenario& s, std::uint64_t seed, std::uint64_t replication)
    : sc_(s),
      arrival_rng_(seed, replication, "arrivals"),
      class_rng_(seed, replication, "class"),
      service_rng_(seed, replication, "service"),
      select_rng_(seed, replication, "selection"),
      token_salt_(sim::rng(seed, replication, "tokens").next()),
      noise_salt_(sim::rng(seed, replication, "score_noise").next()),
      arrivals_(make_arrivals(s.arrivals)),
      mix_(shares_of(s)),
      lottery_(s.release.selection.kind == selection_kind::lottery),
      sku_mix_(sku_shares(s)),
      sku_rng_(seed, replication, "sku"),
      list_sizes_(s.lists.size(), 0),
      selector_(s.release.selection, s.lists.size()),
      aging_(s.lists.size()),
      aging_scheduled_(s.lists.size(), false),
      return_rng_(seed, replication, "returns"),
      patience_rng_(seed, replication, "patience"),
      pay_later_salt_(sim::rng(seed, replication, "pay_later").next()),
      backend_rng_(seed, replication, "backend"),
      reach_rng_(seed, replication, "reach"),
      order_rng_(seed, replication, "orders"),
      waiting_by_class_(s.classes.size(), 0) {
  if (s.admission) gate_.emplace(s.admission->stock);
  if (s.compensation) result_.compensation.emplace();
  if (s.backend) {
    result_.backend.emplace();
    backend_workers_ = s.backend->workers;
    window_ns_ = sim::sim_time::from_seconds(s.backend->window_s).ns();
  }
  if (s.polling) {
    polls_.emplace(*s.polling, lottery_, s.classes.size(),
                   sim::rng(seed, replication, "poll_phase").next());
    // A lottery has no rank to show: users are not followed there.
    if (!lottery_ && s.polling->follow_share > 0) {
      board_.emplace(*s.polling, s.lists.size());
      follower_.emplace(*s.polling, sim::rng(seed, replication, "follow").next(), s.classes.size());
    }
  }
  rate_ = static_cast<double>(s.release.batch);
  const std::size_t n = s.lists.size();
  for (std::size_t l = 0; l < n; ++l)
    lists_.push_back(std::make_unique<list_zset>(this, static_cast<std::uint8_t>(l)));
  if (lottery_) {
    lottery_sets_.resize(s.classes.size());
    lottery_entry_sum_.assign(s.classes.size(), 0.0L);
    lottery_by_age_.resize(s.classes.size());
  }
  for (const auto& l : s.lists) result_.list_names.push_back(l.name);
  result_.by_list.resize(n);
  result_.seed = seed;
  result_.replication = replication;
  result_.class_names = s.class_names();
  result_.by_class.resize(s.classes.size());
  free_servers_ = s.release.mode == release_mode::concurrency ? s.release.slots : 0;
}

std::size_t room::memory_bytes() const {
  std::size_t b = entry_ns_.memory_bytes() + class_of_.memory_bytes() + list_of_.memory_bytes() +
                  set_pos_.memory_bytes() + sim_.queue().memory_bytes();
  for (const auto& set : lottery_sets_) b += set.capacity() * sizeof(std::uint32_t);
  for (const auto& q : lottery_by_age_) b += q.size() * sizeof(std::uint32_t);
  if (polls_) b += polls_->memory_bytes();
  if (follower_) b += follower_->memory_bytes();
  for (const auto& l : lists_) b += l->memory_bytes();
  for (const auto& a : aging_)
    b += a.arrived.size() * sizeof(std::uint32_t) + a.moved.size() * sizeof(aging_entry);
  return b;
}

room_result room::run() {
  using sim::sim_time;
  if (sc_.arrivals.backlog_users > 0) {
    backlog_pending_ = true;
    sim_.schedule(sim_time{}, p_arrival, k_backlog);
  }
  sim::arrival a{};
  if (arrivals_.next(arrival_rng_, a))
    sim_.schedule(a.time, p_arrival, k_arrival, static_cast<std::uint32_t>(a.user_class));
  else
    arrivals_open_ = false;
  if (sc_.release.mode == release_mode::tick)
    sim_.schedule(sc_.release.interval, p_release, k_tick);
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
  if (polls_ && polls_->suggests()) sim_.schedule(sim_time{}, p_sample, k_suggest);

  sim::stop_conditions stop;
  if (sc_.run.horizon_s) stop.horizon = sim_time::from_seconds(*sc_.run.horizon_s);
  if (sc_.run.max_events) stop.max_events = sc_.run.max_events;
  sim::stop_reason why = sim_.run(*this, stop);

  account_queue_change();
  peak_memory_ = std::max<std::uint64_t>(peak_memory_, memory_bytes());
  result_.stop_reason = sim::to_string(why);
  result_.end_time_s = sim_.now().seconds();
  result_.events = sim_.events_executed();
  result_.peak_memory_bytes = peak_memory_;
  if (result_.compensation) {  // credits whose holders had not come back yet
    for (const auto& rec : pending_returns_)
      if (rec.credit_expires_ns >= 0) ++result_.compensation->unused;
    result_.compensation->credited.arrived =
        result_.compensation->used + result_.compensation->used_in_place;
  }
  if (gate_) {
    admission_result ar;
    ar.stock = gate_->stock();
    ar.refused = gate_->refused();
    ar.orders = gate_->orders();
    ar.order_failures = gate_->failures();
    ar.cancellations = gate_->cancellations();
    ar.reopenings = gate_->reopenings();
    ar.max_outstanding_orders = gate_->max_outstanding_orders();
    ar.available_at_end = gate_->available();
    if (auto t = gate_->sold_out_at_ns()) ar.sold_out_at_s = static_cast<double>(*t) / 1e9;
    result_.admission = ar;
  }
  for (std::size_t c = 0; c < waiting_by_class_.size(); ++c) {
    result_.by_class[c].waiting_at_end = waiting_by_class_[c];
    result_.overall.merge(result_.by_class[c]);
  }
  // With the waits of users still queued, the area under the queue-length curve is exactly
  // accounted for: area = sum of completed waits + censored waits (Little's law, sample path).
  const std::int64_t end_ns = sim_.now().ns();
  auto censor = [&](std::uint32_t user) {
    result_.censored_wait_s += static_cast<double>(end_ns - entry_ns_[user]) * 1e-9;
  };
  for (const auto& l : lists_) l->tree().for_range(0, l->zcard(), [&](zentry e) { censor(e.id); });
  for (const auto& set : lottery_sets_)
    for (std::uint32_t user : set) censor(user);
  if (polls_) {  // the polls of users still waiting
    for (const auto& l : lists_)
      l->tree().for_range(0, l->zcard(),
                          [&](zentry e) { polls_->walk(entry_ns_[e.id], end_ns, false, e.id); });
    for (const auto& set : lottery_sets_)
      for (std::uint32_t user : set) polls_->walk(entry_ns_[user], end_ns, false, user);
    result_.polling = std::move(polls_->finish());
    if (follower_) {
      follower_->finish_all(end_ns);
      result_.polling->by_class = std::move(follower_->results());
      result_.polling->followed_users = follower_->started();
    }
  }
  if (result_.backend) {
    backend_advance(end_ns);
    if (window_completed_ > 0 || window_last_ns_ > window_start_ns_) close_window();
  }
  // A final sample at the end time, unless the sampler just took one.
  if (result_.samples.empty() || result_.samples.back().t_s < result_.end_time_s) on_sample();
  return std::move(result_);
}

bool room::done() const {
  return !arrivals_open_ && !backlog_pending_ && queued_ == 0 && returns_in_flight_ == 0 &&
         backend_busy_ == 0 && backend_queue_.empty() && reach_in_flight_ == 0;
}

void room::handle(const sim::event& e) {
  switch (e.kind) {
    case k_arrival: {
      std::uint32_t c = e.arg == 0xffffffffu ? mix_.draw(class_rng_) : e.arg;
      enter(c);
      on_arrival();
      break;
    }
    case k_backlog:
      for (std::uint64_t i = 0; i < sc_.arrivals.backlog_users; ++i) enter(mix_.draw(class_rng_));
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
      on_aging(e.arg);
      break;
    case k_cancel:
      gate_->order_cancelled();
      break;
    case k_return:
      on_return(e.arg);
      break;
    case k_compensate:
      on_compensate();
      break;
    case k_abandon:
      on_abandon(e.arg);
      break;
    case k_service_end:
      on_service_end(e.arg);
      break;
    case k_capacity:
      on_capacity(e.arg);
      break;
    case k_control:
      on_control();
      break;
    case k_suggest:
      polls_->refresh_suggestion(queued_);
      ++suggest_refreshes_;
      if (!done())
        sim_.schedule(sim::sim_time::from_ns(suggest_refreshes_ * polls_->suggest_every_ns()),
                      p_sample, k_suggest);
      break;
    case k_poll:
      on_poll(e.arg);
      break;
    case k_poll_queue: {
      // The head of a queue of polls one interval apart: poll, then bring up the next head.
      auto& q = poll_queues_[e.arg].users;
      const std::uint32_t user = q.front().second;
      q.pop_front();
      // The next head first: on_poll may push onto this queue (scheduling it when it was
      // empty) or add a queue (so no reference into poll_queues_ is held across it).
      if (!q.empty())
        sim_.schedule(sim::sim_time::from_ns(q.front().first), p_sample, k_poll_queue, e.arg);
      on_poll(user);
      break;
    }
    case k_reach:
      --reach_in_flight_;
      trace_later(e.arg, "reach");
      if (gate_) after_release();
      backend_arrive();
      break;
    case k_ps_done:
      on_ps_done(e.arg);
      break;
    case k_reclaim:
      trace_later(e.arg, "reclaim");
      if (gate_) gate_->give_back();  // the stock slot comes back too (it was never ordered)
      ++result_.backend->reclaimed;
      ++reclaim_credit_;
      break;
  }
}

void room::on_arrival() {
  sim::arrival a{};
  if (arrivals_.next(arrival_rng_, a))
    sim_.schedule(a.time, p_arrival, k_arrival, static_cast<std::uint32_t>(a.user_class));
  else
    arrivals_open_ = false;
}

void room::account_queue_change() {
  std::int64_t now = sim_.now().ns();
  result_.queue_length_area +=
      static_cast<double>(queued_) * static_cast<double>(now - last_change_ns_) * 1e-9;
  last_change_ns_ = now;
}

void room::schedule_session_end() {
  double d = std::max(0.0, sc_.release.session.sample(service_rng_));
  sim_.schedule(sim_.now() + sim::sim_time::from_seconds(d), p_release, k_session_end);
}

void room::enter(std::uint32_t user_class, bool boost, std::int64_t credit_day) {
  const sim::sim_time now = sim_.now();
  ++result_.by_class[user_class].arrived;
  if (gate_ && !gate_->try_enter(now.ns())) {  // sold out: refused at once, never queued
    ++result_.by_class[user_class].refused;
    trace(next_user_, user_class, "refused", -1);  // the serial it would have had
    return;
  }
  if (free_servers_ > 0) {  // concurrency mode with a free slot (so nobody waits): straight in
    --free_servers_;
    if (record_wait(now.ns(), 0)) {
      result_.by_class[user_class].wait_s.add(0.0);
      result_.by_class[user_class].wait_ns.add(0);
    }
    ++result_.by_class[user_class].released;
    ++released_since_sample_;
    if (gate_) after_release();
    trace(next_user_, user_class, "direct", -1);
    after_visit(user_class, 0, boost, credit_day);
    schedule_session_end();
    return;
  }
  account_queue_change();
  const std::uint32_t user = next_user_++;
  entry_ns_.push(user, now.ns());
  class_of_.push(user, static_cast<std::uint8_t>(user_class | (boost ? boosted_bit : 0)));
  if (credit_day >= 0) credit_day_[user] = credit_day;
  list_of_.push(user, no_list);
  std::size_t empty = 0;
  if (liveness_.born(user, empty)) free_block(empty);
  const std::uint32_t l = sc_.route[user_class][draw_sku()];
  if (lottery_) {
    auto& set = lottery_sets_[user_class];
    set_pos_.push(user, static_cast<std::uint32_t>(set.size()));
    set.push_back(user);
    list_of_[user] = 0;  // waiting (in a set, not in list 0's sorted set)
    if (sc_.release.selection.wait_scale_s > 0) {
      lottery_entry_sum_[user_class] += static_cast<long double>(now.ns()) * 1e-9L;
      lottery_by_age_[user_class].push_back(user);
    }
  } else {
    lists_[l]->zadd(score_of(user), user);
  }
  ++list_sizes_[l];
  ++queued_;
  ++waiting_by_class_[user_class];
  trace(user, user_class, "enter", static_cast<std::int32_t>(l));
  if (polls_) {
    polls_->count_enter(now.ns());
    if (follower_ && follower_->follows(user)) {
      follower_->start(user, user_class, now.ns());
      sim_.schedule(
          now + sim::sim_time::from_ns(polls_->start_offset(user) + polls_->interval_at(now.ns())),
          p_sample, k_poll, user);
    }
  }
  result_.peak_queue_length = std::max(result_.peak_queue_length, queued_);
  result_.by_list[l].peak_length = std::max(result_.by_list[l].peak_length, list_sizes_[l]);
  if (const auto& patience = sc_.classes[user_class].patience_s) {
    double d = std::max(0.0, patience->sample(patience_rng_));
    sim_.schedule(now + sim::sim_time::from_seconds(d), p_control, k_abandon, user);
  }
  if (sc_.lists[l].max_wait_s) {
    aging_[l].arrived.push_back(user);
    if (!aging_scheduled_[l]) schedule_aging(l);
  }
  if (sc_.compensation && sc_.compensation->in_place && sc_.compensation->eligible[user_class] &&
      !boost) {
    compensation_due_.push_back(user);
    if (!compensation_scheduled_) {
      compensation_scheduled_ = true;
      sim_.schedule(now + sim::sim_time::from_seconds(sc_.compensation->threshold_s), p_control,
                    k_compensate);
    }
  }
}

void room::free_block(std::size_t b) {
  entry_ns_.free_block(b);
  class_of_.free_block(b);
  list_of_.free_block(b);
  if (lottery_) set_pos_.free_block(b);
}

void room::admit(std::uint32_t user, std::uint32_t list) {
  const std::int64_t wait = sim_.now().ns() - entry_ns_[user];
  const std::uint32_t c = cls(user);
  auto& st = result_.by_class[c];
  if (record_wait(entry_ns_[user], wait)) {
    st.wait_s.add(static_cast<double>(wait) * 1e-9);
    st.wait_ns.add(wait);
  }
  ++st.released;
  --waiting_by_class_[c];
  --list_sizes_[list];
  --queued_;
  trace(user, c, "release", static_cast<std::int32_t>(list));
  ++result_.by_list[list].released;
  ++released_since_sample_;
  // With a backend the user orders when it gets there (and a no-show never does).
  if (gate_ && !sc_.backend) after_release();
  std::int64_t told = sim_.now().ns();  // when the user learns of the release
  if (polls_) {
    told = polls_->walk(entry_ns_[user], told, true, user);
    if (board_) board_->left(list, true);
    if (follower_ && follower_->follows(user)) follower_->finish(user, sim_.now().ns(), true);
  }
  if (sc_.backend) to_backend(user, c, told);
  if (sc_.compensation || sc_.returns) {
    const bool was_boosted = boosted(user);
    std::int64_t credit_day = -1;
    if (auto it = credit_day_.find(user); it != credit_day_.end()) {
      credit_day = it->second;
      credit_day_.erase(it);
    }
    if (was_boosted) {
      result_.compensation->credited.wait_s.add(static_cast<double>(wait) * 1e-9);
      result_.compensation->credited.wait_ns.add(wait);
      ++result_.compensation->credited.released;
    }
    after_visit(c, wait, was_boosted, credit_day);
  }
  if (liveness_.died(user)) free_block(user >> sim::serial_block_bits);
}

std::uint64_t room::release(std::uint64_t n) {
  std::uint64_t done_n = 0;
  auto pop = [this](std::uint32_t l, std::uint64_t k) {
    return lists_[l]->pop_min(k, [this, l](std::uint32_t user, double) { admit(user, l); });
  };
  if (lottery_) {
    for (; done_n < n && queued_ > 0; ++done_n) lottery_draw();
    return done_n;
  }
  if (lists_.size() == 1) return pop(0, n);
  const auto sel = sc_.release.selection.kind;
  if (sel == selection_kind::strict) {
    for (std::uint32_t l = 0; l < lists_.size() && done_n < n; ++l) done_n += pop(l, n - done_n);
    return done_n;
  }
  for (std::uint64_t k = 0; k < n && queued_ > 0; ++k) {
    int l = sel == selection_kind::scheduler ? pick_scheduled()
                                             : selector_.pick(list_sizes_, select_rng_);
    if (l == list_selector::none) {
      ++result_.lost_release_units;  // a non-work-conserving share of an empty list
      continue;
    }
    done_n += pop(static_cast<std::uint32_t>(l), 1);
  }
  return done_n;
}

// Like SPOP: swap member i with the last one and drop it.
void room::lottery_remove(std::size_t c, std::uint32_t i) {
  auto& set = lottery_sets_[c];
  if (sc_.release.selection.wait_scale_s > 0)
    lottery_entry_sum_[c] -= static_cast<long double>(entry_ns_[set[i]]) * 1e-9L;
  list_of_[set[i]] = no_list;
  set[i] = set.back();
  set_pos_[set[i]] = i;
  set.pop_back();
}

// With wait_scale_s = tau, a user who has waited a seconds weighs w_c (1 + a / tau): a class
// weighs w_c (n + A / tau), A its users' total wait (from the sum of entry times), and
// within it a user is drawn uniformly with probability n / (n + A / tau), else in proportion
// to its wait (a uniform pick accepted with probability wait / longest wait).
void room::lottery_draw_by_wait() {
  const auto& w = sc_.release.selection.class_weights;
  const double tau = sc_.release.selection.wait_scale_s;
  const std::int64_t now = sim_.now().ns();
  const long double now_s = static_cast<long double>(now) * 1e-9L;
  std::vector<double> waited(w.size(), 0.0);
  double total = 0;
  for (std::size_t c = 0; c < w.size(); ++c) {
    const auto n = static_cast<long double>(lottery_sets_[c].size());
    waited[c] = std::max(0.0, static_cast<double>(n * now_s - lottery_entry_sum_[c]));
    total += w[c] * (static_cast<double>(n) + waited[c] / tau);
  }
  double u = select_rng_.uniform01() * total;
  std::size_t c = 0, last_nonempty = 0;
  for (; c < w.size(); ++c) {
    if (lottery_sets_[c].empty()) continue;
    last_nonempty = c;
    const double wc = w[c] * (static_cast<double>(lottery_sets_[c].size()) + waited[c] / tau);
    if (u < wc) break;
    u -= wc;
  }
  if (c == w.size()) c = last_nonempty;  // rounding at the top end
  auto& set = lottery_sets_[c];
  const auto n = static_cast<double>(set.size());
  auto i = static_cast<std::uint32_t>(select_rng_.below(set.size()));
  if (select_rng_.uniform01() * (n + waited[c] / tau) >= n) {
    auto& oldest = lottery_by_age_[c];  // entry order; users gone since are dropped here
    while (!user_alive(oldest.front()) || list_of(oldest.front()) == no_list) oldest.pop_front();
    const auto longest = static_cast<double>(now - entry_ns_[oldest.front()]);
    while (select_rng_.uniform01() * longest >= static_cast<double>(now - entry_ns_[set[i]]))
      i = static_cast<std::uint32_t>(select_rng_.below(set.size()));
  }
  const std::uint32_t user = set[i];
  lottery_remove(c, i);
  admit(user, 0);
}

void room::lottery_draw() {
  if (sc_.release.selection.wait_scale_s > 0) {
    lottery_draw_by_wait();
    return;
  }
  const auto& w = sc_.release.selection.class_weights;
  double total = 0;
  for (std::size_t c = 0; c < w.size(); ++c)
    total += w[c] * static_cast<double>(lottery_sets_[c].size());
  double u = select_rng_.uniform01() * total;
  std::size_t c = 0, last_nonempty = 0;
  for (; c < w.size(); ++c) {
    if (lottery_sets_[c].empty()) continue;
    last_nonempty = c;
    double wc = w[c] * static_cast<double>(lottery_sets_[c].size());
    if (u < wc) break;
    u -= wc;
  }
  if (c == w.size()) c = last_nonempty;  // rounding at the top end
  auto& set = lottery_sets_[c];
  auto i = static_cast<std::uint32_t>(select_rng_.below(set.size()));
  const std::uint32_t user = set[i];
  lottery_remove(c, i);
  admit(user, 0);
}

void room::after_visit(std::uint32_t c, std::int64_t wait_ns, bool was_boosted,
                       std::int64_t credit_day) {
  const std::int64_t now = sim_.now().ns();
  const std::int64_t today = day_of(now);
  const auto& comp = sc_.compensation;
  // A long wait earns a credit for the next visit: once a day, not for a credited visit,
  // and not when credits are applied in place.
  const bool grant = comp && !comp->in_place && comp->eligible[c] &&
                     wait_ns > sim::sim_time::from_seconds(comp->threshold_s).ns() &&
                     !was_boosted && credit_day != today;
  if (grant) ++result_.compensation->granted;
  if (sc_.returns && return_rng_.uniform01() < sc_.returns->probability) {
    pending_return rec{static_cast<std::uint8_t>(c), grant ? (today + 1) * day_ns : -1, credit_day};
    std::uint32_t idx;
    if (!free_returns_.empty()) {
      idx = free_returns_.back();
      free_returns_.pop_back();
      pending_returns_[idx] = rec;
    } else {
      idx = static_cast<std::uint32_t>(pending_returns_.size());
      pending_returns_.push_back(rec);
    }
    ++returns_in_flight_;
    double d = std::max(0.0, sc_.returns->delay_s.sample(return_rng_));
    sim_.schedule(sim_.now() + sim::sim_time::from_seconds(d), p_arrival, k_return, idx);
  } else if (grant) {
    ++result_.compensation->unused;  // the holder never comes back
  }
}

void room::on_return(std::uint32_t idx) {
  const pending_return rec = pending_returns_[idx];
  pending_returns_[idx].credit_expires_ns = -1;  // a free record holds no credit
  free_returns_.push_back(idx);
  --returns_in_flight_;
  ++result_.returning_visits;
  const std::int64_t now = sim_.now().ns();
  bool boost = false;
  std::int64_t credit_day = rec.credit_day;
  if (rec.credit_expires_ns >= 0) {
    if (now < rec.credit_expires_ns) {
      boost = true;
      credit_day = day_of(now);
      ++result_.compensation->used;
    } else {
      ++result_.compensation->expired;
    }
  }
  enter(rec.user_class, boost, credit_day);
}

// In place: a user still waiting when its wait passes the threshold is re-scored with the
// credit's offset (ZREM, then ZADD with the new score), once a day.
void room::on_compensate() {
  const std::int64_t now = sim_.now().ns();
  const std::int64_t threshold = sim::sim_time::from_seconds(sc_.compensation->threshold_s).ns();
  while (!compensation_due_.empty()) {
    const std::uint32_t user = compensation_due_.front();
    if (!user_alive(user) || list_of(user) == no_list) {  // released already
      compensation_due_.pop_front();
      continue;
    }
    if (entry_ns_[user] + threshold > now) break;
    compensation_due_.pop_front();
    if (auto it = credit_day_.find(user); it != credit_day_.end() && it->second == day_of(now))
      continue;  // used one today already
    const std::uint32_t l = list_of(user);
    lists_[l]->zrem(user);
    class_of_[user] |= boosted_bit;
    lists_[l]->zadd(score_of(user), user);
    credit_day_[user] = day_of(now);
    ++result_.compensation->used_in_place;
    trace(user, cls(user), "rescore", static_cast<std::int32_t>(l));
    if (polls_) {
      polls_->count_remove(now);
      polls_->count_enter(now);
    }
  }
  compensation_scheduled_ = !compensation_due_.empty();
  if (compensation_scheduled_) {
    const std::uint32_t next = compensation_due_.front();
    std::int64_t at = user_alive(next) ? entry_ns_[next] + threshold : now;
    sim_.schedule(sim::sim_time::from_ns(std::max(at, now)), p_control, k_compensate);
  }
}

// A user whose patience ran out leaves the queue (ZREM), if still waiting.
void room::on_abandon(std::uint32_t user) {
  if (!user_alive(user) || list_of(user) == no_list) return;  // released already
  account_queue_change();
  const std::uint32_t l = list_of(user);
  const std::uint32_t c = cls(user);
  if (lottery_) {
    lottery_remove(c, set_pos_[user]);
  } else {
    lists_[l]->zrem(user);
  }
  --list_sizes_[l];
  --queued_;
  --waiting_by_class_[c];
  trace(user, c, "abandon", static_cast<std::int32_t>(l));
  if (polls_) {
    polls_->walk(entry_ns_[user], sim_.now().ns(), false, user);
    polls_->count_remove(sim_.now().ns());
    if (board_) board_->left(l, false);
    if (follower_ && follower_->follows(user)) follower_->finish(user, sim_.now().ns(), false);
  }
  auto& st = result_.by_class[c];
  ++st.abandoned;
  st.abandon_s.add(static_cast<double>(sim_.now().ns() - entry_ns_[user]) * 1e-9);
  const double u = static_cast<double>(sim::mix64(user ^ pay_later_salt_) >> 11) * 0x1.0p-53;
  if (u < sc_.classes[c].pay_later_probability) ++st.paid_later;
  // Whoever gives up may come back (returns), and a long wait earns a credit as it would
  // have on release.
  std::int64_t credit_day = -1;
  if (auto it = credit_day_.find(user); it != credit_day_.end()) {
    credit_day = it->second;
    credit_day_.erase(it);
  }
  if (sc_.compensation || sc_.returns)
    after_visit(c, sim_.now().ns() - entry_ns_[user], boosted(user), credit_day);
  if (liveness_.died(user)) free_block(user >> sim::serial_block_bits);
}

void room::after_release() {
  const auto& a = *sc_.admission;
  if (order_rng_.uniform01() < a.order_failure_probability) {
    gate_->order_failed();
    return;
  }
  gate_->order_placed();
  if (a.cancel_probability > 0 && order_rng_.uniform01() < a.cancel_probability) {
    double d = std::max(0.0, a.cancel_delay_s.sample(order_rng_));
    sim_.schedule(sim_.now() + sim::sim_time::from_seconds(d), p_control, k_cancel);
  }
}

int room::pick_scheduled() const {
  const auto& spec = sc_.release.selection;
  const std::int64_t now = sim_.now().ns();
  int best = list_selector::none;
  double best_value = -1.0;
  for (std::uint32_t l = 0; l < lists_.size(); ++l) {
    if (list_sizes_[l] == 0) continue;
    const std::uint32_t head = lists_[l]->tree().at(0).id;
    double value = spec.age_weight * static_cast<double>(now - entry_ns_[head]) * 1e-9 +
                   spec.length_weight * static_cast<double>(list_sizes_[l]);
    if (value > best_value) {  // ties: the earlier list
      best_value = value;
      best = static_cast<int>(l);
    }
  }
  return best;
}

std::uint64_t room::tick_batch() {
  const auto& c = sc_.release.controller;
  // The RT of this round's completions (or the last one seen), for every kind's trace.
  if (round_rt_n_ > 0 && c.kind != controller_kind::window)
    last_rt_ms_ = round_rt_sum_ / static_cast<double>(round_rt_n_);
  round_rt_sum_ = 0;
  round_rt_n_ = 0;
  if (c.kind == controller_kind::fixed) return sc_.release.batch;
  if (c.kind == controller_kind::tiered) {
    // The round's RT picks a tier; the rate moves towards base x factor by at most
    // max_step, and cuts wait hold_rounds ticks.
    std::size_t tier = 0;
    while (tier < c.tiers_ms.size() && last_rt_ms_ >= c.tiers_ms[tier]) ++tier;
    const double target = static_cast<double>(sc_.release.batch) * c.factors[tier];
    const double step = c.max_step * std::max(rate_, 1.0);
    ++since_cut_;
    if (target > rate_) {
      rate_ = std::min(target, rate_ + step);
    } else if (target < rate_ && since_cut_ > c.hold_rounds) {
      rate_ = std::max(target, rate_ - step);
      since_cut_ = 0;
    }
  }
  rate_ = std::max(rate_, c.floor);
  return static_cast<std::uint64_t>(std::llround(rate_));
}

// Window controller: every every_s, the mean RT of the last window_s of completions.
void room::on_control() {
  const auto& c = sc_.release.controller;
  const std::int64_t now = sim_.now().ns();
  const std::int64_t window = sim::sim_time::from_seconds(c.window_s).ns();
  while (!rt_window_.empty() && rt_window_.front().first < now - window) {
    rt_window_sum_ -= rt_window_.front().second;
    rt_window_.pop_front();
  }
  if (!rt_window_.empty()) {
    last_rt_ms_ = rt_window_sum_ / static_cast<double>(rt_window_.size());
    if (last_rt_ms_ < c.low_ms) rate_ *= 1.0 + c.up;
    if (last_rt_ms_ > c.high_ms) rate_ *= 1.0 - c.down;
  }
  const double ceiling = c.ceiling > 0 ? c.ceiling : 2.0 * static_cast<double>(sc_.release.batch);
  rate_ = std::max(std::min(rate_, ceiling), c.floor);
  if (!done())
    sim_.schedule(sim_.now() + sim::sim_time::from_seconds(c.every_s), p_control, k_control);
}

void room::to_backend(std::uint32_t user, std::uint32_t user_class, std::int64_t told_ns) {
  const auto& spec = *sc_.backend;
  auto& b = *result_.backend;
  const std::int64_t now = sim_.now().ns();
  const double delay = std::max(0.0, spec.arrival_delay_s.sample(reach_rng_));
  const std::int64_t reach = told_ns + sim::sim_time::from_seconds(delay).ns();
  const bool no_show =
      spec.no_show_probability > 0 && reach_rng_.uniform01() < spec.no_show_probability;
  const std::int64_t deadline = now + sim::sim_time::from_seconds(spec.reclaim_s).ns();
  // The user's class for later trace lines (the user's own records may be freed by then).
  if (trace_) traced_class_[user] = static_cast<std::uint8_t>(user_class);
  if (no_show || reach > deadline) {  // the release is held until the deadline, then taken back
    ++(no_show ? b.no_shows : b.late);
    trace(user, user_class, no_show ? "no_show" : "late", -1);  // decided at the release
    sim_.schedule(sim::sim_time::from_ns(deadline), p_control, k_reclaim, user);
    return;
  }
  b.arrival_delay_s.add(static_cast<double>(reach - now) * 1e-9);
  if (reach <= now) {
    trace(user, user_class, "reach", -1);
    traced_class_.erase(user);
    if (gate_) after_release();
    backend_arrive();
    return;
  }
  ++reach_in_flight_;
  sim_.schedule(sim::sim_time::from_ns(reach), p_control, k_reach, user);
}

void room::backend_advance(std::int64_t now) {
  for (;;) {
    const std::int64_t end = window_start_ns_ + window_ns_;
    const std::int64_t upto = std::min(now, end);
    const double dt = static_cast<double>(upto - window_last_ns_) * 1e-9;
    // In processor sharing every worker is busy while there are at least as many jobs.
    window_busy_ += static_cast<double>(std::min(backend_busy_, backend_workers_)) * dt;
    window_capacity_ += static_cast<double>(backend_workers_) * dt;
    window_last_ns_ = upto;
    if (now < end) return;
    close_window();
    window_start_ns_ = end;
  }
}

void room::close_window() {
  auto& b = *result_.backend;
  constexpr double none = std::numeric_limits<double>::quiet_NaN();
  // Nearest-rank percentiles of this window's response times.
  auto pct = [this](double q) {
    if (window_rt_ms_.empty()) return none;
    auto k = static_cast<std::size_t>(std::ceil(q * static_cast<double>(window_rt_ms_.size())));
    auto it = window_rt_ms_.begin() + static_cast<std::ptrdiff_t>(std::max<std::size_t>(k, 1) - 1);
    std::nth_element(window_rt_ms_.begin(), it, window_rt_ms_.end());
    return *it;
  };
  const double p50 = pct(0.5), p95 = pct(0.95);
  b.windows.push_back({static_cast<double>(window_start_ns_) * 1e-9, window_completed_,
                       window_timeouts_, p50, p95,
                       window_capacity_ > 0 ? window_busy_ / window_capacity_ : none});
  b.busy_worker_s += window_busy_;
  b.capacity_worker_s += window_capacity_;
  window_rt_ms_.clear();
  window_completed_ = window_timeouts_ = 0;
  window_busy_ = window_capacity_ = 0;
}

void room::on_poll(std::uint32_t user) {
  const std::int64_t now = sim_.now().ns();
  auto* rec = follower_->find(user);
  if (!rec) return;  // left the queue since
  std::optional<poll_follower::answer> fresh;
  if (poll_follower::due_lookup(*rec, now)) {
    const std::uint32_t l = list_of(user);
    const std::uint64_t rank = lists_[l]->zrank(user).value_or(0);
    fresh = poll_follower::answer{rank, board_->estimate(l, rank, now)};
  }
  const std::int64_t next = follower_->poll(*rec, now, fresh ? &*fresh : nullptr, *polls_);
  // Every poll after a user's first comes one of a few intervals after the previous one, so
  // the polls of each interval arrive in time order: a FIFO per interval, with only its head
  // in the event heap (200k followed users would otherwise keep 200k events there).
  std::size_t k = 0;
  while (k < poll_queues_.size() && poll_queues_[k].interval_ns != next) ++k;
  if (k == poll_queues_.size()) poll_queues_.push_back({next, {}});
  auto& q = poll_queues_[k].users;
  q.emplace_back(now + next, user);
  if (q.size() == 1)
    sim_.schedule(sim::sim_time::from_ns(now + next), p_sample, k_poll_queue,
                  static_cast<std::uint32_t>(k));
}

void room::backend_arrive() {
  std::uint32_t job;
  if (!free_jobs_.empty()) {
    job = free_jobs_.back();
    free_jobs_.pop_back();
    job_released_ns_[job] = sim_.now().ns();
  } else {
    job = static_cast<std::uint32_t>(job_released_ns_.size());
    job_released_ns_.push_back(sim_.now().ns());
  }
  if (sc_.backend->processor_sharing) {
    const std::int64_t now = sim_.now().ns();
    backend_advance(now);
    ps_advance(now);
    const double demand = std::max(0.0, sc_.backend->service_s.sample(backend_rng_));
    ps_jobs_.emplace_back(ps_v_ + demand, job);
    std::push_heap(ps_jobs_.begin(), ps_jobs_.end(), std::greater<>{});
    ++backend_busy_;
    // No queue in processor sharing: the peak counts jobs beyond one per worker.
    if (backend_busy_ > backend_workers_)
      result_.backend->peak_queue =
          std::max<std::uint64_t>(result_.backend->peak_queue, backend_busy_ - backend_workers_);
    ps_reschedule();
    return;
  }
  if (backend_busy_ < backend_workers_) {
    backend_start(job);
  } else {
    backend_queue_.push_back(job);
    result_.backend->peak_queue =
        std::max<std::uint64_t>(result_.backend->peak_queue, backend_queue_.size());
  }
}

void room::backend_start(std::uint32_t job) {
  backend_advance(sim_.now().ns());
  ++backend_busy_;
  double d = std::max(0.0, sc_.backend->service_s.sample(backend_rng_));
  sim_.schedule(sim_.now() + sim::sim_time::from_seconds(d), p_control, k_service_end, job);
}

void room::on_service_end(std::uint32_t job) {
  backend_advance(sim_.now().ns());
  --backend_busy_;
  backend_done(job);
  while (backend_busy_ < backend_workers_ && !backend_queue_.empty()) {
    backend_start(backend_queue_.front());
    backend_queue_.pop_front();
  }
}

// Processor sharing: every job in the backend progresses at min(1, workers / jobs) of a
// worker. ps_v_ is the service each job has received since time 0 (a common virtual clock),
// so a job finishes when ps_v_ reaches its arrival's ps_v_ plus its service demand.
void room::ps_advance(std::int64_t now) {
  if (backend_busy_ > 0 && backend_workers_ > 0)
    ps_v_ +=
        std::min(1.0, static_cast<double>(backend_workers_) / static_cast<double>(backend_busy_)) *
        static_cast<double>(now - ps_last_ns_) * 1e-9;
  ps_last_ns_ = now;
}

void room::ps_reschedule() {
  ++ps_generation_;  // the completion event scheduled before is stale from now on
  if (ps_jobs_.empty() || backend_workers_ == 0) return;
  const double rate =
      std::min(1.0, static_cast<double>(backend_workers_) / static_cast<double>(backend_busy_));
  const double left_s = std::max(0.0, (ps_jobs_.front().first - ps_v_) / rate);
  // Rounded up to the next nanosecond, so that the job is done when the event comes.
  const auto dt = static_cast<std::int64_t>(std::ceil(left_s * 1e9));
  sim_.schedule(sim::sim_time::from_ns(sim_.now().ns() + dt), p_control, k_ps_done, ps_generation_);
}

void room::on_ps_done(std::uint32_t generation) {
  if (generation != ps_generation_) return;
  const std::int64_t now = sim_.now().ns();
  backend_advance(now);
  ps_advance(now);
  constexpr double one_ns = 1e-9;  // rounding in the virtual clock
  while (!ps_jobs_.empty() && ps_jobs_.front().first <= ps_v_ + one_ns) {
    const std::uint32_t job = ps_jobs_.front().second;
    std::pop_heap(ps_jobs_.begin(), ps_jobs_.end(), std::greater<>{});
    ps_jobs_.pop_back();
    --backend_busy_;
    backend_done(job);
  }
  ps_reschedule();
}

void room::backend_done(std::uint32_t job) {
  const std::int64_t rt = sim_.now().ns() - job_released_ns_[job];
  ++window_completed_;
  window_rt_ms_.push_back(static_cast<double>(rt) * 1e-6);
  free_jobs_.push_back(job);
  auto& b = *result_.backend;
  ++b.completed;
  b.rt_s.add(static_cast<double>(rt) * 1e-9);
  b.rt_ns.add(rt);
  if (sc_.backend->timeout_s && rt > sim::sim_time::from_seconds(*sc_.backend->timeout_s).ns()) {
    ++b.timeouts;
    ++window_timeouts_;
  }
  const double rt_ms = static_cast<double>(rt) * 1e-6;
  round_rt_sum_ += rt_ms;
  ++round_rt_n_;
  if (sc_.release.controller.kind == controller_kind::window) {
    rt_window_.emplace_back(sim_.now().ns(), rt_ms);
    rt_window_sum_ += rt_ms;
  }
}

void room::on_capacity(std::uint32_t index) {
  backend_advance(sim_.now().ns());
  if (sc_.backend->processor_sharing) {
    ps_advance(sim_.now().ns());
    backend_workers_ = sc_.backend->capacity[index].workers;
    ps_reschedule();
    return;
  }
  backend_workers_ = sc_.backend->capacity[index].workers;
  while (backend_busy_ < backend_workers_ && !backend_queue_.empty()) {
    backend_start(backend_queue_.front());
    backend_queue_.pop_front();
  }
}

void room::on_tick() {
  // Releases taken back from no-shows go to this tick, on top of the controller's batch.
  const std::uint64_t batch = tick_batch() + reclaim_credit_;
  reclaim_credit_ = 0;
  if (queued_ > 0) {
    account_queue_change();
    peak_memory_ = std::max<std::uint64_t>(peak_memory_, memory_bytes());
    release(batch);
  }
  if (polls_) polls_->count_release(sim_.now().ns());  // the release script runs every tick
  if (board_) board_->round(sim_.now().ns());
  sim_.schedule(sim_.now() + sc_.release.interval, p_release, k_tick);
}

void room::on_session_end() {
  account_queue_change();
  if (polls_ && queued_ > 0) polls_->count_release(sim_.now().ns());
  if (queued_ == 0 || release(1) == 0) {
    ++free_servers_;
    return;
  }
  schedule_session_end();
}

std::optional<std::int64_t> room::next_aging_ns(std::uint32_t l) const {
  const auto& q = aging_[l];
  std::optional<std::int64_t> since;
  // Entries of users who already left are dropped lazily, when they come due.
  if (!q.arrived.empty()) {
    std::uint32_t u = q.arrived.front();
    since = user_alive(u) ? entry_ns_[u] : std::numeric_limits<std::int64_t>::min() / 2;
  }
  if (!q.moved.empty() && (!since || q.moved.front().since_ns < *since))
    since = q.moved.front().since_ns;
  if (!since) return std::nullopt;
  const std::int64_t max_wait = sim::sim_time::from_seconds(*sc_.lists[l].max_wait_s).ns();
  return std::max(*since + max_wait, sim_.now().ns());
}

void room::schedule_aging(std::uint32_t l) {
  auto at = next_aging_ns(l);
  aging_scheduled_[l] = at.has_value();
  if (at) sim_.schedule(sim::sim_time::from_ns(*at), p_control, k_aging, l);
}

// Users who have waited max_wait_s in list l move up to list l-1, keeping their entry time
// (and so their score: they slot in among that list's users by when they came).
void room::on_aging(std::uint32_t l) {
  const std::int64_t now = sim_.now().ns();
  const std::int64_t max_wait = sim::sim_time::from_seconds(*sc_.lists[l].max_wait_s).ns();
  auto& q = aging_[l];
  for (;;) {
    if (!q.arrived.empty()) {
      std::uint32_t u = q.arrived.front();
      if (!user_alive(u) || list_of(u) != l) {  // released (or moved) already
        q.arrived.pop_front();
        continue;
      }
      if (entry_ns_[u] + max_wait <= now) {
        q.arrived.pop_front();
        age_user(u, l);
        continue;
      }
    }
    if (!q.moved.empty() && q.moved.front().since_ns + max_wait <= now) {
      std::uint32_t u = q.moved.front().user;
      q.moved.pop_front();
      if (user_alive(u) && list_of(u) == l) age_user(u, l);
      continue;
    }
    break;
  }
  schedule_aging(l);
}

void room::age_user(std::uint32_t user, std::uint32_t l) {
  const std::uint32_t up = l - 1;
  lists_[l]->zrem(user);
  --list_sizes_[l];
  lists_[up]->zadd(score_of(user), user);
  ++list_sizes_[up];
  ++result_.by_list[up].aged_in;
  trace(user, cls(user), "age", static_cast<std::int32_t>(up));
  if (polls_) {  // ZREM from one list, ZADD to the other
    polls_->count_remove(sim_.now().ns());
    polls_->count_enter(sim_.now().ns());
    if (board_) board_->left(l, false);
  }
  result_.by_list[up].peak_length = std::max(result_.by_list[up].peak_length, list_sizes_[up]);
  if (sc_.lists[up].max_wait_s) {
    aging_[up].moved.push_back({user, sim_.now().ns()});
    if (!aging_scheduled_[up]) schedule_aging(up);
  }
}

void room::on_sample() {
  queue_sample s{sim_.now().seconds(), queued_, waiting_by_class_, released_since_sample_, {}};
  // The expected rank assumes class weights alone; weighted by wait it has no such form.
  if (lottery_ && sc_.release.selection.wait_scale_s == 0) {
    const auto& w = sc_.release.selection.class_weights;
    for (std::size_t c = 0; c < w.size(); ++c) {
      double rank = 0;
      for (std::size_t o = 0; o < w.size(); ++o) {
        double others = static_cast<double>(lottery_sets_[o].size()) - (o == c ? 1.0 : 0.0);
        if (others > 0) rank += others * w[o] / (w[o] + w[c]);
      }
      s.expected_rank_by_class.push_back(rank);
    }
  }
  released_since_sample_ = 0;
  result_.samples.push_back(std::move(s));
  // In concurrency mode there are no ticks: the ETA estimators' rounds are the samples.
  if (board_ && sc_.release.mode == release_mode::concurrency) board_->round(sim_.now().ns());
  if (result_.backend) {
    result_.backend->t_s.push_back(sim_.now().seconds());
    result_.backend->rate_per_tick.push_back(rate_);
    result_.backend->rt_ms.push_back(last_rt_ms_);
  }
  peak_memory_ = std::max<std::uint64_t>(peak_memory_, memory_bytes());
  // A run without a horizon could sample without end; the cap keeps memory bounded.
  if (!done() && result_.samples.size() < max_samples)
    sim_.schedule(sim_.now() + sim::sim_time::from_seconds(sc_.run.sample_interval_s), p_sample,
                  k_sample);
}

bool room::record_wait(std::int64_t entry_ns, std::int64_t wait_ns) {
  ++released_count_;
  switch (sc_.run.warmup) {
    case warmup_kind::none:
      return true;
    case warmup_kind::mser5:  // first pass: keep everything, collect batch means
      batch_sum_ += static_cast<double>(wait_ns) * 1e-9;
      if (released_count_ % 5 == 0) {
        batch_means_.push_back(batch_sum_ / 5.0);
        batch_sum_ = 0;
      }
      return true;
    case warmup_kind::time:
      if (entry_ns >= sim::sim_time::from_seconds(sc_.run.warmup_s).ns()) return true;
      break;
    case warmup_kind::customers:
      if (released_count_ > sc_.run.warmup_customers) return true;
      break;
  }
  ++result_.warmup_dropped;
  return false;
}

std::size_t mser_truncation(const std::vector<double>& y) {
  const std::size_t n = y.size();
  if (n < 4) return 0;
  // Suffix sums give each candidate's variance in O(1).
  std::vector<double> s1(n + 1, 0.0), s2(n + 1, 0.0);
  for (std::size_t i = n; i-- > 0;) {
    s1[i] = s1[i + 1] + y[i];
    s2[i] = s2[i + 1] + y[i] * y[i];
  }
  std::size_t best = 0;
  double best_value = std::numeric_limits<double>::infinity();
  for (std::size_t d = 0; d <= n / 2; ++d) {
    double m = static_cast<double>(n - d);
    double ss = s2[d] - s1[d] * s1[d] / m;
    double value = ss / (m * m);
    if (value < best_value) {
      best_value = value;
      best = d;
    }
  }
  return best;
}

room_result run_scenario(const scenario& s, std::uint64_t seed, std::uint64_t replication) {
  if (s.run.warmup != warmup_kind::mser5) {
    room r(s, seed, replication);
    return r.run();
  }
  // MSER-5: run once to find the truncation point, then run the same replication again
  // (same seed, same customers) dropping that many.
  room first(s, seed, replication);
  first.run();
  const std::size_t batches = mser_truncation(first.batch_means());
  scenario truncated = s;
  truncated.run.warmup = batches ? warmup_kind::customers : warmup_kind::none;
  truncated.run.warmup_customers = 5 * batches;
  room second(truncated, seed, replication);
  room_result out = second.run();
  out.mser_truncation = 5 * batches;
  return out;
}

}  // namespace waitroom::models
