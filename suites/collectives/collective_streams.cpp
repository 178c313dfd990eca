// Stream semantics (rank_streams.cpp): the collective's work waits for what
// the caller's current stream queued before it, and wait() leaves the result
// visible to that stream, on the default stream and on a side stream, every
// element against the host reference on every rank (collectives_fixture.h).
#include "collectives_fixture.h"

namespace {

class CollectiveStreams : public tdc::collectives::CollectivesTest {};

TEST_P(CollectiveStreams, WorkWaitsForTheCallersStreamAndWaitPublishesTheResult) {
  if (device().is_cpu()) GTEST_SKIP() << "cpu has no streams: a collective's work completes when issued";
  expect_family_right("stream");
}

TDC_INSTANTIATE_DEVICE_TEST_SUITE(CollectiveStreams);

}  // namespace
