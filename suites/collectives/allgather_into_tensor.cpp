// Allgather into one tensor (_allgather_base): rank r's input at chunk r, every dtype and size, every
// element against the host reference on every rank (collectives_fixture.h).
#include "collectives_fixture.h"

namespace {

class AllgatherIntoTensor : public tdc::collectives::CollectivesTest {};

TEST_P(AllgatherIntoTensor, EveryRanksChunkInRankOrder) { expect_family_right("allgather_into_tensor"); }

TDC_INSTANTIATE_DEVICE_TEST_SUITE(AllgatherIntoTensor);

}  // namespace
