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
  std::vector<tdc::streams::RoundTrip> trips;
  for (std::size_t i = 0; i < streams.size(); ++i) trips.push_back(queue_round_trip(streams[i], 50 + i));
  tdc::compat::synchronize_device(device());
  for (std::size_t i = 0; i < streams.size(); ++i) {
    EXPECT_TRUE(streams[i].query()) << "stream " << streams[i].id() << " is busy after the device synchronised";
    EXPECT_TRUE(tdc::same_elements(trips[i].destination, trips[i].source))
        << "copies queued on stream " << streams[i].id() << ", read after the device synchronised";
  }
}

TDC_INSTANTIATE_DEVICE_TEST_SUITE(DeviceSynchronize);

}  // namespace
