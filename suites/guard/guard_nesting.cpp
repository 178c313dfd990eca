// Nested guards each set their device and, on leaving, restore the one
// that was current when they were entered (PyTorch guard.md: exchangeDevice
// on entry, uncheckedSetDevice on exit).
#include <c10/core/DeviceGuard.h>

#include "guard_fixtures.h"

namespace {

using GuardNesting = tdc::guard::GuardPairTest;
using tdc::guard::current_device;

TEST_P(GuardNesting, DeviceGuardAndOptionalDeviceGuardRestoreInOrder) {
  const auto type = device().type();
  {
    c10::DeviceGuard outer(other_device());
    EXPECT_EQ(current_device(type), other_device()) << "DeviceGuard did not set its device";
    EXPECT_EQ(outer.original_device(), device())
        << "DeviceGuard(" << other_device() << ") says it came from " << outer.original_device() << ", not " << device() << ": the guard's exchangeDevice returns the wrong previous device";
    {
      c10::OptionalDeviceGuard inner(device());
      EXPECT_EQ(current_device(type), device()) << "OptionalDeviceGuard did not set its device";
      EXPECT_EQ(inner.original_device(), other_device())
          << "OptionalDeviceGuard(" << device() << ") inside DeviceGuard(" << other_device() << ") says it came from "
          << (inner.original_device() ? inner.original_device()->str() : std::string("no device"))
          << ": the guard's exchangeDevice returns the wrong previous device";
    }
    EXPECT_EQ(current_device(type), other_device()) << "OptionalDeviceGuard did not restore";
    {
      c10::OptionalDeviceGuard late;
      EXPECT_EQ(current_device(type), other_device()) << "an empty OptionalDeviceGuard moved";
      late.reset_device(device());
      EXPECT_EQ(current_device(type), device()) << "reset_device did not set its device";
    }
    EXPECT_EQ(current_device(type), other_device()) << "OptionalDeviceGuard::reset_device did not restore";
  }
  EXPECT_EQ(current_device(type), device()) << "DeviceGuard did not restore";
}

TDC_INSTANTIATE_DEVICE_TEST_SUITE(GuardNesting);

}  // namespace
