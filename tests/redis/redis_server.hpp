#pragma once
// A redis-server of the test's own: a unix socket in a fresh temp folder, --port 0 (no TCP),
// no persistence unless asked. Started in the constructor (waits for PING), stopped by its pid
// in the destructor whatever happened (SIGTERM, then SIGKILL after 5 s), folder removed. If
// the test process itself is killed (a ctest timeout), the kernel kills the server too
// (PR_SET_PDEATHSIG): it dies with the thread that started it, so start it from a thread that
// lives as long as the server should.
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "redis/connection.hpp"

namespace waitroom::testing_support {

class redis_server {
 public:
  // extra: more redis-server arguments, e.g. {"--appendonly", "yes"}.
  explicit redis_server(std::vector<std::string> extra = {}) : extra_(std::move(extra)) {
    char tmpl[] = "/tmp/waitroom-redis-XXXXXX";
    if (::mkdtemp(tmpl) == nullptr) throw std::runtime_error("mkdtemp failed");
    dir_ = tmpl;
    start();
  }
  ~redis_server() {
    stop();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  redis_server(const redis_server&) = delete;
  redis_server& operator=(const redis_server&) = delete;

  std::string socket() const { return dir_ + "/redis.sock"; }
  std::string url() const { return "unix://" + socket(); }
  redis::redis_url parsed_url() const { return redis::parse_url(url()); }
  const std::string& dir() const { return dir_; }
  pid_t pid() const { return pid_; }

  void start() {
    std::vector<std::string> args{
        "redis-server",      "--port",      "0",     "--unixsocket", socket(),
        "--unixsocketperm",  "700",         "--dir", dir_,           "--logfile",
        dir_ + "/redis.log", "--daemonize", "no",    "--save",       "",
        "--appendonly",      "no"};
    args.insert(args.end(), extra_.begin(), extra_.end());  // later arguments win
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t parent = ::getpid();
    pid_ = ::fork();
    if (pid_ < 0) throw std::runtime_error("fork failed starting redis-server");
    if (pid_ == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(127);  // the parent died already
      ::execvp("redis-server", argv.data());
      ::_exit(127);
    }
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    for (;;) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        throw std::runtime_error(
            "redis-server exited at start (is it installed? scripts/test installs Debian's "
            "redis-server); its log, if any, is in " +
            dir_);
      }
      try {
        redis::connect_options o;
        o.timeout = std::chrono::milliseconds(500);
        auto u = parsed_url();
        u.password = password_;
        redis::connection c(u, o);
        return;  // PING answered
      } catch (const redis::redis_error& e) {
        if (e.kind() == redis::error_kind::auth) return;  // up, and wants a password
        if (std::chrono::steady_clock::now() > deadline) {
          stop();
          throw std::runtime_error(std::string("redis-server did not answer PING: ") + e.what());
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }

  void stop() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGTERM);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    int status = 0;
    while (::waitpid(pid_, &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > deadline) {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, &status, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    pid_ = -1;
  }

  // Kills it at once (no shutdown save): a crash.
  void crash() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
  }

  void expect_password(std::string p) { password_ = std::move(p); }

  // Keys in the server's database, from a fresh connection (0: a run left nothing behind).
  std::int64_t dbsize() const {
    redis::connection c(parsed_url());
    return c.call({"DBSIZE"}).integer;
  }

 private:
  std::vector<std::string> extra_;
  std::string dir_;
  std::string password_;
  pid_t pid_ = -1;
};

// Redis stopped mid-run and started again on the same socket and folder: the constructor
// stops `s` (SIGTERM, or SIGKILL with crash = true, waited for by its pid); a thread starts it
// again `down` later and keeps it running (a server dies with the thread that started it)
// until this object ends, when the thread stops it. The test must not use `s` meanwhile.
class restart_later {
 public:
  restart_later(redis_server& s, std::chrono::milliseconds down, bool crash = false) : s_(s) {
    if (crash)
      s_.crash();
    else
      s_.stop();
    thread_ = std::thread([this, down] {
      std::unique_lock lock(m_);
      if (cv_.wait_for(lock, down, [this] { return done_; })) return;
      lock.unlock();
      try {
        s_.start();
      } catch (const std::exception&) {  // not back: the test fails on its reconnect
      }
      lock.lock();
      cv_.wait(lock, [this] { return done_; });
      s_.stop();
    });
  }
  ~restart_later() {
    {
      std::lock_guard lock(m_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  restart_later(const restart_later&) = delete;
  restart_later& operator=(const restart_later&) = delete;

 private:
  redis_server& s_;
  std::mutex m_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

}  // namespace waitroom::testing_support
