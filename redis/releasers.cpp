#include "redis/releasers.hpp"

#include <algorithm>
#include <chrono>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "redis/scripts.hpp"
#include "sim/random.hpp"

namespace waitroom::redis {

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
  auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (unsigned r = 0; r < opt.releasers; ++r) {
    threads.emplace_back([&, r] {
      try {
        connection c(url, opt.connect);
        std::size_t script = c.add_script("release", scripts::release);
        auto& log = logs[r];
        auto note = [&](const reply& got) {
          for (const auto& m : got.elements) log.push_back(std::stoull(m.str, nullptr, 16));
        };
        for (;;) {
          reply got;
          if (opt.atomic) {
            std::vector<std::string> k{list, keys.released(), keys.stats(), keys.release_log(r)};
            std::vector<std::string> a{std::to_string(opt.batch), "released:0", "", ""};
            auto cmd = c.evalsha_args(script, k, a);
            got = c.call(std::span<const std::string>(cmd), list);
          } else {
            // The articles' bug: read the head, then remove it in a second round trip; another
            // releaser can read the same head in between.
            got = c.call({"ZRANGE", list, "0", std::to_string(opt.batch - 1)}, list);
            if (!got.elements.empty()) {
              std::vector<std::string> zrem{"ZREM", list}, sadd{"SADD", keys.released()};
              for (const auto& m : got.elements) {
                zrem.push_back(m.str);
                sadd.push_back(m.str);
              }
              c.append(std::move(zrem));
              c.append(std::move(sadd));
              c.read();
              c.read();
            }
          }
          if (got.elements.empty()) break;
          ++calls[r];
          note(got);
        }
      } catch (...) {
        std::lock_guard lock(failure_mutex);
        if (!failure) failure = std::current_exception();
      }
    });
  }
  for (auto& t : threads) t.join();
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
