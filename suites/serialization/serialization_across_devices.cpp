// Tensors saved from one index load exactly onto another index of the same
// type: a loader that ignores the index, or a backend whose storages remember
// the index they came from, puts them on the wrong device.
#include "round_trip.h"

#include "tdc/compat/serialization.h"
#include "tdc/fixtures.h"

namespace {

using SerializationAcrossDevices = tdc::DevicePairTest;

TEST_P(SerializationAcrossDevices, TensorsLoadExactOntoAnotherIndex) {
  if (const auto why = tdc::compat::serialization_unsupported(device())) GTEST_SKIP() << *why;
  tdc::serialization::expect_round_trip_exact(device(), other_device());
}

TDC_INSTANTIATE_DEVICE_TEST_SUITE(SerializationAcrossDevices);

}  // namespace
