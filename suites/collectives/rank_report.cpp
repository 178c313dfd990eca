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

int skip_undeclared(const Rank& self, const std::string& name, at::ScalarType dtype, int64_t n,
                    const std::string& why, const std::function<void()>& attempt) {
  if (n != 1) return 0;
  if (!self.prove_undeclared || !attempt) {
    skip(name, dtype, why);
    return 0;
  }
  try {
    attempt();
  } catch (const std::exception&) {
    skip(name, dtype, why + " (confirmed: it throws)");
    return 0;
  }
  std::printf("ERROR rank=%d in %s %s 1: declared missing (%s), yet it ran: tdc/compat/gloo.h is out of date for "
              "this LibTorch\n",
              self.rank, name.c_str(), c10::toString(dtype), why.c_str());
  std::fflush(stdout);
  return 1;
}

}  // namespace tdc::collectives
