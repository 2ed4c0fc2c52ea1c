#pragma once
// Writing a command's result: to --out (atomically) or to stdout.
#include <string>

#include "options.hpp"

namespace waitroom::cli {

// The result to --out (atomically) or to stdout; returns the exit code.
int write_or_print(const common_args& a, const std::string& text);

}  // namespace waitroom::cli
