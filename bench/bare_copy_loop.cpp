// tdc_bare_copy_loop: the reference the harness is held against
// (side_by_side.py, "harness overhead"). What a user would write: dst.copy_(src)
// in a plain loop, one steady_clock interval around many copies, no Google
// Benchmark and no TDC library, with LibTorch's thread settings untouched (the
// same OMP_NUM_THREADS as the benchmark programs get).
//
//   tdc_bare_copy_loop [--backend-lib=PATH] [--device=DEV]... [--min-time=S]
//                      [--repetitions=N] SIZE...
// prints one JSON object: {"intra_op_threads": N, "d2d": {"<device>": {"<bytes>": [bytes/s, ...]}}}
#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <dlfcn.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::vector<std::string> devices;
  std::vector<std::int64_t> sizes;
  double min_time = 0.05;  // seconds per sample, as tdc_bench_transfer's default
  int repetitions = 5;
};

[[noreturn]] void usage(const std::string& problem) {
  std::cerr << "tdc_bare_copy_loop: " << problem << std::endl;
  std::exit(2);
}

double parse_positive(const std::string& text, const std::string& what) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !(value > 0)) usage(what + "='" + text + "': expected a number > 0");
  return value;
}

Options parse(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = arg.substr(arg.find('=') + 1);
    if (arg.rfind("--backend-lib=", 0) == 0) {
      // A PrivateUse1 backend registers itself when loaded.
      if (dlopen(value.c_str(), RTLD_NOW | RTLD_GLOBAL) == nullptr) usage(std::string("--backend-lib: ") + dlerror());
    } else if (arg.rfind("--device=", 0) == 0) {
      options.devices.push_back(value);
    } else if (arg.rfind("--min-time=", 0) == 0) {
      options.min_time = parse_positive(value, "--min-time");
    } else if (arg.rfind("--repetitions=", 0) == 0) {
      options.repetitions = static_cast<int>(parse_positive(value, "--repetitions"));
    } else {
      options.sizes.push_back(static_cast<std::int64_t>(parse_positive(arg, "size")));
    }
  }
  if (options.devices.empty()) options.devices.push_back("cpu");
  if (options.sizes.empty()) usage("no SIZE given");
  return options;
}

// Seconds for `copies` copies; the one read back at the end makes sure an
// asynchronous backend has finished them.
double time_loop(at::Tensor& dst, const at::Tensor& src, std::int64_t copies) {
  const auto started = Clock::now();
  for (std::int64_t i = 0; i < copies; ++i) dst.copy_(src);
  if (!dst.is_cpu()) (void)dst[0].item<std::uint8_t>();
  return std::chrono::duration<double>(Clock::now() - started).count();
}

// Bytes per second of `repetitions` samples, each at least `min_time` long.
std::vector<double> measure(const c10::Device& device, std::int64_t bytes, const Options& options) {
  const auto on_device = at::TensorOptions().dtype(at::kByte).device(device);
  const auto src = at::randint(0, 255, {bytes}, at::TensorOptions().dtype(at::kByte)).to(device);
  auto dst = at::empty({bytes}, on_device);
  std::int64_t copies = 1;
  while (time_loop(dst, src, copies) < options.min_time) copies *= 2;  // also faults dst in
  std::vector<double> samples;
  for (int r = 0; r < options.repetitions; ++r) {
    samples.push_back(static_cast<double>(bytes) * static_cast<double>(copies) / time_loop(dst, src, copies));
  }
  return samples;
}

}  // namespace

int main(int argc, char** argv) {
  const auto options = parse(argc, argv);
  auto d2d = nlohmann::ordered_json::object();
  try {
    for (const auto& name : options.devices) {
      const c10::Device device(name);
      auto& by_size = d2d[device.str()] = nlohmann::ordered_json::object();
      for (const auto size : options.sizes) by_size[std::to_string(size)] = measure(device, size, options);
    }
  } catch (const c10::Error& error) {
    std::cerr << "tdc_bare_copy_loop: " << error.what_without_backtrace() << std::endl;
    return 1;
  }
  const nlohmann::ordered_json result = {{"intra_op_threads", at::get_num_threads()}, {"d2d", d2d}};
  std::cout << result.dump() << std::endl;
  return 0;
}
