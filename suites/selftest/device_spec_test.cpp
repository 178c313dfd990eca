#include <gtest/gtest.h>

#include "tdc/config_error.h"
#include "tdc/device_spec.h"

namespace {

TEST(DeviceSpec, ParsesTypesAndIndices) {
  const auto selectors = tdc::parse_device_selectors("cpu, cuda:1,xpu", "TDC_DEVICES");
  ASSERT_EQ(selectors.size(), 3u);
  EXPECT_EQ(selectors[0].str(), "cpu");
  EXPECT_EQ(selectors[1].str(), "cuda:1");
  EXPECT_EQ(selectors[2].str(), "xpu");
  EXPECT_TRUE(selectors[1].matches(c10::Device("cuda:1")));
  EXPECT_FALSE(selectors[1].matches(c10::Device("cuda:0")));
  EXPECT_TRUE(selectors[2].matches(c10::Device("xpu:3")));
  EXPECT_FALSE(selectors[0].matches(c10::Device("cuda:0")));
}

TEST(DeviceSpec, ExpectationCountsDevices) {
  const auto expectations = tdc::parse_device_expectations("cuda:2,cpu", "TDC_EXPECT");
  ASSERT_EQ(expectations.size(), 2u);
  EXPECT_EQ(expectations[0].type, c10::DeviceType::CUDA);
  EXPECT_EQ(expectations[0].count, 2);
  EXPECT_EQ(expectations[1].count, 1);
}

TEST(DeviceSpec, ExpectationRejectsZeroCount) {
  EXPECT_THROW(tdc::parse_device_expectations("cuda:0", "TDC_EXPECT"), tdc::ConfigError);
}

}  // namespace
