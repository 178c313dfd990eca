#pragma once
// nvbandwidth's method for timing a batch on a device: a spin kernel holds
// the stream while the batch is enqueued, so the host's enqueue cost stays
// out of the interval; the hold is released and the batch timed between
// events. Only CUDA builds compiled with nvcc have it (held_stream_timer_cuda.cpp);
// elsewhere (held_stream_timer_none.cpp) no backend offers a host-released
// wait through c10's interface, and this returns nullptr.
#include "tdc/compat/timing.h"

#include <c10/core/Device.h>

#include <memory>

namespace tdc::bench {

std::unique_ptr<compat::IntervalTimer> make_held_stream_timer(const c10::Device& device);

}  // namespace tdc::bench
