#pragma once
// Signed tokens: the member is the token's 16 hex digits, '.', and the 64 hex digits of
// HMAC-SHA256(key, those 16 digits), so a user can neither guess nor forge another's place.
// The token comes first: members still sort by token (the model's tie-break order).
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace waitroom::redis {

class token_signer {
 public:
  static constexpr std::size_t member_size = 16 + 1 + 64;

  // The key: 32 bytes from WAITROOM_TOKEN_KEY (64 hex digits) when set, else generated from
  // the system's random source. It is never written out.
  static token_signer from_env_or_random();
  // A fresh key from the system's random source, whatever the environment holds (two calls:
  // two different keys, as two deployments would have).
  static token_signer random();
  explicit token_signer(std::array<unsigned char, 32> key) : key_(key) {}

  std::string sign(std::uint64_t token) const;
  // The token if `member` is a well-formed member with a valid tag (constant-time compare),
  // nullopt otherwise.
  std::optional<std::uint64_t> verify(std::string_view member) const;

 private:
  std::array<unsigned char, 32> key_;
};

}  // namespace waitroom::redis
