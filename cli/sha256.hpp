#pragma once
// SHA-256 (FIPS 180-4), for the content hash that shard files carry: shards of different
// scenarios must never merge. Small and dependency-free; tested against the FIPS vectors.
#include <string>
#include <string_view>

namespace waitroom::cli {

// The digest of `data` as 64 lowercase hex digits.
std::string sha256_hex(std::string_view data);

}  // namespace waitroom::cli
