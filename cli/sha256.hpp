#pragma once
// SHA-256 (FIPS 180-4), for the content hash that shard files carry: shards of different
// scenarios must never merge. OpenSSL's where OpenSSL is linked (sha256_openssl.cpp); a small
// portable one in a build without it (sha256_portable.cpp); the unit tests check the one
// built against the FIPS vectors.
#include <string>
#include <string_view>

namespace waitroom::cli {

// The digest of `data` as 64 lowercase hex digits.
std::string sha256_hex(std::string_view data);

}  // namespace waitroom::cli
