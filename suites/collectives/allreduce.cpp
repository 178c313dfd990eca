// Allreduce with SUM, MAX, MIN, PRODUCT and AVG (where declared) on every rank, every dtype and size, every
// element against the host reference on every rank (collectives_fixture.h).
#include "collectives_fixture.h"

namespace {

class Allreduce : public tdc::collectives::CollectivesTest {};

TEST_P(Allreduce, EveryOpMatchesHostReference) { expect_family_right("allreduce"); }

TDC_INSTANTIATE_DEVICE_TEST_SUITE(Allreduce);

}  // namespace
