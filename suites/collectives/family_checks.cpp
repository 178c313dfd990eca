// One check per family of collectives, each judging its RESULT lines from
// the device type's world (collectives_fixture.h): every element of every
// dtype and size equals the host reference on every rank.
#include "collectives_fixture.h"

namespace {

using tdc::collectives::CollectivesTest;

class Allreduce : public CollectivesTest {};
class Reduce : public CollectivesTest {};
class ReduceScatter : public CollectivesTest {};
class Broadcast : public CollectivesTest {};
class Allgather : public CollectivesTest {};
class AllgatherIntoTensor : public CollectivesTest {};
class Alltoall : public CollectivesTest {};
class SendRecv : public CollectivesTest {};
class Barrier : public CollectivesTest {};

TEST_P(Allreduce, EveryOpMatchesHostReference) { expect_family_right("allreduce"); }
TEST_P(Reduce, ToEveryRootMatchesHostReference) { expect_family_right("reduce"); }
TEST_P(ReduceScatter, EveryChunkMatchesHostReference) { expect_family_right("reduce_scatter"); }
TEST_P(Broadcast, FromEveryRootMatchesHostReference) { expect_family_right("broadcast"); }
TEST_P(Allgather, EveryRanksChunkInRankOrder) { expect_family_right("allgather"); }
TEST_P(AllgatherIntoTensor, EveryRanksChunkInRankOrder) { expect_family_right("allgather_into_tensor"); }
TEST_P(Alltoall, EveryRankGetsItsChunkFromEveryRank) { expect_family_right("alltoall"); }
TEST_P(SendRecv, EveryOrderedPairDelivers) { expect_family_right("sendrecv"); }
TEST_P(Barrier, HoldsEarlyRanksUntilTheLastArrives) { expect_family_right("barrier_holds_early_ranks"); }

TDC_INSTANTIATE_DEVICE_TEST_SUITE(Allreduce);
TDC_INSTANTIATE_DEVICE_TEST_SUITE(Reduce);
TDC_INSTANTIATE_DEVICE_TEST_SUITE(ReduceScatter);
TDC_INSTANTIATE_DEVICE_TEST_SUITE(Broadcast);
TDC_INSTANTIATE_DEVICE_TEST_SUITE(Allgather);
TDC_INSTANTIATE_DEVICE_TEST_SUITE(AllgatherIntoTensor);
TDC_INSTANTIATE_DEVICE_TEST_SUITE(Alltoall);
TDC_INSTANTIATE_DEVICE_TEST_SUITE(SendRecv);
TDC_INSTANTIATE_DEVICE_TEST_SUITE(Barrier);

}  // namespace
