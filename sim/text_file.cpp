#include "sim/text_file.hpp"

#include <array>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "sim/input_error.hpp"

namespace waitroom::sim {

namespace {

bool starts_with(const std::string& s, std::initializer_list<unsigned char> bytes) {
  if (s.size() < bytes.size()) return false;
  std::size_t i = 0;
  for (unsigned char b : bytes)
    if (static_cast<unsigned char>(s[i++]) != b) return false;
  return true;
}

std::string hex_byte(unsigned char b) {
  constexpr std::string_view digits = "0123456789ABCDEF";
  return {digits[b >> 4], digits[b & 0xF]};
}

}  // namespace

void check_text(const std::string& text, const std::string& name) {
  const char* expected = "UTF-8 text";
  // Longest marks first: UTF-32 LE begins with UTF-16 LE's.
  if (starts_with(text, {0xFF, 0xFE, 0x00, 0x00}) || starts_with(text, {0x00, 0x00, 0xFE, 0xFF}))
    throw input_error(name, expected, "UTF-32 (a byte-order mark)", "save the file as UTF-8");
  if (starts_with(text, {0xFF, 0xFE}) || starts_with(text, {0xFE, 0xFF}))
    throw input_error(name, expected, "UTF-16 (a byte-order mark)", "save the file as UTF-8");
  if (starts_with(text, {0xEF, 0xBB, 0xBF}))
    throw input_error(name, "UTF-8 text without a byte-order mark",
                      "a UTF-8 byte-order mark (EF BB BF) at the start",
                      "save the file as UTF-8 without BOM");
  if (const void* nul = std::memchr(text.data(), 0, text.size())) {
    const auto at = static_cast<std::size_t>(static_cast<const char*>(nul) - text.data());
    // ASCII in UTF-16 has every other byte 0 (and /dev/zero every byte).
    const bool utf16 = text.size() >= 2 && (text[0] == '\0') != (text[1] == '\0');
    throw input_error(name, expected,
                      utf16 ? "UTF-16 (NUL bytes between the letters)"
                            : "a NUL byte at byte " + std::to_string(at) + " (a binary file?)",
                      utf16 ? "save the file as UTF-8" : "");
  }
}

std::size_t first_non_utf8(std::string_view text) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  std::size_t i = 0;
  while (i < text.size()) {
    const unsigned char b = byte(i);
    if (b < 0x80) {
      ++i;
      continue;
    }
    // The sequence's length and the range of its second byte (RFC 3629, section 4).
    std::size_t len = 0;
    unsigned char lo = 0x80, hi = 0xBF;
    if (b >= 0xC2 && b <= 0xDF) {
      len = 2;
    } else if (b >= 0xE0 && b <= 0xEF) {
      len = 3;
      if (b == 0xE0) lo = 0xA0;  // overlong
      if (b == 0xED) hi = 0x9F;  // surrogates
    } else if (b >= 0xF0 && b <= 0xF4) {
      len = 4;
      if (b == 0xF0) lo = 0x90;  // overlong
      if (b == 0xF4) hi = 0x8F;  // past U+10FFFF
    } else {
      return i;
    }
    if (i + len > text.size()) return i;
    if (byte(i + 1) < lo || byte(i + 1) > hi) return i;
    for (std::size_t k = 2; k < len; ++k)
      if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return i;
    i += len;
  }
  return std::string_view::npos;
}

void require_utf8(const std::string& name, std::string_view text) {
  const std::size_t at = first_non_utf8(text);
  if (at == std::string_view::npos) return;
  throw input_error(name, "UTF-8 text",
                    "the byte 0x" + hex_byte(static_cast<unsigned char>(text[at])) + " at byte " +
                        std::to_string(at) + ", which is not UTF-8");
}

std::string unprintable_name(std::string_view text) {
  if (text.find_first_not_of(" \t") == std::string_view::npos)
    return text.empty() ? "an empty name" : "a blank name";
  for (std::size_t i = 0; i < text.size();) {
    const auto b = static_cast<unsigned char>(text[i]);
    char32_t cp = b;
    std::size_t len = 1;
    if (b >= 0xF0) {
      len = 4;
      cp = b & 0x07u;
    } else if (b >= 0xE0) {
      len = 3;
      cp = b & 0x0Fu;
    } else if (b >= 0xC0) {
      len = 2;
      cp = b & 0x1Fu;
    }
    for (std::size_t k = 1; k < len && i + k < text.size(); ++k)
      cp = (cp << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3Fu);
    const bool control = cp < 0x20 || (cp >= 0x7F && cp <= 0x9F);
    const bool bidi = cp == 0x061C || cp == 0x200E || cp == 0x200F ||
                      (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
    if (control || bidi) {
      std::array<char, 16> code{};
      std::snprintf(code.data(), code.size(), "U+%04X", static_cast<unsigned>(cp));
      return std::string(control ? "the control character " : "the bidirectional control ") +
             code.data() + " at byte " + std::to_string(i);
    }
    i += len;
  }
  return {};
}

std::string read_text_file(const std::string& path, const std::string& what,
                           std::size_t max_bytes) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw input_error(path, what, "a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw input_error(path, "a readable " + what.substr(what.find(' ') + 1),
                      "no such file or no permission");
  std::string text;
  std::string chunk(std::size_t{1} << 16, '\0');
  while (in) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    const auto got = static_cast<std::size_t>(in.gcount());
    if (got == 0) break;
    // Checked as it comes, so /dev/zero or a binary stream is refused at once.
    if (std::memchr(chunk.data(), 0, got) != nullptr || text.empty()) {
      std::string head = text + chunk.substr(0, got);
      check_text(head, path);
    }
    if (text.size() + got > max_bytes)
      throw input_error(path, what + " of at most " + std::to_string(max_bytes >> 20) + " MiB",
                        "more (an endless stream?)");
    text.append(chunk.data(), got);
  }
  if (in.bad())
    throw input_error(path, "a readable " + what.substr(what.find(' ') + 1), "a read error");
  check_text(text, path);
  return text;
}

}  // namespace waitroom::sim
