// A device object alone moves nothing, and .to() copies: its source stays
// where it was, unchanged.
#include <ATen/ATen.h>

#include "placement.h"

namespace {

TEST_P(Placement, ToLeavesSourceWhereItWas) {
  const auto source = at::arange(12, at::kFloat).reshape({4, 3});
  const auto snapshot = source.clone();

  const c10::Device target = device();  // naming a device allocates nothing
  EXPECT_TRUE(source.device().is_cpu());

  const auto moved = source.to(target);
  EXPECT_EQ(moved.device(), target);
  EXPECT_TRUE(source.device().is_cpu()) << "to() moved its source";
  EXPECT_TRUE(at::equal(source, snapshot)) << "to() changed its source";
  EXPECT_TRUE(at::equal(moved.to(at::kCPU), snapshot)) << "the copy differs from its source";
}

}  // namespace
