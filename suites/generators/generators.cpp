// The same manual_seed gives the same rand/randn/randint sequence twice on the
// device, and a different one a different sequence.
#include "draws.h"

#include "tdc/compat/generator.h"
#include "tdc/fixtures.h"

namespace {

using namespace tdc::generators;  // the suite's draws and their comparison

using Generators = tdc::DeviceTest;

TEST_P(Generators, SameManualSeedRepeatsTheSequenceAndAnotherChangesIt) {
  TDC_DEFAULT_GENERATOR_OR_SKIP(generator, device());
  for (const auto& entry : draws()) {
    const auto& [name, draw] = entry;
    manual_seed(generator, 1234);
    const auto first = draw(device());
    ASSERT_EQ(first.device(), device()) << name;
    const auto problem = repeat_problem(generator, entry, device());
    EXPECT_TRUE(problem.empty()) << problem;
    manual_seed(generator, 4321);
    const auto other = draw(device());
    EXPECT_FALSE(same_values(first, other)) << name << ": manual_seed(1234) and manual_seed(4321) gave one sequence";
  }
}

TDC_INSTANTIATE_DEVICE_TEST_SUITE(Generators);

}  // namespace
