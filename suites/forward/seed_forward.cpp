// The seed's forward pass, per device and dtype, against a float64 CPU
// reference computed from the same (rounded) weights.
#include <ATen/ATen.h>
#include <torch/nn/modules/linear.h>

#include "tdc/alignment_guard.h"
#include "tdc/fixtures.h"
#include "tdc/prerequisite.h"
#include "tdc/seed_model.h"
#include "tdc/tolerance.h"

namespace {

using Forward = tdc::DeviceDtypeTest;

TEST_P(Forward, SeedModelMatchesFloat64Reference) {
  auto model = tdc::make_seed_model();
  model->to(dtype());
  const auto input_on_cpu = tdc::make_seed_input(at::TensorOptions().dtype(dtype()));
  const auto reference = tdc::reference_forward(model, input_on_cpu);

  TDC_MOVE_MODULE_OR_FAIL(*model, device());
  const auto input = tdc::make_seed_input(at::TensorOptions().dtype(dtype()).device(device()));
  at::Tensor output;
  {
    at::NoGradGuard no_grad;
    output = model->forward(input);
  }
  EXPECT_EQ(output.sizes(), at::IntArrayRef({4, 2}));
  EXPECT_EQ(output.device(), device());
  EXPECT_EQ(output.scalar_type(), dtype());
  EXPECT_FALSE(output.requires_grad()) << "no-grad forward produced a tensor that requires grad";
  EXPECT_TRUE(tdc::all_close(output, reference, tdc::tolerance_for(dtype())));
  EXPECT_NO_THROW(tdc::check_device_alignment(*model, {input}, {output}, device()));
}

TDC_INSTANTIATE_DEVICE_DTYPE_TEST_SUITE(Forward);

}  // namespace
