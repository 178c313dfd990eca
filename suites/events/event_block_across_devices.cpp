// An event recorded on one device is waited on by a stream of another index
// of the same type (PyTorch event.md: block across devices; CUDA waits on
// peer events).
#include "slow_producer.h"
#include "tdc/stream_fixtures.h"

namespace {

using EventBlockAcrossDevices = tdc::WithSiblingDevice<tdc::OrderingTest>;

TEST_P(EventBlockAcrossDevices, StreamOfAnotherIndexWaitsForTheEvent) {
  TDC_NEEDS_EVENTS();
  const auto producer = pool_stream();
  const auto consumer = impl().getStreamFromGlobalPool(other_device(), /*isHighPriority=*/false);
  ASSERT_EQ(consumer.device(), other_device())
      << "the global stream pool gave a stream of " << consumer.device() << " when asked for " << other_device() << ": getStreamFromGlobalPool ignores the device index";
  const auto h = tdc::events::hand_over(producer, consumer, [this](const at::Tensor& t) { return staged(t); }, 62);
  EXPECT_TRUE(tdc::same_elements(h.received, h.expected))
      << other_device() << " stream " << consumer.id() << " read " << device() << " stream "
      << producer.id() << "'s buffer before its event";
}

TDC_INSTANTIATE_DEVICE_TEST_SUITE(EventBlockAcrossDevices);

}  // namespace
