// Events created without timing cannot be timed: asking raises an error,
// it never answers 0 or any other number (PyTorch event.md: elapsedTime;
// torch.Event(enable_timing=False)). Checked through c10::Event and,
// because c10::Event rejects the flag itself, through the backend's guard.
#include <ATen/ATen.h>
#include <c10/core/Event.h>
#include <c10/util/Exception.h>

#include "tdc/compat/events.h"
#include "tdc/stream_fixtures.h"

namespace {

using EventTimingDisabled = tdc::StreamTest;

TEST_P(EventTimingDisabled, ElapsedTimeRaisesInsteadOfAnsweringANumber) {
  if (auto reason = tdc::compat::event_timing_unsupported_reason()) GTEST_SKIP() << *reason;
  TDC_NEEDS_EVENTS();
  const auto stream = current_stream();
  {
    c10::Event start(device().type(), tdc::compat::event_flag(false));
    c10::Event end(device().type(), tdc::compat::event_flag(false));
    start.record(stream);
    end.record(stream);
    tdc::compat::synchronize_event(end);
    try {
      ADD_FAILURE() << "c10::Event::elapsedTime answered " << tdc::compat::elapsed_ms(start, end)
                    << " ms for events created without timing";
    } catch (const c10::Error&) {
    }
  }
  tdc::compat::BackendEvent start(device(), false), end(device(), false);
  start.record(stream);
  end.record(stream);
  end.synchronize();
  try {
    ADD_FAILURE() << "the backend's elapsedTime answered " << start.elapsed_ms_to(end)
                  << " ms for events recorded without timing";
  } catch (const c10::Error&) {
  }
}

TDC_INSTANTIATE_DEVICE_TEST_SUITE(EventTimingDisabled);

}  // namespace
