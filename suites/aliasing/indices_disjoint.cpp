// Two devices of one type never hand out overlapping memory: allocations
// alternate between the indices, and every pair across them must be disjoint
// in address and keep its own values.
#include <ATen/ATen.h>

#include <cstdint>
#include <vector>

#include "independence.h"
#include "tdc/patterns.h"

namespace tdc::aliasing {
namespace {

struct Placed {
  at::Tensor tensor;
  at::Tensor expected;
};

bool overlap(const at::Tensor& a, const at::Tensor& b) {
  const auto start_a = reinterpret_cast<std::uintptr_t>(a.data_ptr());
  const auto start_b = reinterpret_cast<std::uintptr_t>(b.data_ptr());
  return start_a < start_b + b.nbytes() && start_b < start_a + a.nbytes();
}

}  // namespace

void expect_allocations_disjoint(const c10::Device& device, const c10::Device& other_device) {
  std::vector<Placed> here;
  std::vector<Placed> there;
  std::uint64_t salt = 23;
  // Largest first, so that each later, smaller block could fit inside any
  // earlier block of the other index.
  for (const int64_t elements : {int64_t{1} << 20, int64_t{1} << 14, int64_t{1} << 10}) {
    for (auto* side : {&here, &there}) {
      const auto where = side == &here ? device : other_device;
      auto expected = tdc::salted_pattern({elements}, at::kFloat, ++salt);
      side->push_back({expected.to(where), expected});
    }
  }
  for (const auto& mine : here) {
    for (const auto& theirs : there) {
      EXPECT_FALSE(overlap(mine.tensor, theirs.tensor))
          << mine.tensor.nbytes() << " bytes on " << device << " at " << mine.tensor.data_ptr()
          << " overlap " << theirs.tensor.nbytes() << " bytes on " << other_device << " at "
          << theirs.tensor.data_ptr();
    }
  }
  for (const auto* side : {&here, &there}) {
    for (const auto& placed : *side) {
      EXPECT_TRUE(tdc::same_elements(placed.tensor, placed.expected))
          << placed.tensor.nbytes() << " bytes on " << placed.tensor.device()
          << " no longer hold what was written";
    }
  }
}

}  // namespace tdc::aliasing
