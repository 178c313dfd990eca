// Timed events around work measure it: every interval is non-negative, one
// with work in it is positive, and intervals add up (a -> c equals a -> b
// plus b -> c). A backend answering a constant or noise fails the sum.
#include <ATen/ATen.h>
#include <c10/core/Event.h>

#include <cmath>

#include "tdc/compat/events.h"
#include "tdc/stream_fixtures.h"

namespace {

using EventTimingEnabled = tdc::StreamTest;

// Device clocks tick in about half a microsecond (CUDA); the sum of two
// intervals may be off by a tick each.
constexpr double kSumToleranceMs = 0.005;

TEST_P(EventTimingEnabled, IntervalsAreNonNegativeAndAddUp) {
  if (auto reason = tdc::compat::event_timing_unsupported_reason()) GTEST_SKIP() << *reason;
  TDC_NEEDS_EVENTS();
  const auto stream = current_stream();
  const auto flag = tdc::compat::event_flag(true);
  c10::Event a(device().type(), flag), b(device().type(), flag), c(device().type(), flag);
  auto work = at::ones({1 << 14}, at::TensorOptions().device(device()));
  a.record(stream);
  work.mul_(2);
  b.record(stream);
  work.add_(1);
  c.record(stream);
  tdc::compat::synchronize_event(c);
  const double ab = tdc::compat::elapsed_ms(a, b);
  const double bc = tdc::compat::elapsed_ms(b, c);
  const double ac = tdc::compat::elapsed_ms(a, c);
  EXPECT_GE(ab, 0.0)
      << "the time from event a to b is negative (" << ab << " ms): the backend's elapsedTime has its events backwards or its clock runs back";
  EXPECT_GE(bc, 0.0)
      << "the time from event b to c is negative (" << bc << " ms): the backend's elapsedTime has its events backwards or its clock runs back";
  EXPECT_GT(ac, 0.0) << "two kernels ran between a and c";
  EXPECT_LE(std::abs(ac - (ab + bc)), kSumToleranceMs)
      << "a->c " << ac << " ms is not a->b " << ab << " ms + b->c " << bc << " ms";
}

TDC_INSTANTIATE_DEVICE_TEST_SUITE(EventTimingEnabled);

}  // namespace
