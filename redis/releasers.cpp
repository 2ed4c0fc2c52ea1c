#include "redis/releasers.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "redis/scripts.hpp"
#include "sim/parallel.hpp"
#include "sim/random.hpp"

namespace waitroom::redis {

std::vector<std::string> release_once(connection& c, std::size_t script, const key_layout& keys,
                                      const std::string& list_key, std::uint32_t list,
                                      std::uint64_t n, std::uint32_t releaser, bool atomic,
                                      std::uint64_t release_id, std::uint64_t log_window) {
  std::vector<std::string> out;
  if (n == 0) return out;
  if (atomic) {
    std::vector<std::string> k{list_key, keys.released(), keys.stats(), keys.release_log(releaser)};
    std::vector<std::string> a{
        std::to_string(n), fmt::format("released:{}", list),
        release_id > 0 ? std::to_string(release_id) : std::string(),
        release_id > log_window ? std::to_string(release_id - log_window) : std::string()};
    auto cmd = c.evalsha_args(script, k, a);
    reply got = c.call(std::span<const std::string>(cmd), list_key);
    for (auto& m : got.elements) out.push_back(std::move(m.str));
    return out;
  }
  // The articles' bug: read the head, then remove it in a second round trip; another
  // releaser can read the same head in between.
  reply got = c.call({"ZRANGE", list_key, "0", std::to_string(n - 1)}, list_key);
  if (got.elements.empty()) return out;
  std::vector<std::string> zrem{"ZREM", list_key}, sadd{"SADD", keys.released()};
  for (auto& m : got.elements) {
    zrem.push_back(m.str);
    sadd.push_back(m.str);
    out.push_back(std::move(m.str));
  }
  c.append(std::move(zrem));
  c.append(std::move(sadd));
  for (const char* what : {"ZREM", "SADD"}) {
    reply r = c.read();
    if (r.type == reply::kind::error)
      throw redis_error(classify_error_reply(r.str),
                        fmt::format("Redis at {}: {} {} (release "
                                    "by releaser {}): {}",
                                    c.url().describe(), what, list_key, releaser, r.str));
  }
  return out;
}

std::vector<std::uint64_t> split_release(std::uint64_t n, unsigned k) {
  k = std::max(1u, k);
  std::vector<std::uint64_t> parts(k, n / k);
  for (std::uint64_t i = 0; i < n % k; ++i) ++parts[i];
  return parts;
}

releaser_pool::releaser_pool(const redis_url& url, const key_layout& keys, unsigned releasers,
                             bool atomic, const connect_options& opt, std::string releasers_from)
    : keys_(keys), atomic_(atomic) {
  for (unsigned i = 0; i < std::max(1u, releasers); ++i) {
    auto w = std::make_unique<worker>();
    w->conn = std::make_unique<connection>(url, opt);
    if (atomic) w->script = w->conn->add_script("release", scripts::release);
    workers_.push_back(std::move(w));
  }
  std::uint32_t i = 0;
  try {
    for (; i < workers_.size(); ++i) workers_[i]->thread = std::thread([this, i] { loop(i); });
  } catch (const std::system_error& e) {  // no thread for one: stop those started, exit 2
    stop();
    throw sim::thread_refused(releasers_from, static_cast<unsigned>(workers_.size()), i, e,
                              "give fewer release.consumers");
  }
}

releaser_pool::~releaser_pool() {
  stop();
}

void releaser_pool::stop() {
  {
    std::lock_guard lock(m_);
    stop_ = true;
  }
  go_.notify_all();
  for (auto& w : workers_)
    if (w->thread.joinable()) w->thread.join();
}

void releaser_pool::loop(std::uint32_t i) {
  worker& w = *workers_[i];
  std::uint64_t seen = 0;
  for (;;) {
    std::string key;
    std::uint32_t list = 0;
    std::uint64_t n = 0;
    {
      std::unique_lock lock(m_);
      go_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      key = list_key_;
      list = list_;
      n = i < parts_.size() ? parts_[i] : 0;
    }
    try {
      // One release in flight per releaser: the default log window is ample.
      const std::uint64_t id = n > 0 ? ++w.releases : 0;
      w.got = release_once(*w.conn, w.script, keys_, key, list, n, i + 1, atomic_, id);
    } catch (...) {
      w.error = std::current_exception();
    }
    {
      std::lock_guard lock(m_);
      --running_;
    }
    done_.notify_all();
  }
}

std::vector<std::vector<std::string>> releaser_pool::release(const std::string& list_key,
                                                             std::uint32_t list,
                                                             std::span<const std::uint64_t> parts) {
  {
    std::lock_guard lock(m_);
    list_key_ = list_key;
    list_ = list;
    parts_.assign(parts.begin(), parts.end());
    for (auto& w : workers_) {
      w->got.clear();
      w->error = nullptr;
    }
    running_ = size();
    ++generation_;
  }
  go_.notify_all();  // every releaser starts at once: they race as gateway instances do
  {
    std::unique_lock lock(m_);
    done_.wait(lock, [&] { return running_ == 0; });
  }
  std::vector<std::vector<std::string>> out;
  for (auto& w : workers_) {
    if (w->error) std::rethrow_exception(w->error);
    out.push_back(std::move(w->got));
  }
  if (const auto n = reconnects(); n != reconnects_seen_) {
    reconnects_seen_ = n;
    if (on_reconnect_) on_reconnect_();
  }
  return out;
}

std::uint64_t releaser_pool::reconnects() const {
  std::uint64_t n = 0;
  for (const auto& w : workers_) n += w->conn->stats().reconnects;
  return n;
}

command_stats releaser_pool::stats() const {
  command_stats all;
  for (const auto& w : workers_) add_stats(all, w->conn->stats());
  return all;
}

releasers_result run_concurrent_releasers(const redis_url& url, const key_layout& keys,
                                          const releasers_options& opt) {
  releasers_result res;
  res.users = opt.users;
  const std::string list = keys.list(0);
  {
    // Fill: many users per second share a score, so ties are broken by member bytes.
    connection c(url, opt.connect);
    for (std::uint64_t i = 0; i < opt.users;) {
      std::vector<std::string> cmd{"ZADD", list};
      for (std::uint64_t j = 0; j < 1000 && i < opt.users; ++j, ++i) {
        cmd.push_back(std::to_string(i / 1000));
        cmd.push_back(hex_token(sim::mix64(i)));
      }
      c.call(std::span<const std::string>(cmd), list);
    }
  }
  std::vector<std::vector<std::uint64_t>> logs(opt.releasers);
  std::vector<std::uint64_t> calls(opt.releasers, 0);
  std::exception_ptr failure;
  std::mutex failure_mutex;
  std::atomic<bool> stop{false};  // a releaser the system refused: the others stop too
  std::optional<std::system_error> refusal;
  auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (unsigned r = 0; r < opt.releasers && !refusal; ++r) {
    sim::try_start(threads, refusal, [&, r] {
      try {
        connection c(url, opt.connect);
        std::size_t script = c.add_script("release", scripts::release);
        auto& log = logs[r];
        while (!stop) {
          auto got = release_once(c, script, keys, list, 0, opt.batch, r, opt.atomic);
          if (got.empty()) break;
          ++calls[r];
          for (const auto& m : got) log.push_back(std::stoull(m, nullptr, 16));
        }
      } catch (...) {
        std::lock_guard lock(failure_mutex);
        if (!failure) failure = std::current_exception();
      }
    });
  }
  if (refusal) stop = true;
  for (auto& t : threads) t.join();
  if (refusal)
    throw sim::thread_refused(opt.releasers_from, opt.releasers,
                              static_cast<unsigned>(threads.size()), *refusal,
                              "give fewer releasers");
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (failure) std::rethrow_exception(failure);

  std::vector<std::uint64_t> all;
  for (unsigned r = 0; r < opt.releasers; ++r) {
    res.releases += calls[r];
    all.insert(all.end(), logs[r].begin(), logs[r].end());
  }
  res.handed_out = all.size();
  std::sort(all.begin(), all.end());
  res.distinct = static_cast<std::uint64_t>(std::unique(all.begin(), all.end()) - all.begin());
  res.duplicated = res.handed_out - res.distinct;
  res.lost = res.users - res.distinct;
  connection c(url, opt.connect);
  res.released_set = static_cast<std::uint64_t>(c.call({"SCARD", keys.released()}).integer);
  res.left_in_list = static_cast<std::uint64_t>(c.call({"ZCARD", list}).integer);
  return res;
}

}  // namespace waitroom::redis
