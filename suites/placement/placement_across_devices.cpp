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
  EXPECT_EQ(here.device(), device()) << "a host tensor moved to " << device() << " landed on " << here.device();
  EXPECT_EQ(there.device(), other_device())
      << "a tensor moved from " << device() << " to " << other_device() << " landed on " << there.device() << ": the cross-device copy ignores the target index";
  EXPECT_TRUE(at::equal(tdc::journal_copy(there, at::kCPU).to(at::kCPU), host))
      << "a tensor moved host -> " << device() << " -> " << other_device() << " -> host changed its values: the cross-device copy is wrong";
  const auto back = tdc::journal_copy(there, device()).to(device());
  EXPECT_EQ(back.device(), device())
      << "a tensor moved back from " << other_device() << " to " << device() << " landed on " << back.device() << ": the cross-device copy ignores the target index";
  EXPECT_TRUE(at::equal(tdc::journal_copy(back, at::kCPU).to(at::kCPU), host))
      << "a tensor moved host -> " << device() << " -> " << other_device() << " -> " << device() << " -> host changed its values: the cross-device copy back is wrong";
}

TDC_INSTANTIATE_DEVICE_TEST_SUITE(PlacementAcrossDevices);

}  // namespace
