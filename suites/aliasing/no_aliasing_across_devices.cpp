// A copy to another device of the same type (cuda:0 -> cuda:1) is a copy,
// not a second name for the source's memory, both by .to() and by copy_();
// and the two devices never hand out overlapping memory.
#include <ATen/ATen.h>

#include "independence.h"
#include "tdc/fixtures.h"
#include "tdc/patterns.h"

namespace {

using NoAliasingAcrossDevices = tdc::DevicePairTest;

TEST_P(NoAliasingAcrossDevices, CopiesAndAllocationsNeverShareMemory) {
  const auto host = tdc::salted_pattern({1021}, at::kFloat, 19);
  const auto here = [&] { return host.to(device(), at::kFloat, false, /*copy=*/true); };

  const auto moved_from = here();
  const auto moved = moved_from.to(other_device());
  EXPECT_EQ(moved.device(), other_device())
      << "a tensor moved to " << other_device() << " landed on " << moved.device() << ": the backend's copy ignores the target index";
  EXPECT_TRUE(tdc::aliasing::independent(moved_from, moved)) << ".to(" << other_device() << ")";

  const auto copied_from = here();
  const auto copied = at::empty_like(copied_from, copied_from.options().device(other_device()));
  copied.copy_(copied_from);
  EXPECT_TRUE(tdc::aliasing::independent(copied_from, copied)) << "copy_() across indices";

  const auto returned_from = here().to(other_device());
  EXPECT_TRUE(tdc::aliasing::independent(returned_from, returned_from.to(device())))
      << ".to(" << device() << ") back";

  tdc::aliasing::expect_allocations_disjoint(device(), other_device());
}

TDC_INSTANTIATE_DEVICE_TEST_SUITE(NoAliasingAcrossDevices);

}  // namespace
