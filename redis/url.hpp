#pragma once
// Where the Redis server is: redis://[user[:password]@]host[:port][/db] or unix:///path
// (optionally unix:///path?db=N). The password may also come from WAITROOM_REDIS_PASSWORD
// (the URL's wins). describe() never shows it.
#include <cstdint>
#include <string>
#include <string_view>

namespace waitroom::redis {

struct redis_url {
  enum class transport { tcp, unix_socket };
  transport kind = transport::tcp;
  std::string host = "127.0.0.1";
  int port = 6379;
  std::string path;  // unix socket
  std::string user;  // empty: the default user (AUTH password)
  std::string password;
  int db = 0;

  // The URL without the password ("redis://user:***@host:port/db"), for messages.
  std::string describe() const;
};

// Throws redis_error{bad_url} naming what was expected and found. When the URL carries no
// password, `env_password` (WAITROOM_REDIS_PASSWORD's value, if set) is used.
redis_url parse_url(std::string_view url, const char* env_password = nullptr);

// parse_url with WAITROOM_REDIS_PASSWORD read from the environment.
redis_url parse_url_from_env(std::string_view url);

}  // namespace waitroom::redis
