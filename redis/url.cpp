#include "redis/url.hpp"

#include <charconv>
#include <cstdlib>

#include <fmt/format.h>

#include "redis/error.hpp"

namespace waitroom::redis {

namespace {

std::string quoted(std::string_view s) {
  return fmt::format("'{}'", s);
}

// The URL as it may be shown: any password replaced by ***.
std::string redacted(std::string_view url) {
  auto scheme = url.find("://");
  if (scheme == std::string_view::npos) return std::string(url);
  auto rest = url.substr(scheme + 3);
  auto at = rest.rfind('@');
  if (at == std::string_view::npos) return std::string(url);
  auto info = rest.substr(0, at);
  auto colon = info.find(':');
  std::string out(url.substr(0, scheme + 3));
  if (colon == std::string_view::npos) {
    out += info;  // a user alone is no secret
  } else {
    out += info.substr(0, colon);
    out += ":***";
  }
  out += rest.substr(at);
  return out;
}

[[noreturn]] void bad(std::string_view url, const std::string& expected, const std::string& found) {
  throw redis_error(error_kind::bad_url,
                    "--redis '" + redacted(url) + "': expected " + expected + ", found " + found);
}

std::string percent_decode(std::string_view url, std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    unsigned v = 0;
    if (i + 2 >= s.size()) bad(url, "two hex digits after '%'", "the end of the user info");
    auto r = std::from_chars(s.data() + i + 1, s.data() + i + 3, v, 16);
    if (r.ec != std::errc() || r.ptr != s.data() + i + 3)
      bad(url, "two hex digits after '%'", quoted(s.substr(i, 3)));
    out += static_cast<char>(v);
    i += 2;
  }
  return out;
}

int parse_int(std::string_view url, std::string_view s, const char* what, int lo, int hi) {
  int v = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size() || v < lo || v > hi)
    bad(url, fmt::format("{} (an integer in [{}, {}])", what, lo, hi), quoted(s));
  return v;
}

}  // namespace

std::string redis_url::describe() const {
  if (kind == transport::unix_socket)
    return db != 0 ? fmt::format("unix://{}?db={}", path, db) : fmt::format("unix://{}", path);
  std::string s = "redis://";
  if (!user.empty() || !password.empty()) {
    s += user;
    if (!password.empty()) s += ":***";
    s += "@";
  }
  bool v6 = host.find(':') != std::string::npos;
  s += v6 ? fmt::format("[{}]:{}", host, port) : fmt::format("{}:{}", host, port);
  if (db != 0) s += fmt::format("/{}", db);
  return s;
}

redis_url parse_url(std::string_view url, const char* env_password) {
  redis_url u;
  constexpr std::string_view tcp = "redis://", unix_scheme = "unix://";
  if (url.starts_with(unix_scheme)) {
    u.kind = redis_url::transport::unix_socket;
    auto rest = url.substr(unix_scheme.size());
    auto q = rest.find('?');
    u.path = std::string(rest.substr(0, q));
    if (u.path.empty() || u.path[0] != '/')
      bad(url, "an absolute socket path after unix:// (unix:///path/to/redis.sock)",
          u.path.empty() ? std::string("nothing") : "'" + u.path + "'");
    if (q != std::string_view::npos) {
      auto query = rest.substr(q + 1);
      if (!query.starts_with("db=")) bad(url, "?db=N", "'?" + std::string(query) + "'");
      u.db = parse_int(url, query.substr(3), "a database number", 0, 1 << 20);
    }
  } else if (url.starts_with(tcp)) {
    auto rest = url.substr(tcp.size());
    auto slash = rest.find('/');
    auto authority = rest.substr(0, slash);
    if (slash != std::string_view::npos)
      u.db = parse_int(url, rest.substr(slash + 1), "a database number after '/'", 0, 1 << 20);
    auto at = authority.rfind('@');
    if (at != std::string_view::npos) {
      auto info = authority.substr(0, at);
      auto colon = info.find(':');
      u.user = percent_decode(url, info.substr(0, colon));
      if (colon != std::string_view::npos) u.password = percent_decode(url, info.substr(colon + 1));
      authority = authority.substr(at + 1);
    }
    if (authority.starts_with("[")) {  // [IPv6]:port
      auto close = authority.find(']');
      if (close == std::string_view::npos) bad(url, "']' closing an IPv6 address", "none");
      u.host = std::string(authority.substr(1, close - 1));
      authority = authority.substr(close + 1);
      if (!authority.empty()) {
        if (authority[0] != ':') bad(url, "':port' after ']'", quoted(authority));
        u.port = parse_int(url, authority.substr(1), "a port", 1, 65535);
      }
    } else {
      auto colon = authority.find(':');
      u.host = std::string(authority.substr(0, colon));
      if (colon != std::string_view::npos)
        u.port = parse_int(url, authority.substr(colon + 1), "a port", 1, 65535);
    }
    if (u.host.empty()) bad(url, "a host name", "nothing");
  } else {
    auto scheme = url.find("://");
    bad(url, "redis://[user[:password]@]host[:port][/db] or unix:///path",
        scheme == std::string_view::npos ? std::string("no scheme")
                                         : "scheme '" + std::string(url.substr(0, scheme)) + "'");
  }
  if (u.password.empty() && env_password != nullptr) u.password = env_password;
  return u;
}

redis_url parse_url_from_env(std::string_view url) {
  return parse_url(url, std::getenv("WAITROOM_REDIS_PASSWORD"));
}

}  // namespace waitroom::redis
