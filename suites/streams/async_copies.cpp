// non_blocking copies return before they are done. Once their stream, or an
// event recorded after them, has synchronised, the host reads exactly what it
// sent (PyTorch stream.md: synchronizeStream; event.md: synchronizeEvent;
// test_accelerator.py: test_pin_memory_on_non_blocking_copy). A test
// backend's delay switch widens the window in which an early read is wrong.
#include <c10/core/Event.h>
#include <c10/core/StreamGuard.h>

#include "round_trip.h"
#include "tdc/compat/events.h"

namespace {

using AsyncCopies = tdc::streams::AsyncCopyTest;

TEST_P(AsyncCopies, NonBlockingRoundTripIsExactAfterStreamSynchronize) {
  const auto stream = pool_stream();
  const auto trip = queue_round_trip(stream, 41);
  tdc::ordering::peek(stream);  // pending here is ordering observed, not a failure
  stream.synchronize();
  EXPECT_TRUE(stream.query()) << "stream " << stream.id() << " reports pending work after synchronize()";
  EXPECT_TRUE(tdc::same_elements(trip.destination, trip.source))
      << "host read after stream " << stream.id() << " synchronised";
}

TEST_P(AsyncCopies, NonBlockingRoundTripIsExactAfterEventSynchronize) {
  TDC_NEEDS_EVENTS();
  const auto stream = pool_stream();
  const auto trip = queue_round_trip(stream, 42);
  c10::Event done(device().type(), tdc::compat::event_flag(/*timing=*/false));
  done.record(stream);
  tdc::ordering::peek(done);
  tdc::compat::synchronize_event(done);
  EXPECT_TRUE(done.query()) << "the event reports pending work after it synchronised";
  EXPECT_TRUE(tdc::same_elements(trip.destination, trip.source))
      << "host read after an event recorded behind the copies synchronised";
  stream.synchronize();
}

TDC_INSTANTIATE_DEVICE_TEST_SUITE(AsyncCopies);

}  // namespace
