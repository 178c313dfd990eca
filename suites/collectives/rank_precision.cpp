// How a bfloat16 SUM is rounded (allreduce_precision): rank 0 contributes
// 256·s and every other rank s (s = 2^(i mod 4) for element i), so the sum,
// s·(256 + world - 1), needs bits below bfloat16's 8. Accumulated in float32
// and rounded once it is the sum rounded to bfloat16; accumulated in
// bfloat16, every "+ s" on 256·s rounds away (a tie, to even), and the
// result is 256·s. Two contributions are rounded once either way: this
// takes three ranks (a world of two runs nothing here; the check says so).
//
// A ring (NCCL, gloo) reduces hop by hop in the wire's dtype and rounds at
// each hop: held to that bound, world-1 half-ulps, where the backend does
// not declare "allreduce_single_rounding" (tdc/c10d_plugin.h); a backend that
// declares it (the loopback: it reduces in float64) is held to one rounding.
#include "rank.h"
#include "rank_report.h"

#include <cmath>
#include <vector>

namespace tdc::collectives {

namespace {

constexpr const char* kName = "allreduce_precision";
constexpr int64_t kCount = 1000;

at::Tensor scale(int64_t n) {
  return torch::pow(2.0, torch::arange(n, torch::kLong).remainder(4).to(torch::kDouble));
}

// Half a bfloat16 ulp at |x| (x > 0): bfloat16 keeps 8 significant bits.
at::Tensor half_ulp(const at::Tensor& x) { return torch::pow(2.0, torch::floor(torch::log2(x)) - 8); }

}  // namespace

int run_bfloat16_precision(Rank& self) {
  if (self.world < 3) return 0;
  const at::ScalarType dtype = torch::kBFloat16;
  if (self.undeclared("every_collective", dtype) || self.undeclared("allreduce_sum", dtype)) return 0;
  const auto ring = self.undeclared("allreduce_single_rounding", dtype);
  const at::Tensor s = scale(kCount);
  std::vector<at::Tensor> t{(self.rank == 0 ? s * 256 : s).to(self.device, dtype)};
  self.enter(kName, dtype, kCount);
  self.pg->allreduce(t)->wait();
  const at::Tensor exact = s * (256 + self.world - 1);
  if (!ring) return report(self, kName, dtype, kCount, t[0], exact);  // rounded once, to bfloat16
  if (self.rank == 0) skip(kName, dtype, "single rounding not declared (" + *ring + "): held to one rounding per hop");
  return report_within(self, kName, dtype, kCount, t[0], exact, half_ulp(exact) * (self.world - 1));
}

}  // namespace tdc::collectives
