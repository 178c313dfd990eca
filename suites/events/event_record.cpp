// An event is complete before it is recorded; once recorded after some
// work and synchronised, it is complete and the work is done (PyTorch
// event.md: record, queryEvent, synchronizeEvent).
#include <ATen/ATen.h>
#include <c10/core/Event.h>
#include <c10/core/StreamGuard.h>

#include "tdc/compat/events.h"
#include "tdc/stream_fixtures.h"

namespace {

using EventRecord = tdc::OrderingTest;

TEST_P(EventRecord, QueryAndSynchronizeAfterRecord) {
  TDC_NEEDS_EVENTS();  // this check owns the prerequisite (tdc/stream_fixtures.h)
  c10::Event event(device().type(), tdc::compat::event_flag(/*timing=*/false));
  EXPECT_TRUE(event.query()) << "an event never recorded must report complete";
  const auto stream = pool_stream();
  at::Tensor result;
  {
    c10::StreamGuard guard(stream);
    result = at::full({1 << 16}, 2.0f, at::TensorOptions().device(device())).mul_(5);
    event.record(stream);
  }
  tdc::ordering::peek(event);  // pending here is ordering observed, not a failure
  EXPECT_TRUE(event.was_marked_for_recording())
      << "a recorded event is not marked for recording: the guard's record() did nothing";
  EXPECT_EQ(event.device(), device())
      << "an event recorded on " << device() << " reports " << event.device() << ": the guard records on the wrong device";
  tdc::compat::synchronize_event(event);
  EXPECT_TRUE(event.query()) << "the event reports pending work after it synchronised";
  EXPECT_TRUE(at::equal(result.to(at::kCPU), at::full({1 << 16}, 10.0f)))
      << "the work recorded before the event is not visible after it synchronised";
}

TDC_INSTANTIATE_DEVICE_TEST_SUITE(EventRecord);

}  // namespace
