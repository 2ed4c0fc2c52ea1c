#include "redis/load.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <queue>
#include <system_error>
#include <thread>

#include <fmt/format.h>

#include "models/zset/zset.hpp"
#include "redis/multiplex.hpp"
#include "redis/releasers.hpp"
#include "redis/scripts.hpp"
#include "sim/arrivals.hpp"
#include "sim/input_error.hpp"
#include "sim/parallel.hpp"
#include "sim/random.hpp"

namespace waitroom::redis {

namespace {

using clock_type = std::chrono::steady_clock;

// t_zrange_release: the articles' non-atomic release (release.atomic false): ZRANGE, then
// ZREM + SADD of what it read in a second round trip (its latency is the ZRANGE's).
enum cmd_type : std::uint8_t { t_zadd, t_zrank, t_zrem, t_release, t_zrange_release, t_count };
constexpr const char* type_names[] = {"ZADD", "ZRANK", "ZREM", "EVALSHA release",
                                      "ZRANGE+ZREM release"};

struct job {
  cmd_type type;
  std::uint32_t conn;   // the connection it goes on (its index among all K)
  std::int64_t due_ns;  // wall nanoseconds since the start
  std::vector<std::string> args;
};

// A command on the wire: what its reply is counted as.
struct in_flight {
  cmd_type type;
  bool follow_up;        // the ZREM or SADD of a non-atomic release (errors only)
  std::int64_t sent_ns;  // wall nanoseconds since the start
  std::string list;      // a non-atomic release's list (its ZREM's key)
};

// One client thread: a queue fed by the dispatcher, and its share of the connections
// (K / T of them) driven by one multiplexer, each with up to `pipeline` commands in flight.
struct client {
  std::mutex m;
  std::condition_variable cv;
  std::deque<job> q;
  bool done = false;
  std::vector<std::unique_ptr<connection>> conns;
  std::unique_ptr<multiplexer> mux;  // over conns; wakes the thread when a job is queued
  command_load stats[t_count];
  sim::log_histogram lag;
  std::string error;
  token_checks checks;
  std::string released_key;           // the released set (non-atomic releases SADD to it)
  std::vector<std::uint64_t> handed;  // tokens every release this client made returned
};

// A member's token: its first 16 hex digits (hex and signed members alike).
std::uint64_t token_of_member(const std::string& m) {
  return std::stoull(m.substr(0, 16), nullptr, 16);
}

void bump(std::vector<std::uint64_t>& v, std::int64_t ns) {
  auto s = static_cast<std::size_t>(std::max<std::int64_t>(ns, 0) / 1'000'000'000);
  if (v.size() <= s) v.resize(s + 1, 0);
  ++v[s];
}

// With signed tokens a gateway checks the user's member before it looks the rank up; a
// member that fails is answered without Redis (counted, not sent).
bool verified(client& c, const token_signer* signer, const job& j) {
  if (signer == nullptr || j.type != t_zrank) return true;
  auto t = clock_type::now();
  bool ok = signer->verify(j.args[2]).has_value();
  c.checks.ns +=
      std::chrono::duration_cast<std::chrono::nanoseconds>(clock_type::now() - t).count();
  ++c.checks.lookups;
  if (!ok) ++c.checks.rejected;
  return ok;
}

// The client thread's loop: queue -> backlog -> wire, then one multiplexer step.
template <class Since, class OnReply, class OnFailure>
void serve(client& c, multiplexer& mux, unsigned threads, std::vector<std::deque<job>>& backlog,
           std::vector<std::deque<in_flight>>& wire, std::size_t& backlogged, std::size_t pipeline,
           std::size_t backlog_cap, const token_signer* signer, const Since& since_t0,
           const OnReply& on_reply, const OnFailure& on_failure) {
  const std::size_t n = mux.size();
  // Each connection's releases get ids, so one resent after a reconnect returns its logged
  // members instead of taking the next ones (scripts::release). At most `pipeline` are in
  // flight on a connection, so a release forgets the one `window` before it, long answered.
  // Ids are unique over the connections (the connection in the high bits): several may log
  // under one key.
  const std::uint64_t window = pipeline + 16;
  std::vector<std::uint64_t> release_seq(n, 0);
  auto release_id = [&](std::size_t i, std::uint64_t seq) {
    return std::to_string((static_cast<std::uint64_t>(i) << 40) | seq);
  };
  for (;;) {
    bool finished = false;
    {
      std::lock_guard lock(c.m);
      while (!c.q.empty() && backlogged < backlog_cap) {
        auto& j = c.q.front();
        backlog[j.conn / threads].push_back(std::move(j));
        ++backlogged;
        c.q.pop_front();
      }
      finished = c.done && c.q.empty();
    }
    c.cv.notify_all();  // room in the queue for the dispatcher
    const auto sent_ns = since_t0(clock_type::now());
    for (std::size_t i = 0; i < n; ++i) {
      auto& b = backlog[i];
      while (!b.empty() && (!mux.alive(i) || mux.in_flight(i) < pipeline)) {
        job j = std::move(b.front());
        b.pop_front();
        --backlogged;
        if (!verified(c, signer, j)) continue;
        if (!mux.alive(i)) {
          ++c.stats[j.type].errors;
          continue;
        }
        if (j.type == t_release) {
          j.args[1] = mux.at(i).script_at(0).sha;
          // KEYS list, released, stats, log; ARGV N, field, id, id to forget.
          if (j.args.size() == 11) {
            const std::uint64_t seq = ++release_seq[i];
            j.args[9] = release_id(i, seq);
            j.args[10] = seq > window ? release_id(i, seq - window) : std::string();
          }
        }
        c.lag.add(std::max<std::int64_t>(sent_ns - j.due_ns, 0));
        std::string list = j.type == t_zrange_release ? j.args[1] : std::string();
        mux.append(i, std::move(j.args));
        wire[i].push_back({j.type, false, sent_ns, std::move(list)});
      }
    }
    if (finished && backlogged == 0 && mux.in_flight() == 0) return;
    // Replies, or a job queued (wake), or a look at the queue at least every 50 ms.
    mux.step(std::chrono::milliseconds(50), on_reply, on_failure);
  }
}

// One of `threads` client threads: connection g of all K is its local g / threads. Jobs move
// from the shared queue to a backlog per connection (bounded by `backlog_cap` in all, so the
// dispatcher's back-pressure holds) and from there onto the wire while the connection has
// fewer than `pipeline` commands in flight.
void client_loop(client& c, unsigned threads, clock_type::time_point t0, std::size_t pipeline,
                 std::size_t backlog_cap, std::atomic<bool>& broken, const token_signer* signer) {
  multiplexer& mux = *c.mux;
  const std::size_t n = mux.size();
  std::vector<std::deque<job>> backlog(n);
  std::vector<std::deque<in_flight>> wire(n);
  std::size_t backlogged = 0;
  auto since_t0 = [&](clock_type::time_point t) {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(t - t0).count();
  };
  auto on_reply = [&](std::size_t i, std::uint64_t, reply&& r) {
    in_flight f = std::move(wire[i].front());
    wire[i].pop_front();
    auto& s = c.stats[f.type];
    if (r.type == reply::kind::error) {
      ++s.errors;
      if (c.error.empty()) c.error = r.str;
      return;
    }
    if (f.follow_up) return;
    if ((f.type == t_release || f.type == t_zrange_release) && r.type == reply::kind::array) {
      for (const auto& m : r.elements) c.handed.push_back(token_of_member(m.str));
      // The second round trip of a non-atomic release: ZREM and SADD of what ZRANGE read.
      if (f.type == t_zrange_release && !r.elements.empty()) {
        std::vector<std::string> zrem{"ZREM", f.list}, sadd{"SADD", c.released_key};
        for (const auto& m : r.elements) {
          zrem.push_back(m.str);
          sadd.push_back(m.str);
        }
        mux.append(i, std::move(zrem));
        mux.append(i, std::move(sadd));
        wire[i].push_back({t_zrange_release, true, 0, {}});
        wire[i].push_back({t_zrange_release, true, 0, {}});
      }
    }
    auto now = since_t0(clock_type::now());
    ++s.completed;
    s.latency_ns.add(now - f.sent_ns);
    bump(s.completed_per_s, now);
  };
  auto on_failure = [&](std::size_t i, const redis_error& e, std::vector<std::uint64_t>) {
    // The connection is gone (no reconnect, or none within its budget): count what was in
    // flight on it; the run stops.
    for (const auto& f : wire[i]) {
      auto& s = c.stats[f.type];
      if (e.kind() == error_kind::timeout)
        ++s.timeouts;
      else
        ++s.errors;
    }
    wire[i].clear();
    if (c.error.empty()) c.error = e.what();
    broken = true;  // the dispatcher stops: nobody would send this connection's commands
  };
  try {
    serve(c, mux, threads, backlog, wire, backlogged, pipeline, backlog_cap, signer, since_t0,
          on_reply, on_failure);
  } catch (const std::exception& e) {
    // poll() itself failed: count everything this thread holds as errors and stop the run
    // (done unblocks a dispatcher waiting for room in the queue).
    std::lock_guard lock(c.m);
    for (const auto& w : wire)
      for (const auto& f : w) ++c.stats[f.type].errors;
    for (const auto& b : backlog)
      for (const auto& j : b) ++c.stats[j.type].errors;
    for (const auto& j : c.q) ++c.stats[j.type].errors;
    c.q.clear();
    c.done = true;
    if (c.error.empty()) c.error = e.what();
    broken = true;
  }
  c.cv.notify_all();
}

// The scenario's operations in virtual time, with an in-memory model of the lists so the
// generator knows who is still waiting (Redis does the same, as the parity tests show).
class generator {
 public:
  generator(const models::scenario& sc, const key_layout& keys, bool status_cache,
            const token_signer* signer)
      : sc_(sc),
        signer_(signer),
        keys_(keys),
        arrivals_rng_(sc.seed, 0, "arrivals"),
        class_rng_(sc.seed, 0, "class"),
        patience_rng_(sc.seed, 0, "patience"),
        mix_(shares(sc)),
        status_cache_(status_cache) {
    if (sc.release.mode != models::release_mode::tick)
      throw sim::input_error("/release/mode", "\"tick\" in load mode",
                             std::string("\"") + models::to_string(sc.release.mode) + "\"");
    process_ = models::make_arrival_process(sc.arrivals);
    for (std::size_t l = 0; l < sc.lists.size(); ++l)
      lists_.push_back(std::make_unique<models::token_zset>(token_salt));
    backlog_left_ = sc.arrivals.backlog_users;
    if (sc.run.horizon_s) horizon_ns_ = static_cast<std::int64_t>(*sc.run.horizon_s * 1e9);
    pull_arrival();
  }

  bool unbounded() const { return !std::isfinite(process_.expected_count()) && horizon_ns_ < 0; }

  // The next operation in virtual time; false when the stream is over.
  bool next(std::int64_t& at_ns, cmd_type& type, std::vector<std::string>& args) {
    for (;;) {
      std::int64_t t_arrival = have_arrival_ ? next_arrival_ns_ : INT64_MAX;
      std::int64_t t_event = events_.empty() ? INT64_MAX : events_.top().at;
      bool waiting = waiting_ > 0;
      std::int64_t t_tick = (have_arrival_ || waiting) ? next_tick_ns_ : INT64_MAX;
      std::int64_t t = std::min({t_arrival, t_event, t_tick});
      if (t == INT64_MAX || (horizon_ns_ >= 0 && t > horizon_ns_)) return false;
      now_ns_ = t;
      if (t == t_arrival) {
        arrive(at_ns, type, args);
        return true;
      }
      if (t == t_tick) {
        if (release(at_ns, type, args)) return true;
        continue;
      }
      auto e = events_.top();
      events_.pop();
      if (e.serial != serial_[e.user]) continue;  // the user has left
      if (e.poll) {
        std::int64_t next = e.at + interval_ns();
        events_.push({next, e.user, e.serial, true});
        bool cached = status_cache_ && e.at - last_lookup_[e.user] < cache_ns();
        if (cached) continue;
        last_lookup_[e.user] = e.at;
        at_ns = e.at;
        type = t_zrank;
        args = {"ZRANK", keys_.list(list_[e.user]), member(e.user)};
        return true;
      }
      // Patience ran out.
      if (lists_[list_[e.user]]->zrem(e.user) == 0) continue;
      ++serial_[e.user];
      --waiting_;
      at_ns = e.at;
      type = t_zrem;
      args = {"ZREM", keys_.list(list_[e.user]), member(e.user)};
      return true;
    }
  }

  std::uint64_t users() const { return users_; }
  std::int64_t now_ns() const { return now_ns_; }

 private:
  struct event {
    std::int64_t at;
    std::uint32_t user;
    std::uint32_t serial;
    bool poll;
    bool operator>(const event& o) const { return at > o.at; }
  };
  static std::vector<double> shares(const models::scenario& sc) {
    std::vector<double> v;
    for (const auto& c : sc.classes) v.push_back(c.share);
    return v;
  }
  static constexpr std::uint64_t token_salt = 0x9e3779b97f4a7c15ULL;
  std::uint64_t token(std::uint32_t u) const { return sim::mix64(u ^ token_salt); }
  std::string member(std::uint32_t u) const {
    return signer_ != nullptr ? signed_[u] : hex_token(token(u));
  }
  std::int64_t interval_ns() const {
    return static_cast<std::int64_t>(sc_.polling->interval_s * 1e9);
  }
  std::int64_t cache_ns() const { return static_cast<std::int64_t>(sc_.polling->cache_s * 1e9); }

  void pull_arrival() {
    if (backlog_left_ > 0) {
      --backlog_left_;
      next_arrival_ns_ = 0;
      next_class_ = -1;
      have_arrival_ = true;
      return;
    }
    sim::arrival a{};
    have_arrival_ = process_.next(arrivals_rng_, a);
    if (have_arrival_) {
      next_arrival_ns_ = a.time.ns();
      next_class_ = a.user_class;
    }
  }

  void arrive(std::int64_t& at_ns, cmd_type& type, std::vector<std::string>& args) {
    auto u = static_cast<std::uint32_t>(users_++);
    std::uint32_t c =
        next_class_ >= 0 ? static_cast<std::uint32_t>(next_class_) : mix_.draw(class_rng_);
    std::uint32_t l = sc_.route[c][0];
    list_.push_back(static_cast<std::uint8_t>(l));
    serial_.push_back(0);
    last_lookup_.push_back(INT64_MIN / 2);
    double noise_u = static_cast<double>(sim::mix64(u ^ 0x51ed) >> 11) * 0x1.0p-53;
    double s = sc_.policy.score(sim::sim_time::from_ns(now_ns_), c, noise_u);
    lists_[l]->store().assign_token(u, u);
    lists_[l]->zadd(s, u);
    ++waiting_;
    if (sc_.polling) events_.push({now_ns_ + interval_ns(), u, 0, true});
    if (sc_.classes[c].patience_s) {
      double p = sc_.classes[c].patience_s->sample(patience_rng_);
      events_.push({now_ns_ + static_cast<std::int64_t>(p * 1e9), u, 0, false});
    }
    at_ns = now_ns_;
    type = t_zadd;
    if (signer_ != nullptr) signed_.push_back(signer_->sign(token(u)));  // issued at entry
    args = {"ZADD", keys_.list(l), fmt::format("{}", s), member(u)};
    pull_arrival();
  }

  // One tick: the batch from the lists in order (strict priority); one EVALSHA per list
  // that releases someone. Returns false when nobody was released (nothing to send).
  bool release(std::int64_t& at_ns, cmd_type& type, std::vector<std::string>& args) {
    if (pending_list_ == 0) left_in_tick_ = sc_.release.batch;
    while (pending_list_ < lists_.size()) {
      std::uint32_t l = pending_list_++;
      std::size_t n = lists_[l]->pop_min(left_in_tick_, [&](std::uint32_t u, double) {
        ++serial_[u];
        --waiting_;
      });
      left_in_tick_ -= static_cast<std::uint32_t>(n);
      if (n > 0) {
        at_ns = now_ns_;
        type = t_release;
        args = {"EVALSHA",
                "",
                "4",
                keys_.list(l),
                keys_.released(),
                keys_.stats(),
                keys_.release_log(0),
                std::to_string(n),
                fmt::format("released:{}", l),
                "",
                ""};
        if (pending_list_ == lists_.size()) end_tick();
        return true;
      }
    }
    end_tick();
    return false;
  }
  void end_tick() {
    pending_list_ = 0;
    next_tick_ns_ += sc_.release.interval.ns();
  }

  const models::scenario& sc_;
  const token_signer* signer_;
  std::vector<std::string> signed_;  // each user's signed member, as its cookie holds it
  const key_layout& keys_;
  sim::rng arrivals_rng_, class_rng_, patience_rng_;
  sim::class_mix mix_;
  sim::arrival_process process_ = sim::arrival_process::poisson(1.0);
  bool status_cache_;
  std::vector<std::unique_ptr<models::token_zset>> lists_;
  std::vector<std::uint8_t> list_;
  std::vector<std::uint32_t> serial_;
  std::vector<std::int64_t> last_lookup_;
  std::priority_queue<event, std::vector<event>, std::greater<>> events_;
  std::uint64_t backlog_left_ = 0;
  bool have_arrival_ = false;
  std::int64_t next_arrival_ns_ = 0;
  std::int32_t next_class_ = -1;
  std::int64_t next_tick_ns_ = 0;
  std::int64_t horizon_ns_ = -1;
  std::int64_t now_ns_ = 0;
  std::uint64_t users_ = 0;
  std::uint64_t waiting_ = 0;
  std::uint32_t pending_list_ = 0;
  std::uint32_t left_in_tick_ = 0;
};

}  // namespace

load_result run_load(const models::scenario& sc, const redis_url& url, const key_layout& keys,
                     const load_options& opt) {
  std::optional<token_signer> signer;
  if (sc.redis.tokens == models::token_format::signed_hmac)
    signer = token_signer::from_env_or_random();
  const token_signer* sign = signer ? &*signer : nullptr;
  generator gen(sc, keys, opt.status_cache, sign);
  if (gen.unbounded() && opt.duration_s <= 0.0)
    throw sim::input_error("--duration", "a wall-clock limit in seconds",
                           "none, and the scenario's arrivals have no end (no /run/horizon_s)");
  const unsigned k = std::max(1u, opt.clients);
  // release.consumers: each tick's release split among that many clients, racing as gateway
  // instances do (with release.atomic false, each part is ZRANGE then ZREM).
  const unsigned releasers = std::max(1u, sc.release.consumers);
  const bool split = releasers > 1 || !sc.release.atomic;
  if (releasers > k)
    throw sim::input_error("--clients",
                           fmt::format("at least /release/consumers ({}): each releaser is a "
                                       "client with its own connection",
                                       releasers),
                           std::to_string(k));
  const unsigned nthreads = std::max(1u, opt.threads);
  if (nthreads > k)
    throw sim::input_error("--threads",
                           fmt::format("at most --clients ({}): each thread drives some of the "
                                       "connections",
                                       k),
                           std::to_string(nthreads));
  const std::size_t pipeline = std::max<std::size_t>(1, opt.pipeline);
  const std::size_t queue_cap = 4 * pipeline + 1024;  // per connection: back-pressure at max speed
  std::vector<std::unique_ptr<client>> clients;
  for (unsigned t = 0; t < nthreads; ++t) {
    clients.push_back(std::make_unique<client>());
    clients.back()->released_key = keys.released();
  }
  // Connect every connection first: a refused connection or a wrong password fails here,
  // before anything is sent. Connection g belongs to thread g % T.
  for (unsigned g = 0; g < k; ++g) {
    auto conn = std::make_unique<connection>(url, opt.connect);
    conn->add_script("release", scripts::release);
    clients[g % nthreads]->conns.push_back(std::move(conn));
  }
  for (auto& c : clients) {
    std::vector<connection*> raw;
    for (auto& conn : c->conns) raw.push_back(conn.get());
    c->mux = std::make_unique<multiplexer>(std::move(raw));
  }
  std::atomic<bool> broken{false};
  auto t0 = clock_type::now();
  std::vector<std::thread> threads;
  auto finish_clients = [&] {
    for (auto& c : clients) {
      {
        std::lock_guard lock(c->m);
        c->done = true;
      }
      c->cv.notify_all();
      c->mux->wake();
    }
    for (auto& t : threads) t.join();
  };
  for (unsigned i = 0; i < nthreads; ++i) {
    const std::size_t share = clients[i]->conns.size();
    try {
      threads.emplace_back(client_loop, std::ref(*clients[i]), nthreads, t0, pipeline,
                           share * queue_cap, std::ref(broken), sign);
    } catch (const std::system_error& e) {
      finish_clients();  // nothing was sent yet: the clients started stop at once
      throw sim::thread_refused("--threads", nthreads, i, e, "give fewer --threads");
    }
  }
  load_result res;
  std::vector<std::uint64_t> requested[t_count];
  std::uint64_t count[t_count] = {};
  std::uint64_t released = 0;  // members the scenario's releases take
  const std::int64_t limit_ns =
      opt.duration_s > 0 ? static_cast<std::int64_t>(opt.duration_s * 1e9) : INT64_MAX;
  std::int64_t v_ns = 0;
  cmd_type type{};
  std::vector<std::string> args;
  auto last_progress = clock_type::now();
  while (!broken && gen.next(v_ns, type, args)) {
    std::int64_t due =
        opt.max_speed
            ? std::chrono::duration_cast<std::chrono::nanoseconds>(clock_type::now() - t0).count()
            : static_cast<std::int64_t>(static_cast<double>(v_ns) / opt.speed);
    if (due > limit_ns) {
      res.stopped_by_duration = true;
      break;
    }
    if (!opt.max_speed) {
      // Sleep in short steps so a broken client stops the run promptly.
      for (;;) {
        auto wait = t0 + std::chrono::nanoseconds(due) - clock_type::now();
        if (wait <= std::chrono::microseconds(200) || broken) break;
        std::this_thread::sleep_for(
            std::min<clock_type::duration>(wait, std::chrono::milliseconds(100)));
      }
    }
    auto send = [&](std::size_t conn, cmd_type t, std::vector<std::string> a) {
      bump(requested[t], due);
      ++count[t];
      auto& c = *clients[conn % nthreads];
      const std::size_t cap = c.conns.size() * queue_cap;
      bool was_empty = false;
      {
        std::unique_lock lock(c.m);
        c.cv.wait(lock, [&] { return c.q.size() < cap || c.done; });
        was_empty = c.q.empty();
        c.q.push_back({t, static_cast<std::uint32_t>(conn), due, std::move(a)});
      }
      // A client thread waiting for replies in poll() sees the job at once (a queue that was
      // not empty is being drained already).
      if (was_empty) c.mux->wake();
    };
    if (type == t_release) {
      const std::uint64_t n = std::stoull(args[7]);
      released += n;
      if (!split) {
        send(0, t_release, std::move(args));  // releases on connection 0
      } else {
        // Release r of the tick goes to connection r: each on its own, at once.
        auto parts = split_release(n, releasers);
        for (unsigned r = 0; r < releasers; ++r) {
          if (parts[r] == 0) continue;
          if (sc.release.atomic) {
            auto a = args;
            a[6] = keys.release_log(r);
            a[7] = std::to_string(parts[r]);
            send(r, t_release, std::move(a));
          } else {
            send(r, t_zrange_release, {"ZRANGE", args[3], "0", std::to_string(parts[r] - 1)});
          }
        }
      }
    } else {
      // A user's commands go to one connection, in order (by its member, the last argument).
      const std::string& who = args.empty() ? std::string() : args.back();
      const std::size_t ci = std::hash<std::string_view>{}(who) % k;
      send(ci, type, std::move(args));
    }
    if (opt.progress && clock_type::now() - last_progress > std::chrono::seconds(1)) {
      last_progress = clock_type::now();
      double wall = std::chrono::duration<double>(last_progress - t0).count();
      opt.progress(fmt::format("load: {:.0f} s wall, {:.1f} s simulated, {} users, {} commands",
                               wall, static_cast<double>(v_ns) * 1e-9, gen.users(),
                               count[0] + count[1] + count[2] + count[3] + count[4]));
    }
    args.clear();
  }
  finish_clients();
  res.wall_s = std::chrono::duration<double>(clock_type::now() - t0).count();
  res.virtual_s = static_cast<double>(gen.now_ns()) * 1e-9;
  res.users = gen.users();
  for (int t = 0; t < t_count; ++t) {
    if (count[t] == 0) continue;
    auto& out = res.commands[type_names[t]];
    out.requested = count[t];
    out.requested_per_s = requested[t];
    for (auto& c : clients) {
      auto& s = c->stats[t];
      out.completed += s.completed;
      out.errors += s.errors;
      out.timeouts += s.timeouts;
      out.latency_ns.merge(s.latency_ns);
      if (out.completed_per_s.size() < s.completed_per_s.size())
        out.completed_per_s.resize(s.completed_per_s.size(), 0);
      for (std::size_t i = 0; i < s.completed_per_s.size(); ++i)
        out.completed_per_s[i] += s.completed_per_s[i];
    }
  }
  for (auto& c : clients) {
    res.checks.lookups += c->checks.lookups;
    res.checks.rejected += c->checks.rejected;
    res.checks.ns += c->checks.ns;
    res.lag_ns.merge(c->lag);
    if (res.first_error.empty()) res.first_error = c->error;
  }
  std::vector<std::pair<std::int64_t, std::int64_t>> outages;
  for (auto& c : clients)
    for (auto& conn : c->conns) {
      const auto& st = conn->stats();
      res.reconnects += st.reconnects;
      res.retried += st.replayed;
      outages.insert(outages.end(), st.outages.begin(), st.outages.end());
    }
  res.gap_s = static_cast<double>(outage_union_ns(std::move(outages))) * 1e-9;
  std::vector<std::uint64_t> handed;
  for (auto& c : clients) handed.insert(handed.end(), c->handed.begin(), c->handed.end());
  res.releases.consumers = releasers;
  res.releases.atomic = sc.release.atomic;
  res.releases.requested = released;
  res.releases.handed_out = handed.size();
  std::sort(handed.begin(), handed.end());
  res.releases.distinct =
      static_cast<std::uint64_t>(std::unique(handed.begin(), handed.end()) - handed.begin());
  res.releases.duplicated = res.releases.handed_out - res.releases.distinct;
  res.releases.lost = released > res.releases.distinct ? released - res.releases.distinct : 0;
  res.behind = res.lag_ns.count() > 0 && res.lag_ns.quantile(0.99) > 100e6;
  return res;
}

}  // namespace waitroom::redis
