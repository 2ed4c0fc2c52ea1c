#include "output_writer.hpp"

#include <fmt/format.h>

#include "commands.hpp"
#include "output_file.hpp"

namespace waitroom::cli {

int write_or_print(const common_args& a, const std::string& text) {
  if (!a.out) {
    fmt::print("{}", text);
    return exit_ok;
  }
  if (!write_atomically(*a.out, text)) {
    fmt::print(stderr, "waitroom: {}: could not write the result file ({})\n", *a.out,
               last_write_error());
    return exit_output;
  }
  return exit_ok;
}

}  // namespace waitroom::cli
