// cuda:0 against cuda:1: the mismatch the seed's type-only guard misses.
#include <ATen/ATen.h>

#include "guard_probe.h"
#include "tdc/fixtures.h"
#include "tdc/prerequisite.h"
#include "tdc/seed_model.h"

namespace {

class MismatchGuardAcrossDevices : public tdc::DevicePairTest {};

TEST_P(MismatchGuardAcrossDevices, RejectsInputOnAnotherIndex) {
  auto model = tdc::make_seed_model();
  TDC_MOVE_MODULE_OR_FAIL(*model, device());
  const auto input = tdc::make_seed_input(at::TensorOptions().device(other_device()));
  const auto outcome = guard_probe::try_forward(model, input);
  if (device().is_cuda()) {
    EXPECT_NE(outcome.error.find(guard_probe::kSameDeviceError), std::string::npos)
        << "cross-index cuda forward gave: "
        << (outcome.error.empty() ? "an output, no error" : outcome.error);
  }
  const auto verdict = guard_probe::guard_verdict(*model, input, outcome, device());
  EXPECT_NE(verdict.find(device().str()), std::string::npos) << "guard said: '" << verdict << "'";
  EXPECT_NE(verdict.find(other_device().str()), std::string::npos)
      << "guard said: '" << verdict << "'";
}

TDC_INSTANTIATE_DEVICE_TEST_SUITE(MismatchGuardAcrossDevices);

}  // namespace
