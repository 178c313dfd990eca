// Restoring a generator's saved state replays the numbers drawn after it was
// saved, and the state is the device generator's own (not changed by
// drawing on the CPU in between).
#include "draws.h"

#include "tdc/compat/generator.h"
#include "tdc/fixtures.h"
#include "tdc/prerequisite.h"

#include <ATen/ATen.h>

#include <mutex>
#include <string>

namespace {

using namespace tdc::generators;  // the suite's draws and their comparison

using GeneratorState = tdc::DeviceTest;

TEST_P(GeneratorState, SetStateReplaysTheSequence) {
  TDC_DEFAULT_GENERATOR_OR_SKIP(generator, device());
  // A sequence that does not repeat from a manual_seed cannot replay from a state
  // either: that root cause is the manual_seed check's, named once.
  for (const auto& entry : draws()) {
    const auto problem = repeat_problem(generator, entry, device());
    if (!problem.empty()) {
      FAIL() << tdc::prerequisite_failed(
          std::string(entry.name) + " on " + device().str(), problem,
          "Generators.SameManualSeedRepeatsTheSequenceAndAnotherChangesIt/" + tdc::device_label(device()));
    }
  }
  manual_seed(generator, 99);
  for (const auto& [name, draw] : draws()) {
    draw(device());  // move away from the state manual_seed left
    at::Tensor state;
    {
      std::lock_guard<std::mutex> lock(generator.mutex());
      state = generator.get_state();
    }
    const auto first = draw(device());
    {
      std::lock_guard<std::mutex> lock(generator.mutex());
      generator.set_state(state);
    }
    const auto replayed = draw(device());
    EXPECT_TRUE(same_values(first, replayed)) << name << ": set_state did not replay the sequence";
  }
}

TDC_INSTANTIATE_DEVICE_TEST_SUITE(GeneratorState);

}  // namespace
