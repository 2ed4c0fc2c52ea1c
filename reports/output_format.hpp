#pragma once
// The formats a command's result is written in (--format), each listed once with its name.
// A command supplies a renderer per format it writes; cli/output_writer.hpp picks one.
#include <array>
#include <optional>
#include <string_view>

namespace waitroom::reports {

enum class output_format { table, json, csv, markdown };

// Every format, in the order --help and error messages list them.
inline constexpr std::array all_output_formats{output_format::table, output_format::json,
                                               output_format::csv, output_format::markdown};

// The name --format takes.
constexpr std::string_view to_string(output_format f) {
  switch (f) {
    case output_format::table:
      return "table";
    case output_format::json:
      return "json";
    case output_format::csv:
      return "csv";
    case output_format::markdown:
      return "markdown";
  }
  return "?";  // not reached: the switch names every format
}

// The format of that name, or none.
constexpr std::optional<output_format> output_format_named(std::string_view name) {
  for (const auto f : all_output_formats)
    if (to_string(f) == name) return f;
  return std::nullopt;
}

}  // namespace waitroom::reports
