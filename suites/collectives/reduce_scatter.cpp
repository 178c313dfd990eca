// Reduce_scatter: rank r gets chunk r of the sum, every dtype and size, every
// element against the host reference on every rank (collectives_fixture.h).
#include "collectives_fixture.h"

namespace {

class ReduceScatter : public tdc::collectives::CollectivesTest {};

TEST_P(ReduceScatter, EveryChunkMatchesHostReference) { expect_family_right("reduce_scatter"); }

TDC_INSTANTIATE_DEVICE_TEST_SUITE(ReduceScatter);

}  // namespace
