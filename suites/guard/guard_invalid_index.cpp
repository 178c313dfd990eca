// Asking a guard for an index past the device count raises a c10::Error
// naming that index (not an abort, a hang or a silent switch), and leaves
// the current device where it was.
#include <c10/core/DeviceGuard.h>
#include <c10/util/Exception.h>

#include <string>

#include "guard_fixtures.h"

namespace {

using GuardInvalidIndex = tdc::guard::GuardTest;
using tdc::guard::current_device;

TEST_P(GuardInvalidIndex, RaisesAnErrorNamingTheIndex) {
  const auto count = impl().deviceCount();
  const c10::Device beyond(device().type(), count);
  try {
    c10::DeviceGuard guard(beyond);
    ADD_FAILURE() << "DeviceGuard(" << beyond << ") was accepted with " << static_cast<int>(count)
                  << " devices; current device now " << current_device(device().type())
                  << ": the guard must reject an index at or past deviceCount() with a c10::Error "
                  << "(exchangeDevice and setDevice: docs/backends.md, \"Device guard\")";
  } catch (const c10::Error& error) {
    const std::string message = error.what_without_backtrace();
    EXPECT_NE(message.find(std::to_string(count)), std::string::npos)
        << "the error does not name index " << static_cast<int>(count) << ": " << message;
  }
  EXPECT_EQ(current_device(device().type()), device()) << "after the rejected switch";
}

TDC_INSTANTIATE_DEVICE_TEST_SUITE(GuardInvalidIndex);

}  // namespace
