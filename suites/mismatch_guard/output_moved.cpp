// The output is part of the aligned set: one that ends up elsewhere (here,
// copied to the meta device after the forward pass) is a mismatch.
#include "mismatch_guard.h"
#include "tdc/prerequisite.h"
#include "tdc/seed_model.h"

namespace {

TEST_P(MismatchGuard, RejectsOutputOnAnotherDevice) {
  auto model = tdc::make_seed_model();
  TDC_MOVE_MODULE_OR_FAIL(*model, device());
  const auto input = tdc::make_seed_input(at::TensorOptions().device(device()));
  auto outcome = tdc::testing::try_forward(model, input);
  ASSERT_EQ(outcome.error, "");
  outcome.output = outcome.output.to(c10::kMeta);
  const auto verdict = tdc::testing::guard_verdict(*model, input, outcome, device());
  EXPECT_NE(verdict.find("meta"), std::string::npos) << "guard said: '" << verdict << "'";
}

}  // namespace
