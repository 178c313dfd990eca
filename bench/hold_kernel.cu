// The spin kernel of held_stream_timer_cuda.cpp (nvbandwidth's method): one
// thread spins until the host writes a non-zero release word into mapped
// pinned memory, so that everything queued behind it waits until then. A
// hold that outlives `timeout_ns` (the host died or took too long to enqueue)
// lets go and says so, rather than hanging the device.
#include "hold_kernel.h"

namespace {

__device__ unsigned long long global_time_ns() {
  unsigned long long now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  return now;
}

__global__ void hold_until_released(volatile const int* release, volatile int* timed_out,
                                    unsigned long long timeout_ns) {
  const unsigned long long started = global_time_ns();
  while (*release == 0) {
    if (global_time_ns() - started > timeout_ns) {
      *timed_out = 1;
      return;
    }
  }
}

}  // namespace

cudaError_t tdc_launch_hold(cudaStream_t stream, const int* release, int* timed_out,
                            unsigned long long timeout_ns) {
  hold_until_released<<<1, 1, 0, stream>>>(release, timed_out, timeout_ns);
  return cudaGetLastError();
}
