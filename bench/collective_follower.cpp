// Rank 1.. of a tdc_bench_collectives world: loads the leader's device
// backends, joins the world's c10d backend through its FileStore, then does
// what the leader's commands say until 'done'. Prints nothing but its
// failure ("ERROR rank=<r> in <command>: <what>", or the "SKIP: " line of a
// device type no backend serves), which the leader reads from its output
// file. If the leader is gone (reparented), it leaves.
#include "collective_world.h"

#include "tdc/text.h"

#include <torch/csrc/distributed/c10d/FileStore.hpp>

#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace tdc::bench::collectives {
namespace {

// Waits for `key`, a second at a time, as long as the leader that started
// this rank is still its parent.
void await_command(Member& self, const std::string& key, pid_t leader) {
  for (;;) {
    try {
      self.store->wait({key}, std::chrono::milliseconds(1000));
      return;
    } catch (const std::exception&) {
      if (getppid() != leader) {
        throw std::runtime_error("the leader (pid " + std::to_string(leader) + ") is gone");
      }
    }
  }
}

}  // namespace

int follower_main(int argc, char** argv) {
  if (argc != 9) {
    std::fprintf(stderr,
                 "usage: %s %s <rank> <world> <store-file> <timeout-ms> <device-type number> <c10d candidates> "
                 "<device backend libraries>\n(started by tdc_bench_collectives itself)\n",
                 argv[0], kFollowerFlag);
    return 2;
  }
  Member self;
  self.rank = std::atoi(argv[2]);
  self.world = std::atoi(argv[3]);
  const pid_t leader = getppid();
  std::string current = "rendezvous";
  try {
    tdc::collectives::load_device_backends(argv[8]);
    const auto type = static_cast<c10::DeviceType>(std::atoi(argv[6]));
    self.device = type == c10::DeviceType::CPU ? c10::Device(type)
                                               : c10::Device(type, static_cast<c10::DeviceIndex>(self.rank));
    self.store = c10::make_intrusive<::c10d::FileStore>(argv[4], self.world);
    self.backend = ::tdc::collectives::open_backend(argv[7], self.device, self.store, self.rank, self.world,
                                                    std::chrono::milliseconds(std::atoll(argv[5])))
                       .backend;
    for (std::int64_t seq = 0;; ++seq) {
      const std::string key = command_key(seq);
      current = "waiting for command " + std::to_string(seq);
      await_command(self, key, leader);
      const auto value = self.store->get(key);
      const Command command = Command::parse(std::string(value.begin(), value.end()));
      if (command.kind == Command::Kind::kDone) break;
      current = command.text();
      execute(self, command, seq);
    }
    self.buffers = Buffers{};
    self.backend.reset();
    return 0;
  } catch (const c10::Error& e) {
    std::printf("ERROR rank=%d in %s: %s\n", self.rank, current.c_str(), first_line(e.what_without_backtrace()).c_str());
  } catch (const std::exception& e) {
    const std::string what = first_line(e.what());
    if (what.rfind("SKIP: ", 0) == 0) {
      std::printf("%s\n", what.c_str());
      return 77;
    }
    std::printf("ERROR rank=%d in %s: %s\n", self.rank, current.c_str(), what.c_str());
  }
  std::fflush(stdout);
  // Not through exit(): its backend may sit in a collective whose peer is gone.
  std::_Exit(1);
}

}  // namespace tdc::bench::collectives
