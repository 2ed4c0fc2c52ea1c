// A thread the system refuses in the Redis releasers and `load` clients is bad input naming
// what asked for the threads (exit 2 in the program), not std::terminate.
#include <pthread.h>
#include <sys/wait.h>

#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "redis/connection.hpp"
#include "redis/keys.hpp"
#include "redis/releasers.hpp"
#include "redis_server.hpp"
#include "sim/input_error.hpp"

namespace {

using waitroom::testing_support::redis_server;

// While alive, every new thread of this process asks for a 1 TB stack, which cannot be
// mapped (as root too), so std::thread throws std::system_error; restored on destruction.
class refused_threads {
 public:
  refused_threads() {
    pthread_attr_t a;
    ::pthread_getattr_default_np(&saved_);
    ::pthread_attr_init(&a);
    ::pthread_attr_setstacksize(&a, std::size_t{1} << 40);
    ok_ = ::pthread_setattr_default_np(&a) == 0;
    ::pthread_attr_destroy(&a);
  }
  ~refused_threads() {
    ::pthread_setattr_default_np(&saved_);
    ::pthread_attr_destroy(&saved_);
  }
  refused_threads(const refused_threads&) = delete;
  refused_threads& operator=(const refused_threads&) = delete;
  bool ok() const { return ok_; }

 private:
  pthread_attr_t saved_;
  bool ok_ = false;
};

// `waitroom ARGS` under a 1 TB stack limit (ulimit -s, in KB), which makes every new thread's
// stack fail to map: its exit status (99: the shell refused the limit) and its output.
struct shell_result {
  int status = -1;
  std::string out;
};
shell_result run_without_room_for_threads(const std::string& args) {
  const std::string cmd = "sh -c 'ulimit -s 1000000000 || exit 99; exec timeout -k 5 60 " +
                          std::string(WAITROOM_BINARY) + " " + args + "' 2>&1";
  shell_result r;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) r.out.append(buf, n);
  const int status = ::pclose(p);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

TEST(RedisThreads, ARefusedReleaserThreadIsAnInputErrorNamingTheCount) {
  redis_server s;
  waitroom::redis::releasers_options o;
  o.users = 2000;
  o.batch = 10;
  o.releasers = 3;
  o.releasers_from = "scenario.json: /release/consumers";
  const waitroom::redis::key_layout keys{waitroom::redis::new_run_id()};
  {
    refused_threads refuse;
    ASSERT_TRUE(refuse.ok());
    try {
      waitroom::redis::run_concurrent_releasers(s.parsed_url(), keys, o);
      FAIL() << "no error although no thread could start";
    } catch (const waitroom::sim::input_error& e) {
      EXPECT_EQ(e.where(), "scenario.json: /release/consumers");
      EXPECT_EQ(e.expected(), "a number of threads the system can start");
      EXPECT_EQ(e.found().rfind("3: thread 1 could not be started (", 0), 0u) << e.what();
    }
  }
  // Nothing was released: the list holds every user for a run that can start its threads.
  waitroom::redis::connection c(s.parsed_url());
  EXPECT_EQ(c.call({"ZCARD", keys.list(0)}).integer, 2000);
  EXPECT_EQ(c.call({"SCARD", keys.released()}).integer, 0);
}

// The pool of `run --redis` with release.consumers: the same error, the started ones stopped.
TEST(RedisThreads, ARefusedReleaserPoolThreadIsAnInputErrorNamingConsumers) {
  redis_server s;
  const waitroom::redis::key_layout keys{waitroom::redis::new_run_id()};
  refused_threads refuse;
  ASSERT_TRUE(refuse.ok());
  try {
    waitroom::redis::releaser_pool pool(s.parsed_url(), keys, 3, true);
    FAIL() << "no error although no thread could start";
  } catch (const waitroom::sim::input_error& e) {
    EXPECT_EQ(e.where(), "/release/consumers");
    EXPECT_EQ(e.expected(), "a number of threads the system can start");
    EXPECT_EQ(e.found().rfind("3: thread 1 could not be started (", 0), 0u) << e.what();
  }
}

// `run --redis` with release.consumers: the refused releaser thread names the scenario file
// with the pointer, as every other scenario error does.
TEST(RedisThreads, RunNamesTheScenarioFileWhenAReleaserThreadIsRefused) {
  redis_server s;
  const std::string scenario = std::string(WAITROOM_SOURCE_DIR) + "/scenarios/clinic_ratio.json";
  const auto [status, out] = run_without_room_for_threads(
      "run " + scenario + " --set /release/consumers=3 --redis " + s.url());
  ASSERT_NE(status, 99) << "ulimit -s refused: " << out;
  EXPECT_EQ(status, 2) << out;
  EXPECT_NE(out.find("waitroom: " + scenario +
                     ": /release/consumers: expected a number of threads the system can start, "
                     "found 3: thread 1 could not be started"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("terminate"), std::string::npos) << out;
  waitroom::redis::connection c(s.parsed_url());
  EXPECT_EQ(c.call({"DBSIZE"}).integer, 0);  // the run's keys deleted
}

// The load clients are --threads threads, each multiplexing its share of the --clients
// connections (redis/multiplex): a refused one names --threads.
TEST(RedisThreads, ARefusedLoadClientExitsTwoNamingThreads) {
  redis_server s;
  const std::string scenario = std::string(WAITROOM_SOURCE_DIR) + "/scenarios/concert_polling.json";
  const auto [status, out] = run_without_room_for_threads(
      "load " + scenario + " --redis " + s.url() +
      " --set /arrivals/segments/0/duration_s=2 --speed asap --clients 3 --threads 3");
  ASSERT_NE(status, 99) << "ulimit -s refused: " << out;
  EXPECT_EQ(status, 2) << out;
  EXPECT_NE(out.find("waitroom: --threads: expected a number of threads the system can start, "
                     "found 3: thread 1 could not be started"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("terminate"), std::string::npos) << out;
  EXPECT_EQ(out.find("internal error"), std::string::npos) << out;
  // Refused before anything was sent: no key left behind.
  waitroom::redis::connection c(s.parsed_url());
  EXPECT_EQ(c.call({"DBSIZE"}).integer, 0);
}

}  // namespace
