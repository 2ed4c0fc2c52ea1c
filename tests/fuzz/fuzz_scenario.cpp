// libFuzzer harness: the scenario reader with --set overrides. The input is a scenario's
// JSON text, then optionally a NUL byte and one `/pointer=value` override per line. Bad input
// must end in sim::input_error (the CLI's exit 2); any other exception, a crash or a
// sanitizer report is a bug. A scenario that loads must load again, identically, from the
// effective scenario it writes back (what `validate` prints and results echo).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "models/scenario/scenario.hpp"
#include "sim/input_error.hpp"

namespace {
namespace m = waitroom::models;

void load_and_echo(std::string_view text) {
  const auto nul = text.find('\0');
  nlohmann::json j = m::parse_json_text(std::string(text.substr(0, nul)), "fuzz.json");
  if (nul != std::string_view::npos) {
    std::string_view sets = text.substr(nul + 1);
    while (!sets.empty()) {
      const auto nl = sets.find('\n');
      m::apply_override(j, std::string(sets.substr(0, nl)));
      if (nl == std::string_view::npos) break;
      sets.remove_prefix(nl + 1);
    }
  }
  // Relative trace files resolve under a folder that does not exist: no file is read.
  const m::scenario s = m::parse_scenario(j, "fuzz.json", "/nonexistent-fuzz-dir");
  if (s.arrivals.kind == m::arrival_kind::trace) return;  // its echo names the trace file
  const nlohmann::json echoed = m::to_json(s);
  m::scenario again;
  try {
    again = m::parse_scenario(echoed, "echo.json", "/nonexistent-fuzz-dir");
  } catch (const waitroom::sim::input_error& e) {
    std::fprintf(stderr, "the effective scenario is refused: %s\n%s\n", e.what(),
                 echoed.dump().c_str());
    std::abort();
  }
  if (m::to_json(again) != echoed) {
    std::fprintf(stderr, "the effective scenario changes when read again:\n%s\n%s\n",
                 echoed.dump().c_str(), m::to_json(again).dump().c_str());
    std::abort();
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    load_and_echo(std::string_view(reinterpret_cast<const char*>(data), size));
  } catch (const waitroom::sim::input_error&) {
    // bad input, reported as the CLI does: exit 2
  }
  return 0;
}
