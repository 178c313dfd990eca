#pragma once
// What one world of ranks reported (world.h), read once per device type and
// process and shared by every collectives check: each check judges its own
// collectives' RESULT lines, and Collectives.WorldRunsToTheEnd owns what
// went wrong with the world itself (a rank that errored, hung, or exited
// badly), which the other checks then name as their prerequisite.
#include <c10/core/Device.h>

#include <string>
#include <vector>

namespace tdc::collectives {

// "RESULT <collective> <dtype> <count> wrong=<k> rank=<r> ...".
struct ResultLine {
  std::string collective;
  long long wrong = 0;
  std::string text;  // the line without "RESULT "
};

struct WorldResults {
  int world = 0;                       // ranks started
  std::string skip;                    // why no world could run here (every check skips with it)
  std::string backend;                 // the c10d backend that served (its BACKEND line)
  std::vector<ResultLine> results;     // every rank's
  std::vector<std::string> skips;      // rank 0's SKIP lines: undeclared capabilities
  std::vector<std::string> problems;   // the world's own failures, one line each
};

// The world of `device`'s type, run on first use: its size (2 on cpu, else
// every index of the type, one on a host with one device), the c10d backend candidates (candidates.h) and
// `smoke` (the smoke check's one allreduce) decide it.
const WorldResults& world_results(const c10::Device& device, bool smoke);

}  // namespace tdc::collectives
