// The raw reference for the CUDA side-by-side (bench/side_by_side.py (c)):
// pinned host <-> device copies issued straight to the CUDA runtime with
// cudaMemcpyAsync, timed with CUDA events, verified, median of repetitions.
// No LibTorch here on purpose: it is what LibTorch's copies are held against.
//
//   tdc_cuda_memcpy_anchor [--device=N] [--repetitions=N] SIZE...
// prints one JSON object: {"h2d_pinned": {"<bytes>": <bytes/s>}, "d2h_pinned": {...}}
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

[[noreturn]] void fail(const std::string& what, cudaError_t error) {
  std::fprintf(stderr, "tdc_cuda_memcpy_anchor: %s: %s\n", what.c_str(), cudaGetErrorString(error));
  std::exit(1);
}

void check(cudaError_t error, const std::string& what) {
  if (error != cudaSuccess) fail(what, error);
}

[[noreturn]] void usage(const std::string& problem) {
  std::fprintf(stderr, "tdc_cuda_memcpy_anchor: %s\n", problem.c_str());
  std::exit(2);
}

long parse_at_least(const std::string& text, long minimum, const std::string& what) {
  char* end = nullptr;
  const long value = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || value < minimum) {
    usage(what + "='" + text + "': expected an integer >= " + std::to_string(minimum));
  }
  return value;
}

struct Buffers {
  void* host = nullptr;
  void* device = nullptr;
  std::size_t bytes;

  explicit Buffers(std::size_t size) : bytes(size) {
    check(cudaMallocHost(&host, bytes), "cudaMallocHost");
    check(cudaMalloc(&device, bytes), "cudaMalloc");
  }
  ~Buffers() {
    cudaFreeHost(host);
    cudaFree(device);
  }
  Buffers(const Buffers&) = delete;
  Buffers& operator=(const Buffers&) = delete;
};

// A fast wrong copy is an error, not a number: round-trip a seeded pattern.
void verify(Buffers& buffers, cudaStream_t stream) {
  auto* bytes = static_cast<std::uint8_t*>(buffers.host);
  std::vector<std::uint8_t> pattern(buffers.bytes);
  for (std::size_t i = 0; i < buffers.bytes; ++i) pattern[i] = static_cast<std::uint8_t>(i * 131 + 7);
  std::memcpy(bytes, pattern.data(), buffers.bytes);
  check(cudaMemcpyAsync(buffers.device, bytes, buffers.bytes, cudaMemcpyHostToDevice, stream), "h2d");
  std::memset(bytes, 0, buffers.bytes);
  check(cudaMemcpyAsync(bytes, buffers.device, buffers.bytes, cudaMemcpyDeviceToHost, stream), "d2h");
  check(cudaStreamSynchronize(stream), "synchronize");
  if (std::memcmp(bytes, pattern.data(), buffers.bytes) != 0) {
    std::fprintf(stderr, "tdc_cuda_memcpy_anchor: verification failed at %zu bytes\n", buffers.bytes);
    std::exit(1);
  }
}

// Median bytes/s of `repetitions` samples, each timing enough copies to
// cover ~10 ms on the device clock.
double median_rate(Buffers& buffers, cudaMemcpyKind kind, int repetitions, cudaStream_t stream) {
  void* to = kind == cudaMemcpyHostToDevice ? buffers.device : buffers.host;
  const void* from = kind == cudaMemcpyHostToDevice ? buffers.host : buffers.device;
  cudaEvent_t begin, end;
  check(cudaEventCreate(&begin), "cudaEventCreate");
  check(cudaEventCreate(&end), "cudaEventCreate");
  const auto time_copies = [&](int count) {
    check(cudaEventRecord(begin, stream), "cudaEventRecord");
    for (int i = 0; i < count; ++i) check(cudaMemcpyAsync(to, from, buffers.bytes, kind, stream), "copy");
    check(cudaEventRecord(end, stream), "cudaEventRecord");
    check(cudaEventSynchronize(end), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, begin, end), "cudaEventElapsedTime");
    return static_cast<double>(ms) / 1e3;
  };
  const double one = std::max(time_copies(1), 1e-7);  // warm-up and size the loop
  const int count = std::max(1, static_cast<int>(0.01 / one));
  std::vector<double> rates;
  for (int r = 0; r < repetitions; ++r) {
    rates.push_back(static_cast<double>(buffers.bytes) * count / time_copies(count));
  }
  cudaEventDestroy(begin);
  cudaEventDestroy(end);
  std::sort(rates.begin(), rates.end());
  return rates[rates.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int device = 0, repetitions = 5;
  std::vector<std::size_t> sizes;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--device=", 0) == 0) {
      device = static_cast<int>(parse_at_least(arg.substr(9), 0, "--device"));
    } else if (arg.rfind("--repetitions=", 0) == 0) {
      repetitions = static_cast<int>(parse_at_least(arg.substr(14), 1, "--repetitions"));
    } else {
      sizes.push_back(static_cast<std::size_t>(parse_at_least(arg, 1, "size")));
    }
  }
  if (sizes.empty()) usage("give at least one size in bytes");
  check(cudaSetDevice(device), "cudaSetDevice");
  cudaStream_t stream;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");

  std::string h2d, d2h;
  for (const auto size : sizes) {
    Buffers buffers(size);
    verify(buffers, stream);
    const auto key = "\"" + std::to_string(size) + "\": ";
    h2d += (h2d.empty() ? "" : ", ") + key + std::to_string(median_rate(buffers, cudaMemcpyHostToDevice, repetitions, stream));
    d2h += (d2h.empty() ? "" : ", ") + key + std::to_string(median_rate(buffers, cudaMemcpyDeviceToHost, repetitions, stream));
  }
  cudaStreamDestroy(stream);
  std::printf("{\"h2d_pinned\": {%s}, \"d2h_pinned\": {%s}}\n", h2d.c_str(), d2h.c_str());
  return 0;
}
