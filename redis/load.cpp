#include "redis/load.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <numeric>
#include <optional>
#include <queue>
#include <system_error>
#include <thread>

#include <fmt/format.h>

#include "redis/load_stream.hpp"
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
  std::uint64_t drawn = 0;            // lottery draws that took their member
  std::uint64_t unsent = 0;           // jobs dropped once the run stopped on a failure
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
           std::size_t backlog_cap, const token_signer* signer, const std::atomic<bool>& broken,
           const Since& since_t0, const OnReply& on_reply, const OnFailure& on_failure) {
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
    if (broken) {
      // The run stopped on a failure: what is not on the wire yet is dropped, not sent (the
      // replies in flight are still read). Done unblocks a dispatcher waiting for room.
      std::lock_guard lock(c.m);
      for (auto& b : backlog) {
        c.unsent += b.size();
        b.clear();
      }
      c.unsent += c.q.size();
      c.q.clear();
      backlogged = 0;
      c.done = true;
    }
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
      // A failed command (not a broken connection: those are retried, or end in on_failure)
      // stops the run: a read-only replica or a full Redis would fail every command after it.
      ++s.errors;
      if (c.error.empty()) c.error = fmt::format("{}: {}", type_names[f.type], r.str);
      broken = true;
      return;
    }
    if (f.follow_up) return;
    if (f.type == t_draw && r.type == reply::kind::integer && r.integer == 1) ++c.drawn;
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
    serve(c, mux, threads, backlog, wire, backlogged, pipeline, backlog_cap, signer, broken,
          since_t0, on_reply, on_failure);
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

}  // namespace

load_result run_load(const models::scenario& sc, const redis_url& url, const key_layout& keys,
                     const load_options& opt) {
  std::optional<token_signer> signer;
  if (sc.redis.tokens == models::token_format::signed_hmac)
    signer = token_signer::from_env_or_random();
  const token_signer* sign = signer ? &*signer : nullptr;
  load_stream gen(sc, keys, opt.status_cache, sign);
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
    for (const auto& script : stream_scripts()) conn->add_script(script.name, script.body);
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
  stream_op op;
  auto last_progress = clock_type::now();
  // An error from the stream (the room stopped on a stall or an input error): the clients
  // stop before it reaches the caller.
  struct on_throw {
    std::function<void()> f;
    int before = std::uncaught_exceptions();
    ~on_throw() {
      if (std::uncaught_exceptions() > before) f();
    }
  } stop_clients{[&] {
    gen.stop();
    finish_clients();
  }};
  while (!broken && gen.next(op)) {
    v_ns = op.at_ns;
    type = op.type;
    args = std::move(op.args);
    std::int64_t due =
        opt.max_speed
            ? std::chrono::duration_cast<std::chrono::nanoseconds>(clock_type::now() - t0).count()
            : static_cast<std::int64_t>(static_cast<double>(v_ns) / opt.speed);
    // --duration bounds the wall clock: a run behind schedule stops there too, not when its
    // due times reach the limit (commands already queued still go out).
    if (due > limit_ns ||
        (limit_ns != INT64_MAX && clock_type::now() - t0 > std::chrono::nanoseconds(limit_ns))) {
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
      // A user's commands go to one connection, in order (by its token).
      send(op.route % k, type, std::move(args));
    }
    if (opt.progress && clock_type::now() - last_progress > std::chrono::seconds(1)) {
      last_progress = clock_type::now();
      double wall = std::chrono::duration<double>(last_progress - t0).count();
      opt.progress(
          fmt::format("load: {:.0f} s wall, {:.1f} s simulated, {} users, {} commands", wall,
                      static_cast<double>(v_ns) * 1e-9, gen.users(),
                      std::accumulate(std::begin(count), std::end(count), std::uint64_t{0})));
    }
    args.clear();
  }
  gen.stop();  // with --duration: the producer stops at once, not when the run returns
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
  for (auto& c : clients) {
    res.releases.drawn += c->drawn;
    // Jobs queued after the thread stopped on the failure were never sent either.
    res.unsent += c->unsent + c->q.size();
  }
  // Redis's own record of the releases, read after the last reply: what the scripts guarantee
  // it holds unless it lost the room's state (a run that failed is reported as that instead).
  if (!broken) {
    connection rec(url, opt.connect);
    res.releases.released_set = rec.call({"SCARD", keys.released()}, keys.released()).integer;
    std::int64_t counted = 0;
    for (const auto& v : rec.call({"HVALS", keys.stats()}, keys.stats()).elements)
      counted += std::stoll(v.str);
    res.releases.counted = counted;
  }
  // As fast as possible (--speed asap) has no schedule to fall behind.
  res.behind = !opt.max_speed && res.lag_ns.count() > 0 && res.lag_ns.quantile(0.99) > 100e6;
  return res;
}

std::string release_failure(const release_count& r) {
  if (r.atomic && r.duplicated > 0)
    return fmt::format(
        "{} users were handed out twice by the release script, which takes each member once: "
        "Redis's state is not what the script guarantees",
        r.duplicated);
  if (r.released_set < 0) return {};
  // Every member a release handed out (and every draw that took one) was added to the
  // released set, and with the script counted in the stats hash, in the same step.
  const auto want = static_cast<std::int64_t>(r.distinct + r.drawn);
  std::string what;
  if (r.released_set != want)
    what = fmt::format("the released set holds {} members", r.released_set);
  if (r.atomic && r.counted != want)
    what +=
        fmt::format("{}the stats counters add up to {}", what.empty() ? "" : " and ", r.counted);
  if (what.empty()) return {};
  return fmt::format(
      "{} where the releases handed out {} users{}: Redis lost or changed the room's state "
      "mid-run (a restart without persistence, a flush, an eviction, another client)",
      what, want, r.lost > 0 ? fmt::format(" and {} more were never handed out", r.lost) : "");
}

}  // namespace waitroom::redis
