// Each index has its own generator: manual_seed and draws on one index leave
// the other's sequence where it was, as CUDA's per-device generators do.
#include "draws.h"

#include "tdc/compat/generator.h"
#include "tdc/fixtures.h"
#include "tdc/prerequisite.h"

#include <string>

namespace {

using namespace tdc::generators;  // the suite's draws and their comparison

using GeneratorsAcrossDevices = tdc::DevicePairTest;

TEST_P(GeneratorsAcrossDevices, ManualSeedOnOneIndexLeavesTheOthersSequence) {
  TDC_DEFAULT_GENERATOR_OR_SKIP(mine, device());
  TDC_DEFAULT_GENERATOR_OR_SKIP(other, other_device());
  for (const auto& [name, draw] : draws()) {
    manual_seed(other, 2024);
    const auto expected = draw(other_device());
    manual_seed(other, 2024);
    // Without a repeatable sequence there is nothing to compare against.
    if (!same_values(draw(other_device()), expected)) {
      FAIL() << tdc::prerequisite_failed(
          std::string(name) + " on " + other_device().str(), "manual_seed(2024) twice gave two sequences",
          "Generators.SameManualSeedRepeatsTheSequenceAndAnotherChangesIt/" +
              tdc::device_label(other_device()));
    }
    manual_seed(other, 2024);
    manual_seed(mine, 7);
    draw(device());
    EXPECT_TRUE(same_values(draw(other_device()), expected))
        << name << ": manual_seed and draws on " << device() << " changed the sequence of "
        << other_device();
  }
}

TDC_INSTANTIATE_DEVICE_TEST_SUITE(GeneratorsAcrossDevices);

}  // namespace
