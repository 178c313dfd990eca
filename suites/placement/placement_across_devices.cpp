// A copy between two devices of one type lands on the target index, exactly.
#include <ATen/ATen.h>

#include "tdc/copy_steps.h"
#include "tdc/fixtures.h"

namespace {

using PlacementAcrossDevices = tdc::DevicePairTest;

TEST_P(PlacementAcrossDevices, ToAnotherIndexIsExact) {
  const auto host = at::arange(4096, at::kFloat).mul_(0.37f).sin_();
  const auto here = tdc::journal_copy(host, device()).to(device());
  const auto there = tdc::journal_copy(here, other_device()).to(other_device());
  EXPECT_EQ(here.device(), device());
  EXPECT_EQ(there.device(), other_device());
  EXPECT_TRUE(at::equal(tdc::journal_copy(there, at::kCPU).to(at::kCPU), host));
  const auto back = tdc::journal_copy(there, device()).to(device());
  EXPECT_EQ(back.device(), device());
  EXPECT_TRUE(at::equal(tdc::journal_copy(back, at::kCPU).to(at::kCPU), host));
}

TDC_INSTANTIATE_DEVICE_TEST_SUITE(PlacementAcrossDevices);

}  // namespace
