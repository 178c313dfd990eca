// One backward step on the device gives the gradients a float64 CPU
// reference gives: the seed model, Linear(3, 2), and a wider Linear(64, 32),
// each under a sum-of-squares loss, for weight, bias and input.
#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <torch/nn/modules/linear.h>

#include <string>
#include <tuple>
#include <vector>

#include "tdc/fixtures.h"
#include "tdc/prerequisite.h"
#include "tdc/seed_model.h"
#include "tdc/stream_fixtures.h"
#include "tdc/tolerance.h"

namespace {

struct Gradients {
  at::Tensor weight;
  at::Tensor bias;
  at::Tensor input;
};

// 0.5 * sum((output - target)^2), whose gradient at the output is simply
// output - target: gradients of order one, not scaled down by a mean.
Gradients one_step(const at::Tensor& weight, const at::Tensor& bias, const at::Tensor& input,
                   const at::Tensor& target) {
  const auto x = input.detach().requires_grad_(true);
  const auto loss = (at::linear(x, weight, bias) - target).pow(2).sum().mul(0.5);
  loss.backward();
  return {weight.grad(), bias.grad(), x.grad()};
}

torch::nn::Linear make_wide_model() {
  torch::nn::Linear model(64, 32);
  auto generator = at::make_generator<at::CPUGeneratorImpl>(6432);
  at::NoGradGuard no_grad;
  model->weight.uniform_(-0.125, 0.125, generator);
  model->bias.uniform_(-0.125, 0.125, generator);
  return model;
}

at::Tensor salted(at::IntArrayRef sizes, uint64_t salt, c10::ScalarType dtype) {
  auto generator = at::make_generator<at::CPUGeneratorImpl>(salt);
  return at::rand(sizes, generator, at::TensorOptions().dtype(at::kDouble))
      .mul_(2.0)
      .sub_(1.0)
      .to(dtype);
}

// torch.testing's tolerances assume one rounding; a backward step rounds
// the output, the loss gradient and two matrix products. Bounds relative to
// the largest gradient element, so that a wrong factor anywhere (0.5, 2)
// is far outside them.
tdc::Tolerance backward_tolerance(c10::ScalarType dtype, const at::Tensor& reference) {
  const double scale = reference.abs().max().item<double>();
  switch (dtype) {
    case c10::kDouble: return {1e-7, 1e-7 * scale};
    case c10::kHalf: return {1e-2, 1e-2 * scale};
    case c10::kBFloat16: return {5e-2, 5e-2 * scale};
    default: return {1e-4, 1e-5 * scale};
  }
}

using Backward = tdc::DeviceDtypeTest;

void expect_gradients_match(torch::nn::Linear model, int64_t batch, uint64_t salt,
                            const c10::Device& device, c10::ScalarType dtype) {
  model->to(dtype);
  const auto input = salted({batch, model->options.in_features()}, salt, dtype);
  const auto target = salted({batch, model->options.out_features()}, salt + 1, dtype);
  const auto as_reference = [](const at::Tensor& t) {
    return t.detach().to(at::kDouble).requires_grad_(true);
  };
  const auto expected = one_step(as_reference(model->weight), as_reference(model->bias),
                                 input.to(at::kDouble), target.to(at::kDouble));
  TDC_MOVE_MODULE_OR_FAIL(*model, device);
  const auto got = one_step(model->weight, model->bias, input.to(device), target.to(device));
  using Named = std::tuple<const char*, at::Tensor, at::Tensor>;
  for (const auto& [name, actual, reference] :
       std::vector<Named>{{"weight", got.weight, expected.weight},
                          {"bias", got.bias, expected.bias},
                          {"input", got.input, expected.input}}) {
    ASSERT_TRUE(actual.defined()) << "no gradient for the " << name;
    EXPECT_EQ(actual.device(), device) << name;
    EXPECT_EQ(actual.scalar_type(), dtype) << name;
    EXPECT_TRUE(tdc::all_close(actual, reference, backward_tolerance(dtype, reference)))
        << "gradient of the " << name;
  }
}

TEST_P(Backward, OneStepMatchesFloat64CpuGradients) {
  // The autograd engine orders the device's work on the guard's streams: a
  // guard that gives none (c10's no-op guard) is that check's to name.
  if (const auto missing = tdc::streams_missing(device())) GTEST_FATAL_FAILURE_(missing->c_str());
  {
    SCOPED_TRACE("seed model, Linear(3, 2), batch 5");
    expect_gradients_match(tdc::make_seed_model(), 5, 31, device(), dtype());
  }
  {
    SCOPED_TRACE("Linear(64, 32), batch 7");
    expect_gradients_match(make_wide_model(), 7, 37, device(), dtype());
  }
}

TDC_INSTANTIATE_DEVICE_DTYPE_TEST_SUITE(Backward);

}  // namespace
