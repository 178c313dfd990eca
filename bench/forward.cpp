// tdc_bench_forward: time per forward pass (batched, with the FLOP rate) of
// the seed's Linear(3, 2) and of Linear(1024, 1024) at three batch sizes, per
// device and dtype, and the seed's latency per call as its own series.
// Inference only (NoGradGuard), as the seed runs it.
#include "batch_timing.h"
#include "device_errors.h"
#include "program.h"
#include "tdc/devices_under_test.h"
#include "tdc/dtypes.h"
#include "tdc/seed_model.h"

#include <ATen/ATen.h>
#include <torch/nn/modules/linear.h>

namespace tdc::bench {
namespace {

struct ForwardCase {
  std::string key;  // "seed", "linear1024_b64": the key thresholds.json uses
  std::int64_t in, out, batch;
  bool seed;  // the seed's own model and input
};

std::vector<ForwardCase> cases(const Settings& settings) {
  std::vector<ForwardCase> list{{"seed", 3, 2, 4, true}};
  for (const std::int64_t batch : {1, 64, 4096}) {
    if (settings.quick && batch > 64) continue;
    list.push_back({"linear1024_b" + std::to_string(batch), 1024, 1024, batch, false});
  }
  return list;
}

// Why `device` cannot run a Linear in `dtype`, or empty. Asks the suite's
// list of device-type gaps first, then the device (one tiny forward), which
// also finds the gaps of one LibTorch release (1.13 has no float16 on cpu).
std::string dtype_unsupported(const c10::Device& device, c10::ScalarType dtype) {
  if (const auto reason = dtype_unsupported_reason(device.type(), dtype)) return *reason;
  try {
    const auto options = at::TensorOptions().dtype(dtype).device(device);
    at::NoGradGuard no_grad;
    at::linear(at::ones({2, 3}, options), at::ones({2, 3}, options)).cpu();
    return "";
  } catch (const c10::Error& error) {
    return std::string("linear in ") + dtype_name(dtype) + " failed on " + device.str() + ": " +
           error.what_without_backtrace();
  }
}

enum class Timing { kBatched, kPerCall };

void run_forward(benchmark::State& state, const ForwardCase& c, c10::Device device,
                 c10::ScalarType dtype, Timing timing, std::int64_t& batch) {
  at::NoGradGuard no_grad;
  const auto options = at::TensorOptions().dtype(dtype).device(device);
  // The large model's weights do not matter to its timing: default init.
  torch::nn::Linear model = c.seed ? make_seed_model() : torch::nn::Linear(c.in, c.out);
  model->to(device, dtype);
  const auto input = c.seed ? make_seed_input(options) : at::randn({c.batch, c.in}, options);
  // The seed's rule: a forward whose output left the device is not timed.
  const auto first = model->forward(input);
  TORCH_CHECK(first.device() == device, "forward on ", device.str(), " returned its output on ",
              first.device().str());
  const auto forward = [&] { benchmark::DoNotOptimize(model->forward(input)); };

  if (timing == Timing::kPerCall) return time_each_call(state, {device}, forward);
  const auto timer = make_batch_timer({device}, HostWaits::kNever);
  if (batch == 0) batch = calibrate_batch(*timer, forward);
  time_batches(state, *timer, batch, forward);
  state.counters["FLOP/s"] = benchmark::Counter(2.0 * c.in * c.out * c.batch,
                                                benchmark::Counter::kIsIterationInvariantRate);
}

void add_forward(const std::string& name, const ForwardCase& c, c10::Device device,
                 c10::ScalarType dtype, Timing timing) {
  auto batch = std::make_shared<std::int64_t>(0);  // calibrated once, kept across repetitions
  configure(benchmark::RegisterBenchmark(name.c_str(),
                                         [c, device, dtype, timing, batch](benchmark::State& state) {
                                           guard_device_errors(state, device.str(), [&] {
                                             run_forward(state, c, device, dtype, timing, *batch);
                                           });
                                         }));
}

void register_forwards(const Settings& settings) {
  for (const auto& dut : devices_under_test()) {
    if (!dut.present()) {
      skip_series("forward/*/" + dut.device.str(), dut.absent_reason);
      continue;
    }
    for (const auto dtype : {c10::kFloat, c10::kHalf, c10::kBFloat16}) {
      const auto reason = dtype_unsupported(dut.device, dtype);
      if (!reason.empty()) {
        skip_series("forward/*_" + dtype_name(dtype) + "/" + dut.device.str(), reason);
        continue;
      }
      for (const auto& c : cases(settings)) {
        const auto series = c.key + "_" + dtype_name(dtype) + "/" + dut.device.str();
        add_forward("forward/" + series, c, dut.device, dtype, Timing::kBatched);
        if (c.seed) add_forward("latency/" + series, c, dut.device, dtype, Timing::kPerCall);
      }
    }
  }
}

}  // namespace
}  // namespace tdc::bench

int main(int argc, char** argv) {
  return tdc::bench::run({"tdc_bench_forward",
                          "forward latency and FLOP rate of the seed and Linear(1024, 1024)",
                          tdc::bench::register_forwards},
                         argc, argv);
}
