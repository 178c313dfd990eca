#include "rank_report.h"

#include "rank_faults.h"

#include <cstdio>

namespace tdc::collectives {

int report(const Rank& self, const std::string& name, at::ScalarType dtype, int64_t n, at::Tensor got,
           const at::Tensor& want) {
  maybe_corrupt_result(self, got);
  const at::Tensor g = got.reshape({-1}).to(at::kCPU).to(torch::kDouble);
  const at::Tensor w = want.reshape({-1});
  const at::Tensor bad = g.ne(w);
  const int64_t wrong = bad.sum().item<int64_t>();
  std::printf("RESULT %s %s %lld wrong=%lld rank=%d", name.c_str(), c10::toString(dtype), static_cast<long long>(n),
              static_cast<long long>(wrong), self.rank);
  if (wrong > 0) {
    const int64_t first = bad.nonzero().select(1, 0)[0].item<int64_t>();
    std::printf(" first_wrong=%lld got=%.17g want=%.17g", static_cast<long long>(first), g[first].item<double>(),
                w[first].item<double>());
  }
  std::printf("\n");
  std::fflush(stdout);
  return wrong == 0 ? 0 : 1;
}

void skip(const std::string& name, at::ScalarType dtype, const std::string& why) {
  std::printf("SKIP %s %s: %s\n", name.c_str(), c10::toString(dtype), why.c_str());
  std::fflush(stdout);
}

}  // namespace tdc::collectives
