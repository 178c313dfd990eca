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

struct BadSpec {
  const char* spec;
  const char* named_in_message;
};

class MalformedDeviceSpec : public ::testing::TestWithParam<BadSpec> {};

TEST_P(MalformedDeviceSpec, IsRejectedNamingTheToken) {
  try {
    tdc::parse_device_selectors(GetParam().spec, "TDC_DEVICES");
    FAIL() << "accepted '" << GetParam().spec << "'";
  } catch (const tdc::ConfigError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find(GetParam().named_in_message), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << "not one line: " << message;
  }
}

INSTANTIATE_TEST_SUITE_P(, MalformedDeviceSpec,
                         ::testing::Values(BadSpec{"cuda:x", "'cuda:x'"},
                                           BadSpec{"cuda:-1", "'cuda:-1'"},
                                           BadSpec{"tpu", "'tpu'"},
                                           BadSpec{"cpu,,cuda", "item 2 is empty"},
                                           BadSpec{",cpu", "item 1 is empty"},
                                           BadSpec{"cpu,", "item 2 is empty"},
                                           BadSpec{"", "item 1 is empty"},
                                           BadSpec{"cuda:", "missing index"},
                                           BadSpec{"CUDA", "'CUDA'"},
                                           BadSpec{"cuda:999", "larger than"},
                                           BadSpec{":1", "missing device type"}));

TEST(DeviceSpec, ExpectationRejectsZeroCount) {
  EXPECT_THROW(tdc::parse_device_expectations("cuda:0", "TDC_EXPECT"), tdc::ConfigError);
}

}  // namespace
