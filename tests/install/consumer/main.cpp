// Runs one replication of a scenario through the installed library and prints the number of
// users released and the mean wait, so the test can check them against the program's own run.
#include <cstdio>

#include "models/room/room.hpp"
#include "models/scenario/scenario.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: consumer SCENARIO\n");
    return 2;
  }
  using namespace waitroom::models;
  const scenario s = parse_scenario(read_json_file(argv[1]), argv[1], ".");
  const room_result r = run_scenario(s, s.seed);
  std::printf("released %llu mean %.9f\n", static_cast<unsigned long long>(r.overall.released),
              r.overall.wait_s.mean());
  return r.overall.released > 0 ? 0 : 1;
}
