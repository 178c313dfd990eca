// A guard restores the previous device also when an exception leaves its
// scope: the destructor runs during unwinding.
#include <c10/core/DeviceGuard.h>
#include <c10/util/Exception.h>

#include "guard_fixtures.h"

namespace {

using GuardUnwinding = tdc::guard::GuardPairTest;
using tdc::guard::current_device;

template <typename Guard>
void throw_inside(const c10::Device& target) {
  Guard guard(target);
  ASSERT_EQ(current_device(target.type()), target) << "the guard did not set its device";
  TORCH_CHECK(false, "deliberate error inside the guard's scope");
}

TEST_P(GuardUnwinding, RestoresWhenAnExceptionLeavesTheScope) {
  EXPECT_THROW(throw_inside<c10::DeviceGuard>(other_device()), c10::Error)
      << "the exception thrown inside a DeviceGuard scope did not reach the caller as c10::Error: the guard's destructor swallowed or replaced it";
  EXPECT_EQ(current_device(device().type()), device()) << "DeviceGuard, unwinding";
  EXPECT_THROW(throw_inside<c10::OptionalDeviceGuard>(other_device()), c10::Error)
      << "the exception thrown inside an OptionalDeviceGuard scope did not reach the caller as c10::Error: the guard's destructor swallowed or replaced it";
  EXPECT_EQ(current_device(device().type()), device()) << "OptionalDeviceGuard, unwinding";
}

TDC_INSTANTIATE_DEVICE_TEST_SUITE(GuardUnwinding);

}  // namespace
