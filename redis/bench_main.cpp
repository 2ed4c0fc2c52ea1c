// waitroom_redis_bench: this project's client sending one command type from K connections
// with a pipeline of P, as redis-benchmark does (-c K -P P -n N -r 100000), the K connections
// driven by T threads (--threads, default 1, as redis-benchmark's) through redis/multiplex, so
// scripts/redis-bench can compare the two rates against one server.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "redis/connection.hpp"
#include "redis/keys.hpp"
#include "redis/multiplex.hpp"
#include "redis/scripts.hpp"
#include "sim/random.hpp"

int main(int argc, char** argv) {
  using namespace waitroom::redis;
  std::string url_text, command = "zadd";
  unsigned clients = 4, threads = 1;
  std::size_t pipeline = 16;
  std::uint64_t requests = 200'000;
  auto usage = [] {
    fmt::print(stderr,
               "usage: waitroom_redis_bench --redis URL --command zadd|zrank|evalsha "
               "[--clients K] [--threads T] [--pipeline P] [--requests N]\n");
    return 2;
  };
  try {
    for (int i = 1; i < argc; i += 2) {
      std::string f = argv[i];
      if (i + 1 >= argc) return usage();
      std::string v = argv[i + 1];
      if (f == "--redis")
        url_text = v;
      else if (f == "--command")
        command = v;
      else if (f == "--clients")
        clients = static_cast<unsigned>(std::stoul(v));
      else if (f == "--threads")
        threads = static_cast<unsigned>(std::stoul(v));
      else if (f == "--pipeline")
        pipeline = std::stoul(v);
      else if (f == "--requests")
        requests = std::stoull(v);
      else
        return usage();
    }
  } catch (const std::exception&) {
    return usage();
  }
  if (url_text.empty() || (command != "zadd" && command != "zrank" && command != "evalsha") ||
      clients == 0 || threads == 0 || threads > clients || pipeline == 0) {
    fmt::print(stderr,
               "waitroom_redis_bench: --redis URL, --command zadd|zrank|evalsha, and "
               "1 <= --threads <= --clients\n");
    return 2;
  }
  try {
    redis_url url = parse_url_from_env(url_text);
    // Every connection first (a refused one fails before the clock starts).
    std::vector<std::unique_ptr<connection>> conns;
    std::vector<std::size_t> scripts;
    for (unsigned k = 0; k < clients; ++k) {
      conns.push_back(std::make_unique<connection>(url));
      scripts.push_back(conns.back()->add_script("release", scripts::release));
    }
    std::atomic<bool> failed{false};
    std::vector<std::thread> pool;
    auto t0 = std::chrono::steady_clock::now();
    for (unsigned t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        try {
          // Connections t, t + T, ...: each sends P commands, reads their P replies, then
          // sends the next P (redis-benchmark's -P), all of them driven by this thread.
          std::vector<connection*> mine;
          std::vector<std::uint64_t> left;
          std::vector<waitroom::sim::rng> rngs;
          for (unsigned k = t; k < clients; k += threads) {
            mine.push_back(conns[k].get());
            left.push_back(requests / clients + (k < requests % clients ? 1 : 0));
            rngs.emplace_back(k + 1);
          }
          multiplexer mux(mine);
          const std::vector<std::string> keys{"bench:empty", "bench:rel", "bench:stats",
                                              "bench:log"};
          const std::vector<std::string> args{"1", "released:0", "", ""};
          auto refill = [&](std::size_t i) {
            std::size_t n = std::min<std::uint64_t>(pipeline, left[i]);
            for (std::size_t j = 0; j < n; ++j) {
              auto x = std::to_string(rngs[i].below(100'000));
              // redis-benchmark draws every __rand_int__ on its own: the score is not the
              // member's, so a member already there moves (as costly as theirs).
              if (command == "zadd")
                mux.append(i,
                           {"ZADD", "bench:z", std::to_string(rngs[i].below(100'000)), "m:" + x});
              else if (command == "zrank")
                mux.append(i, {"ZRANK", "bench:z", "m:" + x});
              else
                mux.append(i, mux.at(i).evalsha_args(0, keys, args));
            }
            left[i] -= n;
          };
          for (std::size_t i = 0; i < mine.size(); ++i) refill(i);
          std::string error;
          auto on_reply = [&](std::size_t i, std::uint64_t, reply&& r) {
            if (r.type == reply::kind::error && error.empty()) error = r.str;
            if (mux.in_flight(i) == 0) refill(i);
          };
          auto on_failure = [&](std::size_t, const redis_error& e, std::vector<std::uint64_t>) {
            if (error.empty()) error = e.what();
          };
          while (mux.in_flight() > 0 && error.empty())
            mux.step(std::chrono::seconds(1), on_reply, on_failure);
          if (!error.empty()) throw redis_error(error_kind::reply, error);
        } catch (const std::exception& e) {
          fmt::print(stderr, "waitroom_redis_bench: {}\n", e.what());
          failed = true;
        }
      });
    }
    for (auto& t : pool) t.join();
    if (failed) return 6;
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    fmt::print("{:.2f}\n", static_cast<double>(requests) / s);
    return 0;
  } catch (const std::exception& e) {
    fmt::print(stderr, "waitroom_redis_bench: {}\n", e.what());
    return 6;
  }
}
