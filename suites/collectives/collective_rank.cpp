// One rank of the collectives check: loads the device backends the check
// runs with (its run_config().backend_libraries, an argument: the
// loopback's PrivateUse1, a vendor's),
// joins the c10d backend serving the device type (gloo, or a c10d plugin:
// backends.h) through a c10d::FileStore, on index <rank> of the type (cpu:
// the cpu), prints "BACKEND <name>", and runs every
// collective (rank_reductions.cpp, rank_movement.cpp, rank_barrier.cpp,
// rank_streams.cpp, rank_precision.cpp) on
// every dtype at 1, 1000 (not a power of two) and 256 Ki elements
// (TDC_COLLECTIVE_LARGE=1: 16 Mi), printing one RESULT line per collective
// (rank_report.h). A dtype or collective the backend does not declare is a
// SKIP line naming what is missing. --smoke runs one float32 allreduce of
// 1000 elements (level 1). The parent (collectives.cpp) starts one per rank,
// so no torch thread is ever forked; faults that prove the check are in
// rank_faults.h and in the loopback's c10d backend (TDC_C10D_FAULT).
#include "backends.h"
#include "rank.h"
#include "rank_report.h"
#include "rank_values.h"

#include <torch/csrc/distributed/c10d/FileStore.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <string>

int main(int argc, char** argv) {
  using namespace tdc::collectives;
  const bool smoke = argc == 9 && std::strcmp(argv[8], "--smoke") == 0;
  if (argc != 8 && !smoke) {
    std::fprintf(stderr,
                 "usage: tdc_collective_rank <rank> <world> <store-file> <timeout-ms> <device-type number> "
                 "<candidates: gloo, nccl or plugin paths, ':'-separated> <device backends, ':'-separated> "
                 "[--smoke]\n");
    return 2;
  }
  Rank self;
  self.rank = std::atoi(argv[1]);
  self.world = std::atoi(argv[2]);
  const char* fault = std::getenv("TDC_COLLECTIVE_FAULT");
  self.fault = fault ? fault : "";
  try {
    load_device_backends(argv[7]);
    const auto type = static_cast<c10::DeviceType>(std::atoi(argv[5]));
    self.device = type == c10::DeviceType::CPU ? c10::Device(type) : c10::Device(type, static_cast<c10::DeviceIndex>(self.rank));
    self.store = c10::make_intrusive<c10d::FileStore>(argv[3], self.world);
    OpenedBackend opened = open_backend(argv[6], self.device, self.store, self.rank, self.world,
                                        std::chrono::milliseconds(std::atoi(argv[4])));
    self.pg = opened.backend.get();
    self.undeclared = opened.undeclared;
    self.prove_undeclared = opened.prove_undeclared;
    std::printf("BACKEND %s\n", self.pg->getBackendName().c_str());
    if (smoke) {
      self.current = "allreduce_sum Float 1000";
      return run_smoke(self);
    }
    const int64_t big = std::getenv("TDC_COLLECTIVE_LARGE") ? int64_t{16} << 20 : int64_t{256} << 10;
    int failures = run_barrier_holds(self) + run_stream_semantics(self);
    for (at::ScalarType dtype :
         {torch::kFloat, torch::kInt, torch::kBFloat16, torch::kHalf, torch::kChar, torch::kLong}) {
      if (auto why = self.undeclared("every_collective", dtype)) {
        failures += skip_undeclared(self, "every_collective", dtype, 1, *why, [&] {
          std::vector<at::Tensor> t{input(self.rank, self.world, 1, dtype, self.device)};
          self.pg->allreduce(t)->wait();
        });
        continue;
      }
      for (int64_t n : {int64_t{1}, int64_t{1000}, big}) {
        failures += run_reductions(self, dtype, n) + run_movement(self, dtype, n);
      }
    }
    failures += run_bfloat16_precision(self);
    return failures == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::string what = e.what();
    what = what.substr(0, what.find('\n'));
    // A backend that cannot be made here is the check's skip, with the reason.
    if (what.rfind("SKIP: ", 0) == 0) {
      std::printf("%s\n", what.c_str());
      return 77;
    }
    std::printf("ERROR rank=%d in %s: %s\n", self.rank, self.current.c_str(), what.c_str());
    return 1;
  }
}
