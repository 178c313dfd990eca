// An accelerator hands out pool streams other than its default stream, so
// work can overlap. The CPU has no stream pool (waived in known_failures.txt:
// not supported there); the loopback's stream-alias fault (every stream is
// the default one) fails it.
#include <c10/core/impl/DeviceGuardImplInterface.h>

#include "tdc/fixtures.h"

namespace {

using AcmeStreams = tdc::DeviceTest;

TEST_P(AcmeStreams, PoolStreamIsNotTheDefault) {
  const auto* impl = c10::impl::getDeviceGuardImpl(device().type());
  const auto pooled = impl->getStreamFromGlobalPool(device());
  EXPECT_EQ(pooled.device(), device());
  EXPECT_NE(pooled, impl->getDefaultStream(device())) << "the pool handed out the default stream";
}
TDC_INSTANTIATE_DEVICE_TEST_SUITE(AcmeStreams);

}  // namespace
