// A copy of more than 256 MiB from one device to another and back is exact
// (the pair twin of CopiesLarge; label `long` like it).
#include <ATen/ATen.h>

#include "large_pattern.h"
#include "tdc/fixtures.h"
#include "tdc/patterns.h"

namespace {

using CopiesLargeAcrossDevices = tdc::DevicePairTest;

TEST_P(CopiesLargeAcrossDevices, Over256MiBIsExactBothWays) {
  const auto& host = tdc::copies_long::large_host_pattern();
  const auto here = host.to(device(), at::kFloat, false, /*copy=*/true);
  const auto there = here.to(other_device());
  EXPECT_EQ(there.device(), other_device())
      << "a large tensor copied to " << other_device() << " landed on " << there.device() << ": the backend's cross-device copy ignores the target index";
  EXPECT_TRUE(tdc::same_elements(there, host)) << "to the other index";
  EXPECT_TRUE(tdc::same_elements(there.to(device()), host)) << "and back";
}

TDC_INSTANTIATE_DEVICE_TEST_SUITE(CopiesLargeAcrossDevices);

}  // namespace
