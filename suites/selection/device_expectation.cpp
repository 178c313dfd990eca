// TDC_EXPECT: what the user says must be present. A missing expected device
// is a failure, never a skip: this is what stops a broken driver from passing
// CI by silently falling back to the CPU.
#include <gtest/gtest.h>

#include "tdc/device_spec.h"
#include "tdc/devices_under_test.h"
#include "tdc/discovery.h"

namespace {

class DeviceExpectation : public ::testing::TestWithParam<tdc::DeviceExpectation> {};

TEST_P(DeviceExpectation, IsPresent) {
  if (const auto shortfall = tdc::expectation_shortfall(GetParam())) FAIL() << *shortfall;
}

INSTANTIATE_TEST_SUITE_P(, DeviceExpectation,
                         ::testing::ValuesIn(tdc::expectations_under_test()),
                         [](const auto& info) { return tdc::expectation_label(info.param); });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(DeviceExpectation);

}  // namespace
