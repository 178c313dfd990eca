// Level 3: the seed's forward and a Linear(1024, 1024) forward, repeated on
// the device for a set time (TDC_SUSTAINED_SECONDS, read and range-checked
// with the run's settings: tdc/run_config.h), every result checked against a
// float64 CPU reference. Catches what one forward cannot: results that drift
// as the device warms up, clocks change or memory is reused. The seconds it
// ran for are a measurement (measured.sustained_seconds), recorded before the
// loop starts, which ci/verify holds against qualification's minimum.
#include <ATen/ATen.h>
#include <torch/nn/modules/linear.h>

#include <chrono>
#include <string>

#include "tdc/fixtures.h"
#include "tdc/prerequisite.h"
#include "tdc/result_journal.h"
#include "tdc/run_config.h"
#include "tdc/seed_model.h"
#include "tdc/tolerance.h"

namespace {

using SustainedNumerics = tdc::DeviceTest;

// What the check needs besides its sustained seconds (moving the models,
// the references, the first forward) within TDC_TEST_TIMEOUT.
constexpr int kSetUpSeconds = 10;

// A forward whose output is checked, with its float64 reference.
struct CheckedForward {
  torch::nn::Linear model;
  at::Tensor input_on_device;  // on the CPU until the check moves it
  at::Tensor reference;
};

CheckedForward wide_forward() {
  at::manual_seed(1024);
  torch::nn::Linear model(1024, 1024);
  const auto input = at::randn({64, 1024});
  const auto reference = at::addmm(model->bias.to(at::kDouble), input.to(at::kDouble),
                                   model->weight.to(at::kDouble).t());
  return {model, input, reference};
}

CheckedForward seed_forward() {
  auto model = tdc::make_seed_model();
  const auto input = tdc::make_seed_input(at::TensorOptions());
  const auto reference = tdc::reference_forward(model, input);
  return {model, input, reference};
}

TEST_P(SustainedNumerics, SeedAndLinear1024MatchReference) {
  const int seconds = tdc::sustained_seconds();  // prepare_run refused a bad value
  const int timeout = tdc::test_timeout_seconds();
  ASSERT_LE(seconds + kSetUpSeconds, timeout)
      << "TDC_SUSTAINED_SECONDS=" << seconds << " does not fit in TDC_TEST_TIMEOUT=" << timeout
      << " (the check needs its seconds plus " << kSetUpSeconds
      << " to set up): raise TDC_TEST_TIMEOUT or lower TDC_SUSTAINED_SECONDS";
  tdc::record_property("measured.sustained_seconds", std::to_string(seconds));
  CheckedForward forwards[] = {seed_forward(), wide_forward()};
  for (auto& forward : forwards) {
    TDC_MOVE_MODULE_OR_FAIL(*forward.model, device());
    forward.input_on_device = forward.input_on_device.to(device());
  }
  const char* names[] = {"seed Linear(3, 2)", "Linear(1024, 1024)"};
  const auto tolerance = tdc::tolerance_for(at::kFloat);

  at::NoGradGuard no_grad;
  tdc::journal_step("sustained forwards on " + device().str() + " for " + std::to_string(seconds) + " s");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  long iterations = 0;
  do {
    for (int which = 0; which < 2; ++which) {
      auto& forward = forwards[which];
      // .to(kCPU) waits for the device, so every result is read after it is done.
      const auto output = forward.model->forward(forward.input_on_device).to(at::kCPU);
      ASSERT_TRUE(tdc::all_close(output, forward.reference, tolerance))
          << names[which] << " on " << device() << " diverged at iteration " << iterations;
    }
    ++iterations;
  } while (std::chrono::steady_clock::now() < deadline);
  tdc::record_property("measured.sustained_iterations", std::to_string(iterations));
}

TDC_INSTANTIATE_DEVICE_TEST_SUITE(SustainedNumerics);

}  // namespace
