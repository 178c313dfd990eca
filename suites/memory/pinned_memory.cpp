// Pinned host memory (PyTorch test_accelerator.py's
// test_pin_memory_on_non_blocking_copy): pin_memory() gives memory the
// device's hooks call pinned, ordinary host memory is not, and non_blocking
// copies through pinned memory are exact once the device is synchronised;
// where the device type has a host allocator with statistics
// (at::getHostAllocator, 2.13+), they follow pinned allocations and frees.
#include "tdc/compat/allocator.h"
#include "tdc/compat/pinned.h"
#include "tdc/compat/timing.h"
#include "tdc/fixtures.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

namespace {

class PinnedMemory : public tdc::DeviceTest {
 protected:
  void SetUp() override {
    tdc::DeviceTest::SetUp();
    if (stopped()) return;
    if (const auto why_not = tdc::compat::pinned_memory_unsupported_reason(device())) {
      GTEST_SKIP() << *why_not;
    }
  }

  at::Tensor salted_host_floats(std::int64_t count, std::uint64_t salt) const {
    auto generator = at::make_generator<at::CPUGeneratorImpl>(salt);
    return at::randn({count}, generator, at::TensorOptions().dtype(at::kFloat));
  }
};

TEST_P(PinnedMemory, PinMemoryGivesPinnedMemoryAndPageableMemoryIsNot) {
  const auto pageable = salted_host_floats(1 << 16, 3);
  const auto pinned = tdc::compat::pin_memory_for(pageable, device());
  // Asked after pinning: LibTorch 2.x answers "not pinned" for every pointer
  // without asking the backend until its pinned allocator was first used. A
  // backend that says yes to every pointer would pass the pinned check alone.
  EXPECT_FALSE(tdc::compat::is_pinned_for(pageable, device()))
      << "pageable memory reads as pinned: isPinnedPtr returns true for memory that was never pinned "
      << "(ordinary host memory, at::randn on the cpu, asked of " << device()
      << "'s hooks after pin_memory()): answer from the pointer's own allocation, not a process-wide flag";
  EXPECT_TRUE(pinned.is_cpu()) << "pin_memory() returned a tensor on " << pinned.device();
  EXPECT_TRUE(tdc::compat::is_pinned_for(pinned, device()))
      << "pin_memory() for " << device() << " gave memory its hooks do not call pinned";
  EXPECT_NE(pinned.data_ptr(), pageable.data_ptr()) << "pin_memory() returned its pageable source";
  EXPECT_TRUE(at::equal(pinned, pageable)) << "the pinned copy differs from its source";
}

TEST_P(PinnedMemory, NonBlockingCopiesThroughPinnedMemoryAreExactAfterSynchronising) {
  const auto expected = salted_host_floats(1 << 20, 4);
  const auto pinned_source = tdc::compat::pin_memory_for(expected, device());
  auto on_device = at::empty({expected.numel()}, at::TensorOptions().device(device()).dtype(at::kFloat));
  on_device.copy_(pinned_source, /*non_blocking=*/true);
  auto pinned_destination = tdc::compat::pin_memory_for(at::zeros_like(expected), device());
  pinned_destination.copy_(on_device, /*non_blocking=*/true);
  tdc::compat::synchronize(device());
  const auto wrong = pinned_destination.ne(expected).nonzero();
  EXPECT_EQ(wrong.size(0), 0) << wrong.size(0) << " of " << expected.numel()
                              << " floats wrong after a non_blocking host->" << device()
                              << "->host round trip through pinned memory, the first at index "
                              << (wrong.size(0) ? wrong[0][0].item<std::int64_t>() : -1);
}

TEST_P(PinnedMemory, HostAllocatorStatisticsFollowPinnedAllocations) {
  std::string why_not;
  const auto before = tdc::compat::host_memory_stats(device(), &why_not);
  if (!before) GTEST_SKIP() << why_not;
  constexpr std::int64_t kBytes = std::int64_t{3} << 20;
  {
    const auto pinned = tdc::compat::pin_memory_for(at::zeros({kBytes}, at::kByte), device());
    const auto during = *tdc::compat::host_memory_stats(device(), nullptr);
    // Host statistics are optional (docs/backends.md, "Host allocator"): an
    // allocator whose counters are all zero while a pinned block is live
    // keeps none, which is a skip that says so. Counters that move wrongly,
    // or not at all from a non-zero value, are a failure.
    if (before->active_bytes == 0 && before->active_requests == 0 && during.active_bytes == 0 &&
        during.active_requests == 0) {
      GTEST_SKIP() << "the " << device().type() << " host allocator keeps no host-allocator statistics "
                   << "(get_stats() all zero while a " << kBytes << "-byte pinned block is live); "
                   << "TDC does not require them";
    }
    EXPECT_GE(during.active_bytes - before->active_bytes, kBytes)
        << "active pinned bytes of the " << device().type() << " host allocator after pinning " << kBytes
        << " bytes: " << before->active_bytes << " -> " << during.active_bytes;
    EXPECT_GE(during.active_requests - before->active_requests, 1) << "active pinned allocations";
  }
  const auto after = *tdc::compat::host_memory_stats(device(), nullptr);
  EXPECT_EQ(after.active_bytes, before->active_bytes) << "active pinned bytes once the pinned tensor is gone";
  EXPECT_EQ(after.active_requests, before->active_requests) << "active pinned allocations once it is gone";
}

TDC_INSTANTIATE_DEVICE_TEST_SUITE(PinnedMemory);

}  // namespace
