// Alltoall with equal splits: chunk r of every rank's input reaches rank r, every dtype and size, every
// element against the host reference on every rank (collectives_fixture.h).
#include "collectives_fixture.h"

namespace {

class Alltoall : public tdc::collectives::CollectivesTest {};

TEST_P(Alltoall, EveryRankGetsItsChunkFromEveryRank) { expect_family_right("alltoall"); }

TDC_INSTANTIATE_DEVICE_TEST_SUITE(Alltoall);

}  // namespace
