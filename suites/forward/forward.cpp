// The seed's forward pass, per device and dtype, against a float64 CPU
// reference computed from the same (rounded) weights: first on the seed's
// own input, ones(4, 3), then on salted inputs whose rows all differ, in
// batch sizes that are not multiples of 4, so that a kernel that mixes up
// rows, or handles only whole blocks of rows, gives a different answer.
#include <ATen/ATen.h>
#include <torch/nn/modules/linear.h>

#include <string>
#include <vector>

#include "distinguishing_input.h"
#include "tdc/alignment_guard.h"
#include "tdc/fixtures.h"
#include "tdc/prerequisite.h"
#include "tdc/seed_model.h"
#include "tdc/tolerance.h"

namespace {

using tdc::forward::distinguishing_input;

constexpr int64_t kBatchSizes[] = {1, 3, 5, 7, 13};

::testing::AssertionResult rows_all_differ(const at::Tensor& input) {
  for (int64_t i = 0; i < input.size(0); ++i) {
    for (int64_t j = 0; j < i; ++j) {
      if (at::equal(input[i], input[j])) {
        return ::testing::AssertionFailure() << "rows " << j << " and " << i << " are equal";
      }
    }
  }
  return ::testing::AssertionSuccess();
}

struct ForwardCase {
  std::string name;
  at::Tensor input;      // on the device
  at::Tensor reference;  // float64 on the CPU, from the weights before they moved
};

void expect_forward_matches_reference(torch::nn::Linear& model, const ForwardCase& c,
                                      const c10::Device& device, c10::ScalarType dtype) {
  SCOPED_TRACE(c.name);
  at::Tensor output;
  {
    at::NoGradGuard no_grad;
    output = model->forward(c.input);
  }
  EXPECT_EQ(output.sizes(), at::IntArrayRef({c.input.size(0), 2}))
      << "the forward's output has shape " << output.sizes() << ", not [" << c.input.size(0) << ", 2]: a kernel of Linear returns the wrong shape";
  EXPECT_EQ(output.device(), device)
      << "the forward on " << device << " gave its output on " << output.device() << ": a kernel returns its result on the wrong device";
  EXPECT_EQ(output.scalar_type(), dtype)
      << "the forward in " << dtype << " gave " << output.scalar_type() << ": a kernel returns the wrong dtype";
  EXPECT_FALSE(output.requires_grad()) << "no-grad forward produced a tensor that requires grad";
  EXPECT_TRUE(tdc::all_close(output, c.reference, tdc::tolerance_for(dtype)))
      << "the forward in " << dtype << " on " << device << " differs from the CPU reference beyond " << dtype << "'s tolerance: a kernel computes wrong values";
  EXPECT_NO_THROW(tdc::check_device_alignment(*model, {c.input}, {output}, device))
      << "after the forward, the model, its input and its output are not all on " << device << ": a kernel or Module::to leaves tensors behind";
}

using Forward = tdc::DeviceDtypeTest;

TEST_P(Forward, SeedModelMatchesFloat64Reference) {
  auto model = tdc::make_seed_model();
  model->to(dtype());
  std::vector<ForwardCase> cases;
  cases.push_back({"the seed's input, ones(4, 3)",
                   tdc::make_seed_input(at::TensorOptions().dtype(dtype()).device(device())),
                   tdc::reference_forward(
                       model, tdc::make_seed_input(at::TensorOptions().dtype(dtype())))});
  for (const auto rows : kBatchSizes) {
    const auto input = distinguishing_input(rows, dtype());
    ASSERT_TRUE(rows_all_differ(input)) << "the salted input of " << rows << " rows";
    cases.push_back({"salted input, " + std::to_string(rows) + " distinct rows",
                     input.to(device()), tdc::reference_forward(model, input)});
  }
  TDC_MOVE_MODULE_OR_FAIL(*model, device());
  for (const auto& c : cases) expect_forward_matches_reference(model, c, device(), dtype());
}

TDC_INSTANTIATE_DEVICE_DTYPE_TEST_SUITE(Forward);

}  // namespace
