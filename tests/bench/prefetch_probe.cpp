// The lottery's prefetches, compiled as the engine compiles them (tests/bench/CMakeLists.txt
// checks the disassembly). gcc takes a function whose body is only prefetches for const and
// drops every call to it, so users::prefetch once compiled to nothing and the lottery paid a
// cache miss per drawn user for it (docs/perf.md, session 15).
#include <cstdint>

#include "models/users/users.hpp"
#include "sim/serial_table.hpp"

extern "C" {
// Three prefetches expected: the entry time, the class and the list of the user.
[[gnu::used, gnu::noinline]] void waitroom_probe_user_prefetch(const waitroom::models::users& u,
                                                               std::uint32_t user) {
  u.prefetch(user);
}
// One prefetch expected.
[[gnu::used, gnu::noinline]] void waitroom_probe_table_prefetch(
    const waitroom::sim::serial_table<std::int64_t>& t, std::uint32_t i) {
  t.prefetch(i);
}
}

int main() {
  return 0;
}
