// The lottery's prefetch helpers in functions of their own (tests/bench/CMakeLists.txt checks
// their disassembly, and that of queues::take_planned). gcc 12's ipa-modref pass ignores a
// prefetch's effect, finds a helper made of prefetches free of side effects and deletes its
// calls where it was not inlined: users::prefetch compiled to nothing, and the lottery paid a
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
