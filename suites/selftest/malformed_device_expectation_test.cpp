// Every malformed TDC_EXPECT value is refused in one line that names the
// token at fault. ci/health's own case (health_fails_closed.py --case
// counting) takes one bad value through a whole run; the parser's variants
// are here.
#include <gtest/gtest.h>

#include <string>

#include "tdc/config_error.h"
#include "tdc/device_spec.h"

namespace {

struct BadExpectation {
  const char* spec;
  const char* named_in_message;
};

class MalformedDeviceExpectation : public ::testing::TestWithParam<BadExpectation> {};

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
                         ::testing::Values(BadExpectation{"cuda:x", "'cuda:x'"},
                                           BadExpectation{"tpu:1", "'tpu:1'"},
                                           BadExpectation{"cpu,,cuda", "item 2 is empty"},
                                           BadExpectation{"cuda:0", "count must be at least 1"},
                                           BadExpectation{"cpu:2", "cpu is a single device"}));

}  // namespace
