// TDC_EXPECT: what the user says must be present. A missing expected device
// is a failure, never a skip: this is what stops a broken driver from passing
// CI by silently falling back to the CPU.
#include <gtest/gtest.h>

#include "tdc/device_spec.h"
#include "tdc/devices_under_test.h"
#include "tdc/discovery.h"

namespace {

class DeviceExpectation : public ::testing::TestWithParam<tdc::ExpectationParam> {};

TEST_P(DeviceExpectation, IsPresent) {
  const auto& wanted = GetParam();
  const auto& host = tdc::host_devices();
  const auto name = tdc::device_type_name(wanted.type);
  EXPECT_GE(host.count(wanted.type), wanted.count)
      << "TDC_EXPECT wants " << wanted.count << " " << name << " device(s) (" << name << ":0"
      << (wanted.count > 1 ? ".." + name + ":" + std::to_string(wanted.count - 1) : "")
      << "); " << tdc::describe_backend(host, wanted.type);
}

INSTANTIATE_TEST_SUITE_P(, DeviceExpectation,
                         ::testing::ValuesIn(tdc::expectations_under_test()),
                         [](const auto& info) { return info.param.label(); });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(DeviceExpectation);

}  // namespace
