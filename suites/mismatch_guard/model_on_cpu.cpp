#include "mismatch_guard.h"
#include "tdc/seed_model.h"

namespace {

TEST_P(MismatchGuard, RejectsModelOnCpuWithInputOnDevice) {
  if (device().is_cpu()) GTEST_SKIP() << "needs a device other than cpu to mismatch against";
  auto model = tdc::make_seed_model();  // left on the CPU
  const auto input = tdc::make_seed_input(at::TensorOptions().device(device()));
  const auto outcome = tdc::testing::try_forward(model, input);
  if (device().is_cuda()) {
    EXPECT_NE(outcome.error.find(tdc::testing::kSameDeviceError), std::string::npos)
        << "cuda forward with cpu weights gave: "
        << (outcome.error.empty() ? "an output, no error" : outcome.error);
  }
  const auto verdict = tdc::testing::guard_verdict(*model, input, outcome, device());
  // The guard lists devices sorted by name: "altdev:0" comes before "cpu".
  EXPECT_EQ(verdict.rfind("Device mismatch: [", 0), 0u) << "guard said: '" << verdict << "'";
  EXPECT_NE(verdict.find("cpu"), std::string::npos) << "guard said: '" << verdict << "'";
  const bool names_device = verdict.find("[" + device().str() + ", ") != std::string::npos ||
                            verdict.find(", " + device().str() + "]") != std::string::npos;
  EXPECT_TRUE(names_device) << "guard said: '" << verdict << "'";
}

}  // namespace
