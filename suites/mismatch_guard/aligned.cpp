#include "mismatch_guard.h"
#include "tdc/seed_model.h"

namespace {

TEST_P(MismatchGuard, AcceptsAlignedModelInputAndOutput) {
  auto model = tdc::make_seed_model();
  model->to(device());
  const auto input = tdc::make_seed_input(at::TensorOptions().device(device()));
  const auto outcome = tdc::testing::try_forward(model, input);
  ASSERT_EQ(outcome.error, "");
  EXPECT_EQ(tdc::testing::guard_verdict(*model, input, outcome, device()), "");
}

}  // namespace
