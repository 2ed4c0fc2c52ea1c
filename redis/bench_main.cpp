// waitroom_redis_bench: this project's client sending one command type from K connections
// with a pipeline of P, as redis-benchmark does (-c K -P P -n N -r 100000), so
// scripts/redis-bench can compare the two rates against one server.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "redis/connection.hpp"
#include "redis/keys.hpp"
#include "redis/scripts.hpp"
#include "sim/random.hpp"

int main(int argc, char** argv) {
  using namespace waitroom::redis;
  std::string url_text, command = "zadd";
  unsigned clients = 4;
  std::size_t pipeline = 16;
  std::uint64_t requests = 200'000;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string f = argv[i], v = argv[i + 1];
    if (f == "--redis")
      url_text = v;
    else if (f == "--command")
      command = v;
    else if (f == "--clients")
      clients = static_cast<unsigned>(std::stoul(v));
    else if (f == "--pipeline")
      pipeline = std::stoul(v);
    else if (f == "--requests")
      requests = std::stoull(v);
    else {
      fmt::print(stderr,
                 "usage: waitroom_redis_bench --redis URL --command zadd|zrank|evalsha "
                 "[--clients K] [--pipeline P] [--requests N]\n");
      return 2;
    }
  }
  if (url_text.empty() || (command != "zadd" && command != "zrank" && command != "evalsha")) {
    fmt::print(stderr, "waitroom_redis_bench: --redis URL and --command zadd|zrank|evalsha\n");
    return 2;
  }
  try {
    redis_url url = parse_url_from_env(url_text);
    std::atomic<bool> failed{false};
    std::vector<std::thread> threads;
    auto t0 = std::chrono::steady_clock::now();
    for (unsigned k = 0; k < clients; ++k) {
      threads.emplace_back([&, k] {
        try {
          connection c(url);
          std::size_t script = c.add_script("release", scripts::release);
          waitroom::sim::rng r(k + 1);
          std::uint64_t mine = requests / clients + (k < requests % clients ? 1 : 0);
          while (mine > 0) {
            std::size_t n = std::min<std::uint64_t>(pipeline, mine);
            for (std::size_t i = 0; i < n; ++i) {
              auto x = std::to_string(r.below(100'000));
              if (command == "zadd")
                c.append({"ZADD", "bench:z", x, "m:" + x});
              else if (command == "zrank")
                c.append({"ZRANK", "bench:z", "m:" + x});
              else
                c.append(c.evalsha_args(script,
                                        std::vector<std::string>{"bench:empty", "bench:rel",
                                                                 "bench:stats", "bench:log"},
                                        std::vector<std::string>{"1", "released:0", "", ""}));
            }
            for (std::size_t i = 0; i < n; ++i) {
              auto rep = c.read();
              if (rep.type == reply::kind::error) throw redis_error(error_kind::reply, rep.str);
            }
            mine -= n;
          }
        } catch (const std::exception& e) {
          fmt::print(stderr, "waitroom_redis_bench: {}\n", e.what());
          failed = true;
        }
      });
    }
    for (auto& t : threads) t.join();
    if (failed) return 6;
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    fmt::print("{:.2f}\n", static_cast<double>(requests) / s);
    return 0;
  } catch (const std::exception& e) {
    fmt::print(stderr, "waitroom_redis_bench: {}\n", e.what());
    return 6;
  }
}
