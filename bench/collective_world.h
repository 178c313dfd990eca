#pragma once
// One world of a device type for tdc_bench_collectives: this process is rank
// 0 (the leader, running Google Benchmark); ranks 1.. are this program again
// in follower mode (collective_follower.cpp), started with posix_spawn
// (never fork once torch threads may exist), rendezvousing through a
// c10d::FileStore in the world's own folder under TMPDIR, and reaped by PID.
// Every collective a benchmark times is a Command the leader hands every rank
// (collective_member.h).
#include "backends.h"  // suites/collectives: gloo or a c10d plugin (tdc_c10d_backends)
#include "collective_member.h"

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace tdc::bench::collectives {

// argv[1] of a follower: the program started as rank 1.. of a world.
constexpr const char* kFollowerFlag = "--tdc-collectives-follower";

// The longest one collective (or the rendezvous) may take before the backend
// throws: 1 GiB through the loopback's files on a loaded 2-core host takes
// seconds; no verdict depends on speed, only a hang is caught by it.
constexpr std::chrono::milliseconds kBackendTimeout{120000};

// A fresh folder under TMPDIR (or /tmp), made this process's TMPDIR so that
// its ranks and their backends (the loopback's exchange files) keep their
// files there; the caller removes it. Call first in main(), before any
// thread exists: setenv beside a thread reading the environment is unsafe.
// Throws std::runtime_error with one line.
std::string make_session_folder();

// The follower's main (collective_follower.cpp).
int follower_main(int argc, char** argv);

class World {
 public:
  World(c10::DeviceType type, int size);

  // Starts the followers and joins as rank 0 with the first of `candidates`
  // (backends.h) that serves the type; `device_libraries` are loaded by each
  // follower (the leader's --backend-lib / TDC_BACKEND_LIBS). Throws
  // std::runtime_error with one line, starting "SKIP: " when no backend
  // serves the type; the followers are reaped before it throws.
  void start(const std::string& candidates, const std::vector<std::string>& device_libraries);

  const std::string& type_name() const { return type_name_; }
  int size() const { return size_; }
  bool device_is_cpu() const { return self_.device.is_cpu(); }
  std::string backend_name() const;
  // Why the backend does not declare the float32 collective `capability`
  // (backends.h's names: "allreduce_sum", "allgather_into_tensor"), or nullopt.
  std::optional<std::string> undeclared(const std::string& capability) const;

  // Every rank runs `command`; returns rank 0's seconds (execute()). The
  // first failure breaks the world: this and every later call throw
  // std::runtime_error naming it, with what the followers said.
  double run(const Command& command);
  // Every rank checks one call of `op`; returns the wrong elements of all ranks' results.
  std::int64_t verify(Op op, std::int64_t elements);
  // Makes every later run() throw `why` (a world that could not start).
  void mark_broken(const std::string& why) { broken_ = why; }

  // Hands the followers 'done', reaps them (killing any still there after
  // a deadline), then releases rank 0's buffers and backend. Returns what
  // went wrong, one line each; nothing for a world that never started.
  std::vector<std::string> finish();

 private:
  [[noreturn]] void fail(const std::string& what);
  // "; rank 1: <its ERROR line>" for each follower that said or suffered something.
  std::string followers_said();
  bool reap(int r, bool block);  // true once follower r has exited
  void kill_followers();

  c10::DeviceType type_;
  std::string type_name_;
  int size_;
  std::string folder_;
  Member self_;
  ::tdc::collectives::Undeclared undeclared_;
  std::vector<pid_t> pids_;    // [r] for r >= 1; -1 when none
  std::vector<int> statuses_;  // waitpid's; -1 while running
  std::int64_t next_seq_ = 0;
  bool started_ = false;
  std::string broken_;
};

}  // namespace tdc::bench::collectives
