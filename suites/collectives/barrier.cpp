// The barrier holds an early rank until the last arrives (rank_barrier.cpp), every dtype and size, every
// element against the host reference on every rank (collectives_fixture.h).
#include "collectives_fixture.h"

namespace {

class Barrier : public tdc::collectives::CollectivesTest {};

TEST_P(Barrier, HoldsEarlyRanksUntilTheLastArrives) {
  needs_two_ranks("whether a barrier holds an early rank");
  if (IsSkipped()) return;
  expect_family_right("barrier_holds_early_ranks");
}

TDC_INSTANTIATE_DEVICE_TEST_SUITE(Barrier);

}  // namespace
