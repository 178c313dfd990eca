// Device tensors written out and read back onto the same device and onto the
// CPU keep every value, dtype and shape, and land on the device asked for.
#include "round_trip.h"

#include "tdc/compat/serialization.h"
#include "tdc/fixtures.h"

namespace {

using Serialization = tdc::DeviceTest;

TEST_P(Serialization, TensorsLoadExactOntoTheSameDeviceAndTheCpu) {
  if (const auto why = tdc::compat::serialization_unsupported(device())) GTEST_SKIP() << *why;
  tdc::serialization::expect_round_trip_exact(device(), device());
  tdc::serialization::expect_round_trip_exact(device(), c10::Device(c10::DeviceType::CPU));
}

TDC_INSTANTIATE_DEVICE_TEST_SUITE(Serialization);

}  // namespace
