#include "redis/signed_token.hpp"

#include <charconv>
#include <cstdlib>
#include <stdexcept>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include "redis/keys.hpp"
#include "sim/input_error.hpp"

namespace waitroom::redis {

namespace {

constexpr char hex_digits[] = "0123456789abcdef";

void tag_hex(const std::array<unsigned char, 32>& key, std::string_view msg, char* out) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
           reinterpret_cast<const unsigned char*>(msg.data()), msg.size(), mac, &len) == nullptr ||
      len != 32)
    throw std::runtime_error("HMAC-SHA256 failed");
  for (unsigned i = 0; i < 32; ++i) {
    out[2 * i] = hex_digits[mac[i] >> 4];
    out[2 * i + 1] = hex_digits[mac[i] & 15];
  }
}

}  // namespace

token_signer token_signer::from_env_or_random() {
  std::array<unsigned char, 32> key{};
  if (const char* env = std::getenv("WAITROOM_TOKEN_KEY"); env != nullptr) {
    std::string_view s(env);
    if (s.size() != 64)
      throw sim::input_error("WAITROOM_TOKEN_KEY", "64 hex digits (a 32-byte key)",
                             std::to_string(s.size()) + " characters");
    for (std::size_t i = 0; i < 32; ++i) {
      unsigned v = 0;
      auto r = std::from_chars(s.data() + 2 * i, s.data() + 2 * i + 2, v, 16);
      if (r.ec != std::errc() || r.ptr != s.data() + 2 * i + 2)
        throw sim::input_error("WAITROOM_TOKEN_KEY", "64 hex digits (a 32-byte key)",
                               "a non-hex character at position " + std::to_string(2 * i));
      key[i] = static_cast<unsigned char>(v);
    }
    return token_signer(key);
  }
  return random();
}

token_signer token_signer::random() {
  std::array<unsigned char, 32> key{};
  if (RAND_bytes(key.data(), static_cast<int>(key.size())) != 1)
    throw std::runtime_error("RAND_bytes failed: no key for signed tokens");
  return token_signer(key);
}

std::string token_signer::sign(std::uint64_t token) const {
  std::string m = hex_token(token);
  m.resize(member_size);
  m[16] = '.';
  tag_hex(key_, std::string_view(m.data(), 16), m.data() + 17);
  return m;
}

std::optional<std::uint64_t> token_signer::verify(std::string_view member) const {
  if (member.size() != member_size || member[16] != '.') return std::nullopt;
  std::uint64_t token = 0;
  for (std::size_t i = 0; i < 16; ++i) {
    char ch = member[i];
    unsigned d;
    if (ch >= '0' && ch <= '9')
      d = static_cast<unsigned>(ch - '0');
    else if (ch >= 'a' && ch <= 'f')
      d = static_cast<unsigned>(ch - 'a' + 10);
    else
      return std::nullopt;  // only the canonical lowercase form is ever issued
    token = (token << 4) | d;
  }
  char expected[64];
  tag_hex(key_, member.substr(0, 16), expected);
  if (CRYPTO_memcmp(expected, member.data() + 17, 64) != 0) return std::nullopt;
  return token;
}

}  // namespace waitroom::redis
