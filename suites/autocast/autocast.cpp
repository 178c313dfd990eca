// Autocast (AMP): the seed model's forward under autocast, once per
// lower-precision dtype the device autocasts to and declares, matches the
// float32 forward within that dtype's tolerance; the output has the autocast
// dtype (libtorch's C++ Linear runs aten::addmm, on autocast's
// lower_precision_fp list on every backend);
// the weights stay float32 (autocast casts copies, never the parameters).
// A device type this LibTorch cannot autocast, or a backend that registers
// no autocast kernel for aten::addmm, is a skip naming the capability.
#include <ATen/ATen.h>

#include <string>

#include "tdc/compat/autocast.h"
#include "tdc/dtypes.h"
#include "tdc/fixtures.h"
#include "tdc/prerequisite.h"
#include "tdc/seed_model.h"
#include "tdc/tolerance.h"

namespace {

using Autocast = tdc::DeviceTest;

void expect_autocast_forward(torch::nn::Linear& model, const c10::Device& device, c10::ScalarType dtype) {
  const auto input = tdc::make_seed_input(at::TensorOptions().device(device).dtype(at::kFloat));
  at::NoGradGuard no_grad;
  const auto reference = model->forward(input).cpu();
  at::Tensor output;
  {
    tdc::compat::AutocastScope autocast(device.type(), dtype);
    output = model->forward(input);
  }
  const std::string dtype_name = c10::toString(dtype);
  EXPECT_EQ(output.scalar_type(), dtype)
      << "the forward under autocast to " << dtype_name << " returned " << c10::toString(output.scalar_type())
      << ", not the autocast dtype: the backend's autocast kernel for aten::addmm casts to the wrong dtype "
         "(docs/backends.md, Autocast)";
  EXPECT_EQ(output.device(), device) << "the autocast forward's output is on " << output.device().str()
                                     << ", not on the device that ran it";
  EXPECT_TRUE(tdc::all_close(output.to(at::kFloat), reference, tdc::tolerance_for(dtype)))
      << "the forward under autocast to " << dtype_name << " differs from the float32 forward by more than "
      << dtype_name << "'s tolerance: the lower-precision linear computes a wrong result";
  EXPECT_EQ(model->weight.scalar_type(), at::kFloat)
      << "the weight is " << c10::toString(model->weight.scalar_type())
      << " after the autocast forward, not float32: autocast must cast copies, never the parameters";
  EXPECT_EQ(model->bias.scalar_type(), at::kFloat)
      << "the bias is " << c10::toString(model->bias.scalar_type())
      << " after the autocast forward, not float32: autocast must cast copies, never the parameters";
  EXPECT_FALSE(tdc::compat::autocast_enabled(device.type()))
      << "autocast is still enabled after its scope ended: the thread's autocast state was not restored";
}

TEST_P(Autocast, SeedForwardInEachAutocastDtypeMatchesFloat32AndKeepsWeightsFloat32) {
  const auto type = device().type();
  if (auto reason = tdc::compat::autocast_unsupported_reason(type)) GTEST_SKIP() << *reason;
  if (!tdc::compat::has_autocast_kernel(type, "aten::addmm")) {
    GTEST_SKIP() << "no autocast support: " << device().str()
                 << "'s backend registers no autocast kernel for aten::addmm (docs/backends.md, Autocast)";
  }
  // Module::to is Placement's check: its failure is named once, there.
  auto model = tdc::make_seed_model();
  TDC_MOVE_MODULE_OR_FAIL(*model, device());
  std::string checked, not_declared;
  for (const auto dtype : tdc::compat::autocast_dtypes(type)) {
    if (auto reason = tdc::undeclared_reason(device(), dtype)) {
      not_declared += (not_declared.empty() ? "" : "; ") + *reason;
      continue;
    }
    SCOPED_TRACE(std::string("autocast to ") + c10::toString(dtype));
    expect_autocast_forward(model, device(), dtype);
    // Appended in two steps: g++ 12 warns (-Wstringop-overflow, a false
    // positive) on a const char* + std::string&& here.
    if (!checked.empty()) checked += ' ';
    checked += c10::toString(dtype);
  }
  if (checked.empty()) GTEST_SKIP() << "no autocast dtype declared: " << not_declared;
  RecordProperty("autocast_checked", checked);
}

TDC_INSTANTIATE_DEVICE_TEST_SUITE(Autocast);

}  // namespace
