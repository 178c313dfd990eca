// A stream that blocks on another stream's event starts its later work only
// after that event (PyTorch event.md: block; CUDA's cudaStreamWaitEvent).
#include "slow_producer.h"
#include "tdc/stream_fixtures.h"

namespace {

using EventBlock = tdc::OrderingTest;

TEST_P(EventBlock, ConsumerStreamWaitsForTheProducersEvent) {
  TDC_NEEDS_EVENTS();
  const auto producer = pool_stream();
  const auto consumer = pool_stream();
  ASSERT_NE(producer, consumer) << "the stream pool handed out stream " << producer.id() << " twice running";
  const auto h = tdc::events::hand_over(producer, consumer, [this](const at::Tensor& t) { return staged(t); }, 61);
  EXPECT_TRUE(tdc::same_elements(h.received, h.expected))
      << "stream " << consumer.id() << " read stream " << producer.id() << "'s buffer before its event";
}

TDC_INSTANTIATE_DEVICE_TEST_SUITE(EventBlock);

}  // namespace
