// The device allocator's books: allocating N bytes raises allocated bytes by
// at least N and at most N rounded up to 512 bytes (CUDA's rounding; the
// reference backend is exact), freeing gives them back, the peak follows
// the allocation and a peak reset brings it down to what is in use.
// Emptying the cache brings reserved down to allocated.
#include "stats.h"

#include "tdc/fixtures.h"

#include <ATen/ATen.h>

#include <cstdint>

namespace {

constexpr std::int64_t kBytes = (1 << 20) + 13;  // not a multiple of any block
constexpr std::int64_t kRounding = 512;

std::int64_t rounded_up(std::int64_t n) { return (n + kRounding - 1) / kRounding * kRounding; }

tdc::compat::MemoryStats stats_of(const c10::Device& device) {
  return *tdc::compat::device_memory_stats(device, nullptr);
}

using MemoryAccounting = tdc::DeviceTest;

TEST_P(MemoryAccounting, AllocationsFreesPeakAndCacheAreCounted) {
  TDC_MEMORY_STATS_OR_SKIP(baseline, device());
  tdc::compat::reset_peak_memory(device());
  {
    const auto block = at::empty({kBytes}, at::TensorOptions().device(device()).dtype(at::kByte));
    const auto held = stats_of(device());
    const auto grew = held.allocated - baseline.allocated;
    EXPECT_GE(grew, kBytes) << "allocating " << kBytes << " bytes raised allocated bytes by " << grew;
    EXPECT_LE(grew, rounded_up(kBytes)) << "allocating " << kBytes << " bytes raised allocated bytes by "
                                        << grew;
    EXPECT_GE(held.peak_allocated, held.allocated) << "peak below what is allocated";
    EXPECT_GE(held.reserved, held.allocated) << "reserved below what is allocated";
  }
  const auto freed = stats_of(device());
  EXPECT_EQ(freed.allocated, baseline.allocated) << "freeing did not give the bytes back";
  EXPECT_GE(freed.peak_allocated, baseline.allocated + kBytes) << "the peak forgot the allocation";
  tdc::compat::reset_peak_memory(device());
  EXPECT_EQ(stats_of(device()).peak_allocated, freed.allocated) << "resetting the peak";
  tdc::compat::empty_device_cache(device());
  const auto emptied = stats_of(device());
  EXPECT_EQ(emptied.reserved, emptied.allocated) << "emptying the cache left reserved above allocated";
}

TDC_INSTANTIATE_DEVICE_TEST_SUITE(MemoryAccounting);

}  // namespace
