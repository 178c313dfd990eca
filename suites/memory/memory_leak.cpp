// 10,000 salted allocations of mixed sizes (1 byte to 8 KiB), each filled by
// a host-to-device copy and read back by a device-to-device copy before it
// is freed, bring allocated bytes back to where they started.
#include "stats.h"

#include "tdc/fixtures.h"
#include "tdc/prerequisite.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include <cstdint>

namespace {

constexpr int kCycles = 10000;

using MemoryLeak = tdc::DeviceTest;

TEST_P(MemoryLeak, TenThousandPatternedAllocFreeCyclesReturnToBaseline) {
  TDC_MEMORY_STATS_OR_SKIP(baseline, device());
  const auto options = at::TensorOptions().device(device()).dtype(at::kByte);
  {
    // A leak check over books that never move would pass: make sure they do.
    const auto probe = at::empty({4096}, options);
    const auto held = tdc::compat::device_memory_stats(device(), nullptr)->allocated;
    if (held == baseline.allocated) {
      FAIL() << tdc::prerequisite_failed(
          "memory statistics of " + device().str(), "allocating 4096 bytes did not move them",
          "MemoryAccounting.AllocationsFreesPeakAndCacheAreCounted/" +
              tdc::device_label(device()));
    }
  }
  auto generator = at::make_generator<at::CPUGeneratorImpl>(11);
  const auto sizes = at::randint(1, 8193, {kCycles}, generator, at::TensorOptions().dtype(at::kLong));
  const auto source = at::randint(0, 256, {8192}, generator, at::TensorOptions().dtype(at::kByte));
  const auto* size = sizes.data_ptr<int64_t>();
  for (int i = 0; i < kCycles; ++i) {
    auto block = at::empty({size[i]}, options);
    block.copy_(source.narrow(0, 0, size[i]));
    auto twin = at::empty({size[i]}, options);
    twin.copy_(block);
  }
  const auto after = tdc::compat::device_memory_stats(device(), nullptr)->allocated;
  EXPECT_EQ(after, baseline.allocated)
      << after - baseline.allocated << " bytes still allocated after " << kCycles
      << " alloc/copy/free cycles: the backend must return every freed block to its allocator (the"
         " DataPtr's deleter frees it or gives it back to the pool) and take it off the allocated"
         " statistics, so that they come back to the baseline (docs/backends.md, \"Allocator\")";
}

TDC_INSTANTIATE_DEVICE_TEST_SUITE(MemoryLeak);

}  // namespace
