// The world of ranks itself: every rank made the backend, ran every
// collective to the end, exited by itself and was reaped. What goes wrong
// here is the root cause the family checks name as their prerequisite.
#include "collectives_fixture.h"

#include <cstdio>

namespace {

using Collectives = tdc::collectives::CollectivesTest;

TEST_P(Collectives, WorldRunsToTheEnd) {
  const auto& w = world();
  for (const auto& problem : w.problems) ADD_FAILURE() << problem;
  EXPECT_FALSE(w.results.empty()) << "the world of " << w.world << " ranks reported no collective";
  std::printf("all %d rank processes reaped (c10d backend %s)\n", w.world, w.backend.c_str());
}

TDC_INSTANTIATE_DEVICE_TEST_SUITE(Collectives);

}  // namespace
