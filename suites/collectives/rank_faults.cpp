#include "rank_faults.h"

#include <algorithm>
#include <chrono>
#include <thread>

namespace tdc::collectives {

namespace {
constexpr const char* kWrongContribution = "wrong-contribution=";
}

void maybe_hang(const Rank& self) {
  if (self.fault == "hang-rank=1" && self.rank == 1) {
    std::this_thread::sleep_for(std::chrono::hours(1));
  }
}

void maybe_corrupt_result(const Rank& self, at::Tensor& result) {
  if (self.fault == "wrong-chunk" && self.rank == 1) {
    auto flat = result.view({-1});
    int64_t chunk = std::max<int64_t>(1, flat.numel() / self.world);
    flat.narrow(0, 0, chunk).add_(1);
  }
}

void maybe_plant(const Rank& self, const std::string& family, at::Tensor& input) {
  const std::string prefix = kWrongContribution;
  if (self.rank != 1 || self.fault.rfind(prefix, 0) != 0) return;
  // The families are a comma-separated list; match one whole name.
  const std::string families = "," + self.fault.substr(prefix.size()) + ",";
  if (families.find("," + family + ",") != std::string::npos) {
    input.view({-1})[input.numel() / 3].add_(1);
  }
}

}  // namespace tdc::collectives
