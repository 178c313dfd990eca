// Level 1's collectives check to be: a world of its own that runs one
// float32 SUM allreduce of 1000 elements across every rank.
#include "collectives_fixture.h"

namespace {

using CollectivesSmoke = tdc::collectives::CollectivesSmokeTest;

TEST_P(CollectivesSmoke, OneAllreduceAcrossEveryRank) {
  const auto& w = world();
  for (const auto& problem : w.problems) ADD_FAILURE() << problem;
  expect_family_right("allreduce");
}

TDC_INSTANTIATE_DEVICE_TEST_SUITE(CollectivesSmoke);

}  // namespace
