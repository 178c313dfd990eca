// Every malformed TDC_DEVICES value is refused in one line that names the
// token at fault (the parameterised twin of device_spec_test.cpp).
#include <gtest/gtest.h>

#include <string>

#include "tdc/config_error.h"
#include "tdc/device_spec.h"

namespace {

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

}  // namespace
