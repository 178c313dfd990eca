#include "rank_values.h"

#include <algorithm>
#include <stdexcept>

namespace tdc::collectives {

namespace {

// The largest integer every smaller one of which `dtype` holds exactly; an
// unknown dtype gets int8's, which every dtype holds.
int64_t exact_limit(at::ScalarType dtype) {
  switch (dtype) {
    case at::kByte: return 255;
    case at::kBFloat16: return 256;
    case at::kHalf: return 2048;
    case at::kFloat:
    case at::kDouble:
    case at::kInt:
    case at::kLong: return int64_t{1} << 24;
    default: return 127;
  }
}

int64_t gcd(int64_t a, int64_t b) { return b == 0 ? a : gcd(b, a % b); }

struct Pattern {
  int64_t period, offsets;  // P and Q of rank_values.h
};

// The largest period (coprime to 3, so 3r mod P takes P phases) whose
// pattern keeps `world` ranks distinct within limit / world; failing that,
// the one that keeps the most apart.
Pattern pattern_for(int world, at::ScalarType dtype) {
  const int64_t most = std::max<int64_t>(1, exact_limit(dtype) / std::max(world, 1));
  Pattern best{1, 1};
  int64_t best_distinct = 0;
  for (int64_t period : {13, 11, 8, 7, 5, 4, 2, 1}) {
    if (period > most) continue;
    const int64_t offsets = most - period + 1;
    const int64_t distinct = period / gcd(period, offsets) * offsets;  // lcm
    if (distinct >= world) return {period, offsets};
    if (distinct > best_distinct) best = {period, offsets}, best_distinct = distinct;
  }
  return best;
}

}  // namespace

at::Tensor contribution(int r, int world, int64_t n, at::ScalarType dtype) {
  const Pattern p = pattern_for(world, dtype);
  auto idx = torch::arange(n, torch::kLong);
  return ((idx * 7 + r * 3) % p.period + 1 + r % p.offsets).to(torch::kDouble);
}

at::Tensor contribution_for(c10d::ReduceOp::RedOpType op, int r, int world, int64_t n, at::ScalarType dtype) {
  if (op != c10d::ReduceOp::PRODUCT) return contribution(r, world, n, dtype);
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
  for (int r = 0; r < world; ++r) parts.push_back(contribution(r, world, n, dtype));
  return torch::cat(parts);
}

}  // namespace tdc::collectives
