// Reduce (SUM) to every root: the root's result, every dtype and size, every
// element against the host reference on every rank (collectives_fixture.h).
#include "collectives_fixture.h"

namespace {

class Reduce : public tdc::collectives::CollectivesTest {};

TEST_P(Reduce, ToEveryRootMatchesHostReference) { expect_family_right("reduce"); }

TDC_INSTANTIATE_DEVICE_TEST_SUITE(Reduce);

}  // namespace
