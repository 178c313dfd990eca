#include "mismatch_guard.h"
#include "tdc/prerequisite.h"
#include "tdc/seed_model.h"

namespace {

TEST_P(MismatchGuard, AcceptsAlignedModelInputAndOutput) {
  auto model = tdc::make_seed_model();
  TDC_MOVE_MODULE_OR_FAIL(*model, device());
  const auto input = tdc::make_seed_input(at::TensorOptions().device(device()));
  const auto outcome = tdc::testing::try_forward(model, input);
  ASSERT_EQ(outcome.error, "");
  EXPECT_EQ(tdc::testing::guard_verdict(*model, input, outcome, device()), "");
}

}  // namespace
