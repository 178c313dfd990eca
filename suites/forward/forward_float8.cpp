// Weight-only float8: the seed model's weight and bias stored on the device
// in float8 (e4m3fn, e5m2), widened to float32 there, then the forward, on
// salted inputs whose rows differ; against a float64 CPU reference from the
// same float8-rounded weights. No LibTorch device runs a Linear in float8
// itself (CUDA needs _scaled_mm), so this is how float8 reaches a forward:
// storage, copies and the widening kernel. A format the device does not
// declare (getDeviceCapability) is left to suites/dtypes.
#include <ATen/ATen.h>

#include <string>

#include "distinguishing_input.h"
#include "tdc/compat/float8.h"
#include "tdc/dtypes.h"
#include "tdc/fixtures.h"
#include "tdc/patterns.h"
#include "tdc/seed_model.h"
#include "tdc/tolerance.h"

namespace {

using ForwardFloat8 = tdc::DeviceTest;

// Bit for bit: float8 has no CPU equality kernel in every release, bytes do.
::testing::AssertionResult same_bits(const at::Tensor& actual, const at::Tensor& expected) {
  return tdc::same_elements(actual.contiguous().view(at::kByte), expected.contiguous().view(at::kByte));
}

void expect_float8_forward(const c10::Device& device, c10::ScalarType format) {
  const auto model = tdc::make_seed_model();
  const auto weight8 = model->weight.detach().to(format);
  const auto bias8 = model->bias.detach().to(format);
  const auto input = tdc::forward::distinguishing_input(7, at::kFloat);
  const auto reference = at::linear(input.to(at::kDouble), weight8.to(at::kDouble), bias8.to(at::kDouble));

  const auto weight_on_device = weight8.to(device);
  const auto bias_on_device = bias8.to(device);
  ASSERT_EQ(weight_on_device.scalar_type(), format)
      << "a " << format << " weight moved to the device is " << weight_on_device.scalar_type() << ": the copy converts float8 instead of keeping it";
  ASSERT_EQ(weight_on_device.device(), device)
      << "a float8 weight moved to " << device << " landed on " << weight_on_device.device();
  ASSERT_TRUE(same_bits(weight_on_device.cpu(), weight8)) << "the weight after host -> device -> host";
  ASSERT_TRUE(same_bits(bias_on_device.cpu(), bias8)) << "the bias after host -> device -> host";

  at::Tensor output;
  {
    at::NoGradGuard no_grad;
    output = at::linear(input.to(device), weight_on_device.to(at::kFloat), bias_on_device.to(at::kFloat));
  }
  EXPECT_EQ(output.device(), device)
      << "a forward with " << format << " weights on " << device << " gave its output on " << output.device();
  EXPECT_EQ(output.scalar_type(), at::kFloat)
      << "a forward with " << format << " weights upcast to float32 gave " << output.scalar_type() << ", not float32: a kernel returns the wrong dtype";
  EXPECT_TRUE(tdc::all_close(output, reference, tdc::tolerance_for(at::kFloat)))
      << "a forward with " << format << " weights upcast on the device differs from the CPU reference: the float8 to float32 conversion or Linear is wrong";
}

TEST_P(ForwardFloat8, Float8WeightsWidenedOnTheDeviceMatchTheReference) {
  if (auto reason = tdc::compat::float8_unsupported_reason()) GTEST_SKIP() << *reason;
  std::string checked, not_declared;
  for (const auto format : tdc::compat::float8_dtypes()) {
    if (auto reason = tdc::undeclared_reason(device(), format)) {
      not_declared += (not_declared.empty() ? "" : "; ") + *reason;
      continue;
    }
    SCOPED_TRACE(c10::toString(format));
    expect_float8_forward(device(), format);
    checked += (checked.empty() ? "" : " ") + std::string(c10::toString(format));
  }
  if (checked.empty()) GTEST_SKIP() << not_declared;
  RecordProperty("float8_checked", checked);
}

TDC_INSTANTIATE_DEVICE_TEST_SUITE(ForwardFloat8);

}  // namespace
