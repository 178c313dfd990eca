// Builds without nvcc or without a CUDA LibTorch: c10's event interface has
// no event the host can release later (a stream that waits on an unrecorded
// event does not wait), so batches on other backends are timed unheld.
#include "held_stream_timer.h"

namespace tdc::bench {

std::unique_ptr<compat::IntervalTimer> make_held_stream_timer(const c10::Device&) { return nullptr; }

}  // namespace tdc::bench
