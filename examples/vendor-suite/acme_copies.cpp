// A megabyte of salted floats goes to the device and comes back with every
// element intact. The loopback's corrupt-copy fault (its host-to-device copy
// changes the first element) fails it.
#include <ATen/ATen.h>

#include "tdc/fixtures.h"
#include "tdc/patterns.h"

namespace {

using AcmeCopies = tdc::DeviceTest;

TEST_P(AcmeCopies, PatternRoundTripIsExact) {
  const auto host = tdc::salted_pattern({256, 1024}, at::kFloat, 2024);
  const auto there = host.to(device());
  ASSERT_EQ(there.device(), device());
  EXPECT_TRUE(tdc::same_elements(there.cpu(), host));
}
TDC_INSTANTIATE_DEVICE_TEST_SUITE(AcmeCopies);

}  // namespace
