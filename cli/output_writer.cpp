#include "output_writer.hpp"

#include <cstdio>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "commands.hpp"
#include "output_file.hpp"
#include "sim/input_error.hpp"

namespace waitroom::cli {

namespace {

// The renderer of `format`. No default: a new format is a compile error here until it has
// its case.
const std::function<std::string()>& renderer_of(const renderers& r, output_format format) {
  switch (format) {
    case output_format::table:
      return r.table;
    case output_format::json:
      return r.json;
    case output_format::csv:
      return r.csv;
    case output_format::markdown:
      return r.markdown;
  }
  throw std::logic_error("renderer_of: a format without its case");
}

}  // namespace

output_format format_of(const common_args& a) {
  return a.format.value_or(default_format(a.out.has_value()));
}

std::string format_names(std::span<const output_format> formats) {
  std::string out;
  for (std::size_t i = 0; i < formats.size(); ++i) {
    if (i > 0) out += i + 1 == formats.size() ? " or " : ", ";
    out += to_string(formats[i]);
  }
  return out;
}

output_format parse_format(const std::string& text, std::span<const output_format> accepted) {
  const auto f = reports::output_format_named(text);
  for (const auto a : accepted)
    if (f == a) return a;
  throw sim::input_error("--format", format_names(accepted), "'" + text + "'");
}

int write_result(const std::optional<std::string>& out, output_format format, const renderers& r) {
  const auto& render = renderer_of(r, format);
  if (!render) {
    std::vector<output_format> written;
    for (const auto f : reports::all_output_formats)
      if (renderer_of(r, f)) written.push_back(f);
    throw sim::input_error("--format", format_names(written),
                           "'" + std::string(to_string(format)) + "'");
  }
  return write_text(out, render());
}

int write_text(const std::optional<std::string>& out, const std::string& text) {
  if (!out) {
    fmt::print("{}", text);
    std::fflush(stdout);
    return exit_ok;
  }
  if (!write_atomically(*out, text)) {
    fmt::print(stderr, "waitroom: {}: could not write the result file ({})\n", *out,
               last_write_error());
    return exit_output;
  }
  return exit_ok;
}

}  // namespace waitroom::cli
