#pragma once
// Fixtures of the device-guard suite: the contract of
// docs/source/accelerator/guard.md in PyTorch (a current device per thread,
// set and restored by RAII guards). Each test starts with its own device
// current on the test thread and puts back whatever was current before.
#include <c10/core/impl/DeviceGuardImplInterface.h>

#include "tdc/fixtures.h"

namespace tdc::guard {

// The device the backend reports as current on the calling thread.
c10::Device current_device(c10::DeviceType type);

class GuardTest : public tdc::DeviceTest {
 protected:
  void SetUp() override;
  void TearDown() override;
  const c10::impl::DeviceGuardImplInterface& impl() const;

 private:
  std::optional<c10::Device> before_;
};

// For what only a second index can show: that a guard moved the device
// and put it back, or that another thread's device is not this one's. The
// shared pair rung over GuardTest: the base rung records the device first,
// then cpu skips for its own reason before "needs two cpu devices" could
// hide it.
using GuardPairTest = tdc::WithSiblingDevice<GuardTest>;

}  // namespace tdc::guard
