// Every way of copying a tensor on a device gives a tensor with memory of its
// own: writing either side never shows in the other.
#include <ATen/ATen.h>

#include <string>

#include "independence.h"
#include "tdc/fixtures.h"
#include "tdc/patterns.h"

namespace {

using NoAliasing = tdc::DeviceTest;

// What a failure means for the backend, whichever copy it was.
std::string shares(const char* copy) {
  return std::string(copy) + " gave a tensor that shares memory with its source (the assertion says which " +
         "write showed on the other side): a copy must own its memory, so the backend's copy kernel or " +
         "allocator hands out the source's bytes";
}

TEST_P(NoAliasing, CopiesNeverShareMemoryWithTheirSource) {
  const auto host = tdc::salted_pattern({31, 33}, at::kFloat, 17);
  const auto on_device = [&] { return host.to(device(), at::kFloat, false, /*copy=*/true); };
  if (!device().is_cpu()) {
    // On the CPU these are the same device, where to() returns its argument by design.
    const auto host_source = host.clone();
    EXPECT_TRUE(tdc::aliasing::independent(host_source, host_source.to(device()))) << shares("a host-to-device .to()");
    const auto device_source = on_device();
    EXPECT_TRUE(tdc::aliasing::independent(device_source, device_source.to(at::kCPU)))
        << shares("a device-to-host .to()");
  }
  const auto cloned = on_device();
  EXPECT_TRUE(tdc::aliasing::independent(cloned, cloned.clone())) << shares(".clone()");
  const auto copied = on_device();
  const auto destination = at::empty_like(copied);
  destination.copy_(copied);
  EXPECT_TRUE(tdc::aliasing::independent(copied, destination)) << shares("copy_() into a new tensor");
  const auto transposed = on_device().t();
  EXPECT_TRUE(tdc::aliasing::independent(transposed, transposed.contiguous()))
      << shares(".contiguous() of a transposed tensor");
}

TDC_INSTANTIATE_DEVICE_TEST_SUITE(NoAliasing);

}  // namespace
