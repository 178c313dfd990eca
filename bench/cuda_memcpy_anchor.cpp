// The raw reference for the CUDA side-by-side (bench/side_by_side.py (c)):
// pinned host <-> device copies issued straight to the CUDA runtime with
// cudaMemcpyAsync, timed with CUDA events, verified first. No LibTorch here
// on purpose: it is what LibTorch's copies are held against.
//
//   tdc_cuda_memcpy_anchor [--device=N] [--sizes=BYTES,...] [--benchmark_*]
//
// A Google Benchmark program, so its JSON (--benchmark_out) is read like the
// transfer benchmarks': "anchor/<h2d_pinned|d2h_pinned>/cuda:<N>/<bytes>/
// manual_time", medians of repetitions, bytes_per_second.
// Exit status: 0 every copy verified and timed, 1 a CUDA call or a
// verification failed, 2 bad flags (one line).
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

constexpr const char* kProgram = "tdc_cuda_memcpy_anchor";
bool any_failed = false;

struct CudaFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void check(cudaError_t error, const std::string& what) {
  if (error != cudaSuccess) throw CudaFailure(what + ": " + cudaGetErrorString(error));
}

[[noreturn]] void usage(const std::string& problem) {
  std::cerr << kProgram << ": " << problem << std::endl;
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

std::vector<std::size_t> parse_sizes(const std::string& list) {
  std::vector<std::size_t> sizes;
  std::stringstream items(list);
  for (std::string item; std::getline(items, item, ',');) {
    sizes.push_back(static_cast<std::size_t>(parse_at_least(item, 1, "--sizes")));
  }
  if (sizes.empty()) usage("--sizes='': expected sizes in bytes, comma-separated");
  return sizes;
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

// A fast wrong copy is an error, not a number: round-trip a salted pattern.
void verify(Buffers& buffers, cudaStream_t stream) {
  auto* bytes = static_cast<std::uint8_t*>(buffers.host);
  std::vector<std::uint8_t> pattern(buffers.bytes);
  for (std::size_t i = 0; i < buffers.bytes; ++i) pattern[i] = static_cast<std::uint8_t>(i * 131 + 7);
  std::memcpy(bytes, pattern.data(), buffers.bytes);
  check(cudaMemcpyAsync(buffers.device, bytes, buffers.bytes, cudaMemcpyHostToDevice, stream), "h2d");
  // A copy from pinned memory is asynchronous: clearing the buffer before it
  // ends races it (on the H200 host every size from 256 KiB failed so).
  check(cudaStreamSynchronize(stream), "synchronize");
  std::memset(bytes, 0, buffers.bytes);
  check(cudaMemcpyAsync(bytes, buffers.device, buffers.bytes, cudaMemcpyDeviceToHost, stream), "d2h");
  check(cudaStreamSynchronize(stream), "synchronize");
  if (std::memcmp(bytes, pattern.data(), buffers.bytes) != 0) {
    throw CudaFailure("verification failed: the round trip changed the bytes");
  }
}

// One iteration is a batch of copies sized to ~10 ms on the device clock,
// timed by events on the copy stream: one copy of 4 KiB is too short for an
// event pair to resolve.
void copy_benchmark(benchmark::State& state, int device, std::size_t bytes, cudaMemcpyKind kind) {
  cudaStream_t stream = nullptr;
  cudaEvent_t begin = nullptr, end = nullptr;
  try {
    check(cudaSetDevice(device), "cudaSetDevice");
    check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    check(cudaEventCreate(&begin), "cudaEventCreate");
    check(cudaEventCreate(&end), "cudaEventCreate");
    Buffers buffers(bytes);
    verify(buffers, stream);
    void* to = kind == cudaMemcpyHostToDevice ? buffers.device : buffers.host;
    const void* from = kind == cudaMemcpyHostToDevice ? buffers.host : buffers.device;
    const auto time_copies = [&](int count) {
      check(cudaEventRecord(begin, stream), "cudaEventRecord");
      for (int i = 0; i < count; ++i) check(cudaMemcpyAsync(to, from, bytes, kind, stream), "copy");
      check(cudaEventRecord(end, stream), "cudaEventRecord");
      check(cudaEventSynchronize(end), "cudaEventSynchronize");
      float ms = 0;
      check(cudaEventElapsedTime(&ms, begin, end), "cudaEventElapsedTime");
      return static_cast<double>(ms) / 1e3;
    };
    const double one = std::max(time_copies(1), 1e-7);  // warm-up, and sizes the batch
    const int batch = std::max(1, static_cast<int>(0.01 / one));
    for (auto _ : state) state.SetIterationTime(time_copies(batch));
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * batch *
                            static_cast<std::int64_t>(bytes));
    state.counters["copies_per_iteration"] = batch;
  } catch (const CudaFailure& failure) {
    any_failed = true;
    state.SkipWithError(failure.what());
  }
  if (begin) cudaEventDestroy(begin);
  if (end) cudaEventDestroy(end);
  if (stream) cudaStreamDestroy(stream);
}

}  // namespace

int main(int argc, char** argv) {
  int device = 0;
  std::vector<std::size_t> sizes = {4 << 10, 256 << 10, 16 << 20, 256 << 20};
  // Five repetitions unless told otherwise, as a run-wide flag like the other
  // benchmark programs', so that the names carry no "repeats:" part.
  std::string repetitions = "--benchmark_repetitions=5";
  std::vector<char*> passed = {argv[0], repetitions.data()};
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::cout << "usage: " << kProgram << " [--device=N] [--sizes=BYTES,...] [--benchmark_*]\n"
                << "raw cudaMemcpyAsync pinned copies, verified, timed with CUDA events\n";
      return 0;
    } else if (arg.rfind("--device=", 0) == 0) {
      device = static_cast<int>(parse_at_least(arg.substr(9), 0, "--device"));
    } else if (arg.rfind("--sizes=", 0) == 0) {
      sizes = parse_sizes(arg.substr(8));
    } else if (arg.rfind("--benchmark_", 0) == 0) {
      passed.push_back(argv[i]);
    } else {
      usage("unknown argument '" + arg + "' (see --help)");
    }
  }
  int passed_count = static_cast<int>(passed.size());
  passed.push_back(nullptr);
  benchmark::Initialize(&passed_count, passed.data());
  if (benchmark::ReportUnrecognizedArguments(passed_count, passed.data())) return 2;

  const std::string where = "cuda:" + std::to_string(device);
  for (const auto size : sizes) {
    for (const auto& [pattern, kind] : {std::pair{"h2d_pinned", cudaMemcpyHostToDevice},
                                        std::pair{"d2h_pinned", cudaMemcpyDeviceToHost}}) {
      const std::string name = std::string("anchor/") + pattern + "/" + where + "/" + std::to_string(size);
      benchmark::RegisterBenchmark(name.c_str(), copy_benchmark, device, size, kind)
          ->UseManualTime()
          ->Unit(benchmark::kMicrosecond);
    }
  }
  if (benchmark::RunSpecifiedBenchmarks() == 0) {
    std::cerr << kProgram << ": no benchmark matched the filter" << std::endl;
    return 2;
  }
  benchmark::Shutdown();
  return any_failed ? 1 : 0;
}
