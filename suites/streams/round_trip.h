#pragma once
// A host -> device -> host round trip queued with non_blocking copies on one
// stream: until the stream's work has run, the host destination still holds
// its initial -1s, so a synchronisation that returned early shows up as
// wrong elements.
#include <ATen/ATen.h>
#include <c10/core/StreamGuard.h>

#include <cstdint>

#include "tdc/patterns.h"
#include "tdc/stream_fixtures.h"

namespace tdc::streams {

// 4 MiB of floats: still in flight when a host looks too early.
constexpr std::int64_t kRoundTripElements = std::int64_t{1} << 20;

struct RoundTrip {
  at::Tensor source;       // host, staged
  at::Tensor on_device;    // kept alive until the copies have run
  at::Tensor destination;  // host, staged
};

class AsyncCopyTest : public StreamTest {
 protected:
  RoundTrip queue_round_trip(const c10::Stream& stream, std::uint64_t salt) const {
    RoundTrip trip;
    trip.source = staged(salted_pattern({kRoundTripElements}, at::kFloat, salt));
    trip.destination = staged(at::full({kRoundTripElements}, -1.0f));
    c10::StreamGuard guard(stream);
    trip.on_device = at::empty({kRoundTripElements}, at::TensorOptions().device(device()));
    trip.on_device.copy_(trip.source, /*non_blocking=*/true);
    trip.destination.copy_(trip.on_device, /*non_blocking=*/true);
    return trip;
  }
};

}  // namespace tdc::streams
