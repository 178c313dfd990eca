#include "batch_timing.h"

#include "held_stream_timer.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace tdc::bench {
namespace {

using Clock = std::chrono::steady_clock;

// The timer may cost at most this share of a sample (issue: < 1%).
constexpr double kTimerShare = 0.01;
// A floor under the sample length: on a shared host one preempted clock read
// costs far more than the median empty interval says.
constexpr double kMinSampleSeconds = 100e-6;
constexpr std::int64_t kMaxBatch = std::int64_t{1} << 24;
constexpr int kOverheadProbes = 15;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// What an empty interval costs: the host's time in start()+stop(), or what
// the timer reports for it (its resolution and offset), whichever is larger.
double timer_overhead_seconds(compat::IntervalTimer& timer) {
  std::vector<double> costs;
  for (int i = 0; i < kOverheadProbes; ++i) {
    const auto started = Clock::now();
    timer.start();
    const double reported = timer.stop();
    costs.push_back(std::max(reported, seconds_since(started)));
  }
  std::nth_element(costs.begin(), costs.begin() + kOverheadProbes / 2, costs.end());
  return costs[kOverheadProbes / 2];
}

}  // namespace

std::unique_ptr<compat::IntervalTimer> make_batch_timer(const std::vector<c10::Device>& devices, HostWaits waits) {
  if (devices.size() == 1 && waits == HostWaits::kNever) {
    if (auto held = make_held_stream_timer(devices.front())) return held;
  }
  return compat::make_interval_timer(devices);
}

std::int64_t calibrate_batch(compat::IntervalTimer& timer, const std::function<void()>& call) {
  const double target = std::max(timer_overhead_seconds(timer) / kTimerShare, kMinSampleSeconds);
  const std::int64_t most = timer.max_batch() > 0 ? std::min(timer.max_batch(), kMaxBatch) : kMaxBatch;
  std::int64_t batch = 1;
  for (;;) {
    timer.start();
    for (std::int64_t i = 0; i < batch; ++i) call();
    const double elapsed = timer.stop();
    if (elapsed >= target || batch >= most) return batch;
    // Aim a quarter past the target so that a slightly faster sample still
    // clears it; grow at least twofold so calibration ends quickly.
    const double wanted = elapsed > 0 ? std::ceil(1.25 * target * batch / elapsed) : 8.0 * batch;
    batch = std::min(std::max(static_cast<std::int64_t>(std::min(wanted, double(most))), 2 * batch), most);
  }
}

void time_each_call(benchmark::State& state, const std::vector<c10::Device>& devices,
                    const std::function<void()>& call) {
  for (auto _ : state) {
    const auto started = Clock::now();
    call();
    for (const auto& device : devices) compat::synchronize_current_stream(device);
    state.SetIterationTime(seconds_since(started));
  }
  state.SetLabel("steady_clock per call, current stream synchronized");
}

}  // namespace tdc::bench

namespace tdc::bench {

void time_device_synchronize(benchmark::State& state, const c10::Device& device) {
  compat::synchronize(device);
  for (auto _ : state) {
    const auto started = Clock::now();
    compat::synchronize(device);
    state.SetIterationTime(seconds_since(started));
  }
  state.SetLabel("steady_clock per call, synchronizeDevice of an idle device");
}

}  // namespace tdc::bench
