#pragma once
// Writing a command's result: the one rule for the default format, the renderer the format
// picks, and the text to --out (atomically) or to stdout. A command supplies renderers and
// never decides between formats itself.
#include <functional>
#include <optional>
#include <span>
#include <string>

#include "options.hpp"
#include "reports/output_format.hpp"

namespace waitroom::cli {

using reports::output_format;

// A command's result in each format it writes; an empty one is a format it does not write
// (each defaults to empty, so a command names only the formats it has).
struct renderers {
  std::function<std::string()> table = nullptr;
  std::function<std::string()> json = nullptr;
  std::function<std::string()> csv = nullptr;
  std::function<std::string()> markdown = nullptr;
};

// The one rule for the default: json when the result goes to a file (--out), else table.
constexpr output_format default_format(bool to_file) {
  return to_file ? output_format::json : output_format::table;
}
// --format when given, else the default.
output_format format_of(const common_args& a);

// "table, json or csv".
std::string format_names(std::span<const output_format> formats);
// --format's text as one of `accepted`, else input_error naming --format, what it accepts and
// what it found.
output_format parse_format(const std::string& text, std::span<const output_format> accepted);

// The result rendered in `format` and written to `out` (atomically) or to stdout; returns the
// exit code. A format `r` has no renderer for is refused (input_error naming --format and the
// formats it has) before anything is written.
int write_result(const std::optional<std::string>& out, output_format format, const renderers& r);
// Text that has one format whatever --format says (a shard file), written the same way.
int write_text(const std::optional<std::string>& out, const std::string& text);

}  // namespace waitroom::cli
