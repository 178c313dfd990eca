#pragma once
// One timed interval per batch of calls, not per call: a timer's start/stop
// cost and resolution are fixed per interval, so a batch long enough makes
// them < 1% of a sample (docs/benchmarks.md, "Timing"). Google Benchmark
// counts every call as an iteration, so times and rates stay per call and
// names do not change with the batch size.
#include "tdc/compat/timing.h"

#include <benchmark/benchmark.h>
#include <c10/core/Device.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace tdc::bench {

// Whether a call of the batch makes the host wait for the device: a copy from
// or to pageable host memory does (LibTorch synchronises the stream after
// it), a d2d copy, a non_blocking copy through pinned memory or a forward
// pass does not.
enum class HostWaits { kNever, kMay };

// The timer for batches of work on `devices`. On CUDA (built with nvcc), for
// work the host never waits on, the stream is held by a spin kernel while the
// batch is enqueued and the batch is timed between CUDA events, as
// nvbandwidth does (work the host waits on would wait for the hold: the host
// would stall until the hold kernel's timeout, every batch); elsewhere the
// compatibility layer's timer (device events, or synchronise + host clock).
std::unique_ptr<compat::IntervalTimer> make_batch_timer(const std::vector<c10::Device>& devices, HostWaits waits);

// The number of calls per timed sample: enough that the timer's own cost and
// resolution, measured here on empty intervals, are under 1% of a sample, and
// no more than the timer takes (IntervalTimer::max_batch).
std::int64_t calibrate_batch(compat::IntervalTimer& timer, const std::function<void()>& call);

// The benchmark loop: one interval per batch of `batch` calls.
template <typename Call>
void time_batches(benchmark::State& state, compat::IntervalTimer& timer, std::int64_t batch,
                  const Call& call) {
  while (state.KeepRunningBatch(batch)) {
    timer.start();
    for (std::int64_t i = 0; i < batch; ++i) call();
    state.SetIterationTime(timer.stop());
  }
  state.counters["batch"] = static_cast<double>(batch);
  state.SetLabel(timer.method());
}

// Latency: one call per interval, timed on the host clock with the
// synchronisation a caller pays before it can use the result: the current
// stream of each of `devices`, where the call's work went.
void time_each_call(benchmark::State& state, const std::vector<c10::Device>& devices,
                    const std::function<void()>& call);

// What one device-wide synchronisation (synchronizeDevice) of an idle
// device costs: its own series (sync/device/<device>), so that latency is
// not read as the cost of draining every stream.
void time_device_synchronize(benchmark::State& state, const c10::Device& device);

}  // namespace tdc::bench
