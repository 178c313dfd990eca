#include <gtest/gtest.h>

#include "tdc/discovery.h"

namespace {

// A backend whose enumeration throws, crashes or hangs is kept out of the
// device list; this is where that shows as a failure.
TEST(DeviceDiscovery, EveryBackendEnumerates) {
  for (const auto& error : tdc::host_devices().errors) ADD_FAILURE() << error;
}

TEST(DeviceDiscovery, DevicesAreDistinctAndIndexed) {
  const auto& devices = tdc::host_devices().devices;
  ASSERT_FALSE(devices.empty()) << "the host lists no device at all, not even the CPU: discovery is broken";
  EXPECT_EQ(devices.front(), c10::Device(c10::DeviceType::CPU))
      << "the first device listed is " << devices.front() << ", not the CPU: discovery must list the CPU first";
  for (std::size_t i = 1; i < devices.size(); ++i) {
    EXPECT_TRUE(devices[i].has_index()) << devices[i];
    for (std::size_t j = 0; j < i; ++j) EXPECT_NE(devices[i], devices[j])
        << "device " << devices[i] << " is listed twice: discovery counts a device twice";
  }
}

}  // namespace
