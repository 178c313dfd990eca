// Synchronising a device waits for every one of its streams, not only the
// default or the current one (PyTorch stream.md: synchronizeDevice;
// torch.accelerator.synchronize).
#include "round_trip.h"
#include "tdc/compat/events.h"

#include <string>
#include <vector>

namespace {

using DeviceSynchronize = tdc::streams::AsyncCopyTest;

TEST_P(DeviceSynchronize, DrainsEveryStream) {
  if (auto reason = tdc::compat::device_synchronize_unsupported_reason()) GTEST_SKIP() << *reason;
  const std::vector<c10::Stream> streams = {default_stream(), pool_stream(), pool_stream()};
  // The pool streams get twice the default stream's work, so that a
  // synchronisation that waits for the default stream alone returns while
  // they are still busy, however the host schedules them.
  // (Every trip is kept alive until the end: its memory is in use by
  // queued copies.)
  std::vector<tdc::streams::RoundTrip> trips, first_trips;
  for (std::size_t i = 0; i < streams.size(); ++i) {
    if (i > 0) first_trips.push_back(queue_round_trip(streams[i], 150 + i));
    trips.push_back(queue_round_trip(streams[i], 50 + i));
  }
  for (const auto& stream : streams) tdc::ordering::peek(stream);
  tdc::compat::synchronize_device(device());
  for (std::size_t i = 0; i < streams.size(); ++i) {
    EXPECT_TRUE(streams[i].query()) << "stream " << streams[i].id() << " of " << device()
                                    << " is busy after synchronizeDevice(" << device()
                                    << "): it must wait for every stream of the device it is given "
                                    << "(docs/backends.md, \"Device synchronisation\")";
    EXPECT_TRUE(tdc::same_elements(trips[i].destination, trips[i].source))
        << "copies queued on stream " << streams[i].id() << ", read after the device synchronised";
  }
}

TDC_INSTANTIATE_DEVICE_TEST_SUITE(DeviceSynchronize);

}  // namespace
