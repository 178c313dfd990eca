// calibrate_batch (batch_timing.h): a batch grows until the timer's own cost
// is under 1% of a sample, and never past what the timer takes. The held-
// stream timer takes at most the stream's launch queue; on the H200 host a
// longer batch stalled every sample for the hold's timeout (docs/gpu-hosts.md).
#include "batch_timing.h"

#include <gtest/gtest.h>

namespace {

// An interval is 10 µs of the timer's own cost plus 1 µs per call.
class CountingTimer : public tdc::compat::IntervalTimer {
 public:
  explicit CountingTimer(std::int64_t most) : most_(most) {}
  void start() override { calls = 0; }
  double stop() override { return 10e-6 + static_cast<double>(calls) * 1e-6; }
  std::string method() const override { return "counting"; }
  std::int64_t max_batch() const override { return most_; }
  std::int64_t calls = 0;

 private:
  std::int64_t most_;
};

TEST(BatchCalibration, GrowsUntilTheTimersCostIsUnderOnePercent) {
  CountingTimer timer(0);
  // 10 µs at 1% is a 1 ms sample: at least 990 calls of 1 µs.
  EXPECT_GE(tdc::bench::calibrate_batch(timer, [&] { ++timer.calls; }), 990);
}

TEST(BatchCalibration, NeverPassesWhatTheTimerTakes) {
  CountingTimer timer(256);
  EXPECT_EQ(tdc::bench::calibrate_batch(timer, [&] { ++timer.calls; }), 256);
}

}  // namespace
