// Readiness (level 1): 16 MiB travel to the device and back bit for bit. Large
// enough to cross the small-copy paths of a driver (staging buffers, chunked
// DMA), small enough for a health check's time budget.
#include <ATen/ATen.h>

#include "placement.h"

namespace {

constexpr int64_t kElements = 16 * 1024 * 1024 / sizeof(int32_t);

TEST_P(Placement, RoundTrip16MiBIsExact) {
  // Distinct values everywhere, so a dropped, repeated or shifted chunk shows.
  const auto source = at::arange(kElements, at::kInt);
  ASSERT_EQ(source.nbytes(), 16u * 1024 * 1024);

  const auto on_device = source.to(device());
  ASSERT_EQ(on_device.device(), device());
  const auto back = on_device.to(at::kCPU);

  const auto differing = back.ne(source).nonzero();
  ASSERT_EQ(differing.size(0), 0)
      << differing.size(0) << " of " << kElements << " int32 values changed on the round trip via "
      << device() << "; first at element " << differing[0].item<int64_t>();
}

}  // namespace
