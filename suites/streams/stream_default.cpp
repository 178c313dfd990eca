// Each device has a default stream, current on a thread that chose none,
// and the pool hands out streams other than it (PyTorch stream.md:
// getDefaultStream, getStreamFromGlobalPool).
#include <thread>

#include "tdc/stream_fixtures.h"

namespace {

using StreamDefault = tdc::StreamTest;

TEST_P(StreamDefault, ExistsAndPoolStreamsDifferFromIt) {
  const auto fallback = default_stream();
  EXPECT_EQ(fallback.device(), device()) << "getDefaultStream(" << device() << ") gave a stream of "
                                         << fallback.device() << ": the default stream belongs to its device";
  // A fresh thread has made no choice, so its current stream is the default.
  std::optional<c10::Stream> fresh_thread_current;
  std::thread([&] { fresh_thread_current = current_stream(); }).join();
  ASSERT_TRUE(fresh_thread_current.has_value()) << "a new thread read no current stream of " << device();
  EXPECT_EQ(*fresh_thread_current, fallback) << "a new thread's current stream";

  const auto first = pool_stream();
  const auto second = pool_stream();
  for (const auto& pooled : {first, second}) {
    EXPECT_EQ(pooled.device(), device()) << "getStreamFromGlobalPool(" << device() << ") gave a stream of "
                                         << pooled.device() << ": a pool stream belongs to the device asked for";
    EXPECT_NE(pooled, fallback) << "getStreamFromGlobalPool handed out the default stream (id "
                                << pooled.id() << ")";
  }
}

TDC_INSTANTIATE_DEVICE_TEST_SUITE(StreamDefault);

}  // namespace
