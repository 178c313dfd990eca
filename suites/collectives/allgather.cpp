// Allgather into a list: rank r's input at place r, every dtype and size, every
// element against the host reference on every rank (collectives_fixture.h).
#include "collectives_fixture.h"

namespace {

class Allgather : public tdc::collectives::CollectivesTest {};

TEST_P(Allgather, EveryRanksChunkInRankOrder) { expect_family_right("allgather"); }

TDC_INSTANTIATE_DEVICE_TEST_SUITE(Allgather);

}  // namespace
