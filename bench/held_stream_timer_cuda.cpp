// nvbandwidth's method on CUDA: hold the current stream with a spin kernel,
// record the begin event behind it, let the caller enqueue the batch, record
// the end event, release the hold and wait. The interval then holds the
// device's work only, even for copies shorter than their launch cost.
#include "held_stream_timer.h"

#include "hold_kernel.h"

#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <c10/util/Exception.h>

#include <atomic>
#include <string>

namespace tdc::bench {
namespace {

// Far beyond the enqueue time of any batch calibrate_batch() picks.
constexpr unsigned long long kHoldTimeoutNs = 10'000'000'000ull;
// Behind the hold, CUDA queues about a thousand launches and copies on a
// stream; the next one blocks the host until the queue drains, which the hold
// prevents until its timeout. On the H200 host (docs/gpu-hosts.md) batches of
// 804 forward calls ran, and the d2d copy batches calibration asked for (a
// few thousand 4 KiB copies) stalled every batch for the 10 s timeout. A
// quarter of the queue leaves room for calls that enqueue several operations;
// the interval is timed by events, so a batch this long still resolves.
constexpr std::int64_t kMaxHeldCalls = 256;

void check(cudaError_t status, const char* what) {
  TORCH_CHECK(status == cudaSuccess, "held-stream timer: ", what, ": ", cudaGetErrorString(status));
}

class HeldStreamTimer final : public compat::IntervalTimer {
 public:
  explicit HeldStreamTimer(const c10::Device& device) : device_(device) {
    c10::cuda::CUDAGuard guard(device_);
    check(cudaHostAlloc(reinterpret_cast<void**>(&words_), 2 * sizeof(int), cudaHostAllocMapped),
          "cudaHostAlloc");
    check(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_words_), words_, 0),
          "cudaHostGetDevicePointer");
    check(cudaEventCreate(&begin_), "cudaEventCreate");
    check(cudaEventCreate(&end_), "cudaEventCreate");
  }
  ~HeldStreamTimer() override {
    release_word() = 1;  // a batch that threw must not leave the stream held
    cudaEventDestroy(begin_);
    cudaEventDestroy(end_);
    cudaFreeHost(words_);
  }
  HeldStreamTimer(const HeldStreamTimer&) = delete;
  HeldStreamTimer& operator=(const HeldStreamTimer&) = delete;

  void start() override {
    const auto stream = c10::cuda::getCurrentCUDAStream(device_.index()).stream();
    release_word() = 0;
    timed_out_word() = 0;
    std::atomic_thread_fence(std::memory_order_seq_cst);
    check(tdc_launch_hold(stream, &device_words_[0], &device_words_[1], kHoldTimeoutNs),
          "launching the hold kernel");
    check(cudaEventRecord(begin_, stream), "cudaEventRecord");
  }
  double stop() override {
    const auto stream = c10::cuda::getCurrentCUDAStream(device_.index()).stream();
    check(cudaEventRecord(end_, stream), "cudaEventRecord");
    std::atomic_thread_fence(std::memory_order_seq_cst);
    release_word() = 1;
    check(cudaEventSynchronize(end_), "cudaEventSynchronize");
    TORCH_CHECK(timed_out_word() == 0,
                "held-stream timer: the hold kernel timed out before the batch was enqueued (did a call "
                "wait for the device, or fill the stream's launch queue?)");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, begin_, end_), "cudaEventElapsedTime");
    return ms / 1e3;
  }
  std::string method() const override {
    return "cuda events, stream held by a spin kernel while the batch is enqueued";
  }
  std::int64_t max_batch() const override { return kMaxHeldCalls; }

 private:
  volatile int& release_word() { return static_cast<volatile int*>(words_)[0]; }
  volatile int& timed_out_word() { return static_cast<volatile int*>(words_)[1]; }

  c10::Device device_;
  int* words_ = nullptr;         // [0] release, [1] timed out; host view
  int* device_words_ = nullptr;    // the same words, device view
  cudaEvent_t begin_ = nullptr, end_ = nullptr;
};

}  // namespace

std::unique_ptr<compat::IntervalTimer> make_held_stream_timer(const c10::Device& device) {
  if (!device.is_cuda()) return nullptr;
  return std::make_unique<HeldStreamTimer>(device);
}

}  // namespace tdc::bench
