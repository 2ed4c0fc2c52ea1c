#pragma once
// Reads a whole input file (scenario, trace, shard, result) as UTF-8 text, refusing what is
// not: a directory, a NUL byte (a binary file, /dev/zero), UTF-16 or UTF-32, a byte-order
// mark, or more than `max_bytes` (an endless stream). Throws input_error naming the file.
#include <cstddef>
#include <string>
#include <string_view>

namespace waitroom::sim {

inline constexpr std::size_t max_input_file_bytes = std::size_t{1} << 30;  // 1 GiB

// `what` names the expected file in errors: "a scenario file", "a CSV trace file".
std::string read_text_file(const std::string& path, const std::string& what,
                           std::size_t max_bytes = max_input_file_bytes);
// The same checks on text already read (`name` in errors).
void check_text(const std::string& text, const std::string& name);
// The offset of the first byte that does not belong to well-formed UTF-8 (RFC 3629: no
// overlong forms, surrogates or code points past U+10FFFF), or npos. JSON text must be UTF-8:
// a string holding anything else cannot be written back (nlohmann's dump throws).
std::size_t first_non_utf8(std::string_view text);
// Throws input_error naming `name` (a flag, a file) unless `text` is well-formed UTF-8.
void require_utf8(const std::string& name, std::string_view text);
// Why `text` cannot be a name printed to a terminal, or "" when it can: empty or blank, a
// control character (C0, DEL, C1: a newline or BEL reaches the terminal raw), or a
// bidirectional control (U+061C, U+200E/F, U+202A-U+202E, U+2066-U+2069: an override reverses
// the rest of the line it is printed in). `text` is well-formed UTF-8.
std::string unprintable_name(std::string_view text);

}  // namespace waitroom::sim
