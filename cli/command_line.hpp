#pragma once
// The arguments of a command with options of its own (fit, import, report): parsed by
// Boost.Program_options, every word not an option going to `positional`, and what the parser
// refuses said as bad input naming the command.
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "sim/input_error.hpp"

namespace waitroom::cli {

inline boost::program_options::variables_map parse_command_line(
    const std::vector<std::string>& args, const boost::program_options::options_description& opts,
    const char* positional, const std::string& command) {
  namespace po = boost::program_options;
  po::positional_options_description pos;
  pos.add(positional, -1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(opts).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw sim::input_error(command, "valid arguments (see " + command + " --help)", e.what());
  }
  return vm;
}

}  // namespace waitroom::cli
