#pragma once
// One world of rank processes (tdc_collective_rank), started and judged by
// the collectives check: posix_spawn (never fork after torch threads exist),
// a c10d::FileStore and the ranks' TMPDIR in a fresh folder removed after, a
// deadline, and every rank reaped by PID. A rank still running once a peer
// has exited and the backend's timeout (plus a grace) has passed is hung.
#include <string>
#include <vector>

namespace tdc::collectives {

// Each rank's collective times out after this; the check waits this long
// past the first rank's exit before it names the rest hung.
constexpr int kBackendTimeoutMs = 5000;
// The whole world's deadline, for a world in which no rank exits; generous,
// a verdict never depends on speed.
constexpr int kWorldDeadlineSeconds = 300;

struct RankOutcome {
  std::string output;  // stdout and stderr
  int status = -1;     // waitpid's status
  bool hung = false;   // killed: still running after a peer exited and the timeout passed,
                       // or at the world's deadline
  bool past_deadline = false;  // killed at the world's deadline, with no rank exited
  long pid = -1;
};

// Runs `world` ranks of `rank_program` (tdc_collective_rank) on the device type `type` (c10::DeviceType's number),
// each with the c10d backend candidates `candidates` (':'-separated: "gloo",
// plugin paths; the first that serves the type wins) and the device backends
// `device_libraries` (':'-separated: the check's own); `smoke` runs level 1's
// one allreduce. `error` says why no world ran.
std::vector<RankOutcome> run_world(const std::string& rank_program, int type, const std::string& candidates,
                                   const std::string& device_libraries, int world, bool smoke, std::string* error);

}  // namespace tdc::collectives
