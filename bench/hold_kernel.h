#pragma once
// Host entry of hold_kernel.cu, callable from C++ compiled without nvcc.
#include <cuda_runtime_api.h>

// Queues a kernel on `stream` that spins until *release (device-visible
// mapped host memory) becomes non-zero, or sets *timed_out after timeout_ns.
cudaError_t tdc_launch_hold(cudaStream_t stream, const int* release, int* timed_out,
                            unsigned long long timeout_ns);
