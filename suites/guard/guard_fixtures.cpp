#include "guard_fixtures.h"

#include <string>

namespace tdc::guard {
namespace {

// LibTorch's CPU guard has no current device: it answers cpu (index -1)
// and ignores every switch, so there is nothing to set or restore.
std::optional<std::string> no_guard_reason(const c10::Device& device) {
  if (device.is_cpu()) {
    return "cpu has no device guard: LibTorch's CPU guard keeps no current device to set, "
           "restore or count per thread";
  }
  return std::nullopt;
}

// Makes `device` current on the test thread; returns what was current.
std::optional<c10::Device> make_current(const c10::Device& device) {
  auto* impl = c10::impl::getDeviceGuardImpl(device.type());
  const auto before = impl->getDevice();
  impl->setDevice(device);
  return before;
}

void put_back(const std::optional<c10::Device>& before) {
  if (before) c10::impl::getDeviceGuardImpl(before->type())->setDevice(*before);
}

}  // namespace

c10::Device current_device(c10::DeviceType type) {
  return c10::impl::getDeviceGuardImpl(type)->getDevice();
}

void GuardTest::SetUp() {
  DeviceTest::SetUp();
  if (IsSkipped() || HasFatalFailure()) return;
  if (auto reason = no_guard_reason(device())) GTEST_SKIP() << *reason;
  before_ = make_current(device());
}

void GuardTest::TearDown() {
  put_back(before_);
  DeviceTest::TearDown();
}

const c10::impl::DeviceGuardImplInterface& GuardTest::impl() const {
  return *c10::impl::getDeviceGuardImpl(device().type());
}

}  // namespace tdc::guard
