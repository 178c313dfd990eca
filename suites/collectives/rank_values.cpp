#include "rank_values.h"

#include <stdexcept>

namespace tdc::collectives {

at::Tensor contribution(int r, int64_t n, at::ScalarType dtype) {
  const int64_t period = dtype == at::kChar ? 9 : 13;
  auto idx = torch::arange(n, torch::kLong);
  return ((idx * 7 + r * 3) % period + 1 + r).to(torch::kDouble);
}

at::Tensor contribution_for(c10d::ReduceOp::RedOpType op, int r, int world, int64_t n, at::ScalarType dtype) {
  if (op != c10d::ReduceOp::PRODUCT) return contribution(r, n, dtype);
  auto idx = torch::arange(n, torch::kLong);
  return (idx.remainder(world) == r).to(torch::kDouble) + 1;
}

at::Tensor reduced(c10d::ReduceOp::RedOpType op, int world, int64_t n, at::ScalarType dtype) {
  at::Tensor want = contribution_for(op, 0, world, n, dtype);
  for (int r = 1; r < world; ++r) {
    auto x = contribution_for(op, r, world, n, dtype);
    switch (op) {
      case c10d::ReduceOp::SUM:
      case c10d::ReduceOp::AVG: want = want + x; break;
      case c10d::ReduceOp::MAX: want = torch::maximum(want, x); break;
      case c10d::ReduceOp::MIN: want = torch::minimum(want, x); break;
      case c10d::ReduceOp::PRODUCT: want = want * x; break;
      default: throw std::logic_error("rank_values: no host reference for this reduce op");
    }
  }
  return op == c10d::ReduceOp::AVG ? want / world : want;
}

at::Tensor gathered(int world, int64_t n, at::ScalarType dtype) {
  std::vector<at::Tensor> parts;
  for (int r = 0; r < world; ++r) parts.push_back(contribution(r, n, dtype));
  return torch::cat(parts);
}

}  // namespace tdc::collectives
