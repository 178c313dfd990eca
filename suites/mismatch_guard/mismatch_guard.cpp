// MismatchGuard.<Case>/<device>: the seed's guard, with deliberate
// mismatches. Mismatched tensors are never 0-dim: a 0-dim CPU tensor legally
// mixes with device tensors, so it would prove nothing.
#include <ATen/ATen.h>

#include "guard_probe.h"
#include "tdc/fixtures.h"
#include "tdc/prerequisite.h"
#include "tdc/seed_model.h"

namespace {

class MismatchGuard : public tdc::DeviceTest {};

TEST_P(MismatchGuard, AcceptsAlignedModelInputAndOutput) {
  auto model = tdc::make_seed_model();
  TDC_MOVE_MODULE_OR_FAIL(*model, device());
  const auto input = tdc::make_seed_input(at::TensorOptions().device(device()));
  const auto outcome = guard_probe::try_forward(model, input);
  ASSERT_EQ(outcome.error, "")
      << "the seed model's forward threw on " << device() << ": the backend cannot run the model the mismatch guard checks";
  EXPECT_EQ(guard_probe::guard_verdict(*model, input, outcome, device()), "")
      << "the device-mismatch guard found a problem in a forward whose tensors are all on " << device() << ": the guard reports what is not there";
}

TEST_P(MismatchGuard, RejectsModelOnCpuWithInputOnDevice) {
  if (device().is_cpu()) GTEST_SKIP() << "needs a device other than cpu to mismatch against";
  auto model = tdc::make_seed_model();  // left on the CPU
  const auto input = tdc::make_seed_input(at::TensorOptions().device(device()));
  const auto outcome = guard_probe::try_forward(model, input);
  if (device().is_cuda()) {
    EXPECT_NE(outcome.error.find(guard_probe::kSameDeviceError), std::string::npos)
        << "cuda forward with cpu weights gave: "
        << (outcome.error.empty() ? "an output, no error" : outcome.error);
  }
  const auto verdict = guard_probe::guard_verdict(*model, input, outcome, device());
  // The guard lists devices sorted by name: "altdev:0" comes before "cpu".
  EXPECT_EQ(verdict.rfind("Device mismatch: [", 0), 0u) << "guard said: '" << verdict << "'";
  EXPECT_NE(verdict.find("cpu"), std::string::npos) << "guard said: '" << verdict << "'";
  // Built from a named string: GCC 12 reads "[" + device().str() + ", " as a
  // memcpy past any object's size (a false -Wstringop-overflow).
  const std::string name = device().str();
  const bool names_device = verdict.find("[" + name + ", ") != std::string::npos ||
                            verdict.find(", " + name + "]") != std::string::npos;
  EXPECT_TRUE(names_device) << "guard said: '" << verdict << "'";
}

// Runs on every host, CPU-only ones included: the meta device is always
// there. PyTorch itself may let this mix through (1.13 returns a meta output
// from cpu weights without error); the guard must not.
TEST_P(MismatchGuard, RejectsMetaInput) {
  auto model = tdc::make_seed_model();
  TDC_MOVE_MODULE_OR_FAIL(*model, device());
  const auto input = tdc::make_seed_input(at::TensorOptions().device(c10::kMeta));
  const auto outcome = guard_probe::try_forward(model, input);
  const auto verdict = guard_probe::guard_verdict(*model, input, outcome, device());
  EXPECT_NE(verdict.find("meta"), std::string::npos) << "guard said: '" << verdict << "'";
  EXPECT_EQ(verdict.rfind("Device mismatch: [", 0), 0u) << "guard said: '" << verdict << "'";
}

// The output is part of the aligned set: one that ends up elsewhere (here,
// copied to the meta device after the forward pass) is a mismatch.
TEST_P(MismatchGuard, RejectsOutputOnAnotherDevice) {
  auto model = tdc::make_seed_model();
  TDC_MOVE_MODULE_OR_FAIL(*model, device());
  const auto input = tdc::make_seed_input(at::TensorOptions().device(device()));
  auto outcome = guard_probe::try_forward(model, input);
  ASSERT_EQ(outcome.error, "")
      << "the seed model's forward threw on " << device() << ": the backend cannot run the model the mismatch guard checks";
  outcome.output = outcome.output.to(c10::kMeta);
  const auto verdict = guard_probe::guard_verdict(*model, input, outcome, device());
  EXPECT_NE(verdict.find("meta"), std::string::npos) << "guard said: '" << verdict << "'";
}

TDC_INSTANTIATE_DEVICE_TEST_SUITE(MismatchGuard);

}  // namespace
