// Send/recv between every ordered pair of ranks, every dtype and size, every
// element against the host reference on every rank (collectives_fixture.h).
#include "collectives_fixture.h"

namespace {

class SendRecv : public tdc::collectives::CollectivesTest {};

TEST_P(SendRecv, EveryOrderedPairDelivers) {
  needs_two_ranks("a send/recv pair");
  if (IsSkipped()) return;
  expect_family_right("sendrecv");
}

TDC_INSTANTIATE_DEVICE_TEST_SUITE(SendRecv);

}  // namespace
