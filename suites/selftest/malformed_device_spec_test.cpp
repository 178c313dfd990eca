// Every malformed TDC_DEVICES or TDC_EXPECT value is refused in one line that
// names the token at fault (the parameterised twin of device_spec_test.cpp).
// ci/health's own case (health_fails_closed.py --case counting) takes one bad
// value of each setting through a whole run; the parser's variants are here.
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

class MalformedDeviceExpectation : public ::testing::TestWithParam<BadSpec> {};

TEST_P(MalformedDeviceExpectation, IsRejectedNamingTheToken) {
  try {
    const auto expectations = tdc::parse_device_expectations(GetParam().spec, "TDC_EXPECT");
    FAIL() << "accepted '" << GetParam().spec << "' as " << expectations.size() << " expectation(s)";
  } catch (const tdc::ConfigError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find(GetParam().named_in_message), std::string::npos)
        << "the refusal does not name '" << GetParam().named_in_message << "': " << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << "not one line: " << message;
  }
}

INSTANTIATE_TEST_SUITE_P(, MalformedDeviceExpectation,
                         ::testing::Values(BadSpec{"cuda:x", "'cuda:x'"},
                                           BadSpec{"tpu:1", "'tpu:1'"},
                                           BadSpec{"cpu,,cuda", "item 2 is empty"},
                                           BadSpec{"cuda:0", "count must be at least 1"},
                                           BadSpec{"cpu:2", "cpu is a single device"}));

}  // namespace
