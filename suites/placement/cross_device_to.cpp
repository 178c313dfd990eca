// A copy between two devices of one type lands on the target index, exactly.
#include <ATen/ATen.h>

#include "tdc/fixtures.h"

namespace {

using PlacementAcrossDevices = tdc::DevicePairTest;

TEST_P(PlacementAcrossDevices, ToAnotherIndexIsExact) {
  const auto host = at::arange(4096, at::kFloat).mul_(0.37f).sin_();
  const auto here = host.to(device());
  const auto there = here.to(other_device());
  EXPECT_EQ(here.device(), device());
  EXPECT_EQ(there.device(), other_device());
  EXPECT_TRUE(at::equal(there.to(at::kCPU), host));
  const auto back = there.to(device());
  EXPECT_EQ(back.device(), device());
  EXPECT_TRUE(at::equal(back.to(at::kCPU), host));
}

TDC_INSTANTIATE_DEVICE_TEST_SUITE(PlacementAcrossDevices);

}  // namespace
