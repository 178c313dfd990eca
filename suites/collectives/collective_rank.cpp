// One rank of the collectives check: joins a gloo process group through a
// c10d::FileStore and runs every collective (rank_reductions.cpp,
// rank_movement.cpp) on every dtype at 1, 1000 (not a power of two) and
// 256 Ki elements (TDC_COLLECTIVE_LARGE=1: 16 Mi), printing one RESULT line
// per collective (rank_report.h). A dtype or collective this LibTorch's gloo
// does not declare (tdc/compat/gloo.h) is a SKIP line naming what is
// missing. The parent (collectives.cpp) starts one per rank, so no torch
// thread is ever forked; faults that prove the check are in rank_faults.h.
#include "rank.h"
#include "rank_report.h"

#include "tdc/compat/gloo.h"

#include <torch/csrc/distributed/c10d/FileStore.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

int main(int argc, char** argv) {
  using namespace tdc::collectives;
  if (argc != 5) {
    std::fprintf(stderr, "usage: tdc_collective_rank <rank> <world> <store-file> <timeout-ms>\n");
    return 2;
  }
  Rank self;
  self.rank = std::atoi(argv[1]);
  self.world = std::atoi(argv[2]);
  const char* fault = std::getenv("TDC_COLLECTIVE_FAULT");
  self.fault = fault ? fault : "";
  try {
    auto store = c10::make_intrusive<c10d::FileStore>(argv[3], self.world);
    auto opts = c10d::ProcessGroupGloo::Options::create(std::chrono::milliseconds(std::atoi(argv[4])));
    opts->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
    c10d::ProcessGroupGloo pg(store, self.rank, self.world, opts);
    self.pg = &pg;
    const int64_t big = std::getenv("TDC_COLLECTIVE_LARGE") ? int64_t{16} << 20 : int64_t{256} << 10;
    int failures = 0;
    for (at::ScalarType dtype :
         {torch::kFloat, torch::kInt, torch::kBFloat16, torch::kHalf, torch::kChar, torch::kLong}) {
      if (auto why = tdc::compat::gloo_dtype_unsupported(dtype)) {
        skip("every_collective", dtype, *why);
        continue;
      }
      for (int64_t n : {int64_t{1}, int64_t{1000}, big}) {
        failures += run_reductions(self, dtype, n) + run_movement(self, dtype, n);
      }
    }
    return failures == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::string what = e.what();
    std::printf("ERROR rank=%d in %s: %s\n", self.rank, self.current.c_str(),
                what.substr(0, what.find('\n')).c_str());
    return 1;
  }
}
