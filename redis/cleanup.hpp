#pragma once
// A run's keys are deleted when it fails, as when it succeeds (unless --redis-keep).
#include <exception>
#include <utility>

#include "redis/connection.hpp"
#include "redis/keys.hpp"
#include "redis/url.hpp"

namespace waitroom::redis {

// Returns f(); when f throws, UNLINKs every key under `keys` unless `keep`, then rethrows.
// On a fresh connection: the one that failed may be broken or still have replies in flight.
// A failure of the clean-up itself is swallowed, so the error reported is the first one.
template <class F>
decltype(auto) deleting_keys_on_error(const redis_url& url, const key_layout& keys, bool keep,
                                      const connect_options& opt, F&& f) {
  try {
    return std::forward<F>(f)();
  } catch (...) {
    if (!keep) {
      try {
        connection cleanup(url, opt);
        delete_keys(cleanup, keys);
      } catch (const std::exception&) {  // the first error is the one to report
      }
    }
    throw;
  }
}

}  // namespace waitroom::redis
