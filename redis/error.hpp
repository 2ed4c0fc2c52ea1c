#pragma once
// What can go wrong talking to Redis, each kind with its own message (the CLI maps kinds to
// exit codes). Messages never contain the password.
#include <stdexcept>
#include <string>

namespace waitroom::redis {

enum class error_kind {
  bad_url,       // the URL does not parse
  refused,       // nothing listens there (ECONNREFUSED, or no such socket file)
  unknown_host,  // the host name does not resolve
  auth,          // wrong password, unknown user, or a password needed
  timeout,       // a call took longer than the timeout
  connection,    // the connection broke and could not be re-established in time
  oom,           // maxmemory reached: "OOM command not allowed"
  script,        // a Lua script raised an error
  wrong_type,    // a key of the wrong type is already there
  reply,         // any other error reply
  parity,        // Redis's answer differs from the model's
};

const char* to_string(error_kind k);

class redis_error : public std::runtime_error {
 public:
  redis_error(error_kind kind, const std::string& what) : std::runtime_error(what), kind_(kind) {}
  error_kind kind() const { return kind_; }

 private:
  error_kind kind_;
};

}  // namespace waitroom::redis
