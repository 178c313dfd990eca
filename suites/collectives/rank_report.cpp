#include "rank_report.h"

#include "rank_faults.h"

#include <cstdio>

namespace tdc::collectives {

namespace {

// The RESULT line of `bad` (true where an element is wrong); 1 if any is.
int print_result(const Rank& self, const std::string& name, at::ScalarType dtype, int64_t n, const at::Tensor& g,
                 const at::Tensor& w, const at::Tensor& bad) {
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

at::Tensor as_host_double(at::Tensor got) { return got.reshape({-1}).to(at::kCPU).to(torch::kDouble); }

}  // namespace

int report(const Rank& self, const std::string& name, at::ScalarType dtype, int64_t n, at::Tensor got,
           const at::Tensor& want) {
  maybe_corrupt_result(self, got);
  const at::Tensor g = as_host_double(got);
  at::Tensor w = want.reshape({-1});
  if (c10::isFloatingType(dtype)) w = w.to(dtype).to(torch::kDouble);
  return print_result(self, name, dtype, n, g, w, g.ne(w));
}

int report_within(const Rank& self, const std::string& name, at::ScalarType dtype, int64_t n, at::Tensor got,
                  const at::Tensor& want, const at::Tensor& tolerance) {
  maybe_corrupt_result(self, got);
  const at::Tensor g = as_host_double(got);
  const at::Tensor w = want.reshape({-1});
  return print_result(self, name, dtype, n, g, w, (g - w).abs().gt(tolerance));
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
