// Broadcast from every root: every rank gets the root's tensor, every dtype and size, every
// element against the host reference on every rank (collectives_fixture.h).
#include "collectives_fixture.h"

namespace {

class Broadcast : public tdc::collectives::CollectivesTest {};

TEST_P(Broadcast, FromEveryRootMatchesHostReference) { expect_family_right("broadcast"); }

TDC_INSTANTIATE_DEVICE_TEST_SUITE(Broadcast);

}  // namespace
