// Runs on every host, CPU-only ones included: the meta device is always
// there. PyTorch itself may let this mix through (1.13 returns a meta output
// from cpu weights without error); the guard must not.
#include "mismatch_guard.h"
#include "tdc/prerequisite.h"
#include "tdc/seed_model.h"

namespace {

TEST_P(MismatchGuard, RejectsMetaInput) {
  auto model = tdc::make_seed_model();
  TDC_MOVE_MODULE_OR_FAIL(*model, device());
  const auto input = tdc::make_seed_input(at::TensorOptions().device(c10::kMeta));
  const auto outcome = tdc::testing::try_forward(model, input);
  const auto verdict = tdc::testing::guard_verdict(*model, input, outcome, device());
  EXPECT_NE(verdict.find("meta"), std::string::npos) << "guard said: '" << verdict << "'";
  EXPECT_EQ(verdict.rfind("Device mismatch: [", 0), 0u) << "guard said: '" << verdict << "'";
}

}  // namespace
