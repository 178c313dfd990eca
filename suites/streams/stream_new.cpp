// A new stream is neither the default stream nor one handed out before
// (PyTorch stream.md: getNewStream).
#include "tdc/compat/events.h"
#include "tdc/stream_fixtures.h"

namespace {

using StreamNew = tdc::StreamTest;

TEST_P(StreamNew, DiffersFromTheDefaultAndFromEachOther) {
  if (auto reason = tdc::compat::new_stream_unsupported_reason()) GTEST_SKIP() << *reason;
  const auto first = tdc::compat::new_stream(device());
  const auto second = tdc::compat::new_stream(device());
  EXPECT_EQ(first.device(), device()) << "getNewStream(" << device() << ") gave a stream of " << first.device()
                                      << ": a new stream belongs to the device it was asked for (c10's no-op "
                                      << "guard answers a stream of no index)";
  EXPECT_NE(first, default_stream()) << "getNewStream handed out the default stream";
  EXPECT_NE(second, default_stream()) << "getNewStream handed out the default stream";
  EXPECT_NE(first, second) << "two getNewStream calls gave the same stream (id " << first.id() << ")";
}

TDC_INSTANTIATE_DEVICE_TEST_SUITE(StreamNew);

}  // namespace
