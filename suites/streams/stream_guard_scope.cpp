// StreamGuard makes its stream current on the stream's device and restores
// the previous one when it leaves, nested or not (PyTorch stream.md:
// exchangeStream returns the stream it replaced).
#include <c10/core/StreamGuard.h>

#include "tdc/stream_fixtures.h"

namespace {

using StreamGuardScope = tdc::StreamTest;

TEST_P(StreamGuardScope, SetsAndRestoresTheCurrentStream) {
  const auto before = current_stream();
  const auto outer_stream = pool_stream();
  ASSERT_NE(outer_stream, before) << "the pool gave the current stream: nothing to switch to";
  {
    c10::StreamGuard outer(outer_stream);
    EXPECT_EQ(current_stream(), outer_stream) << "StreamGuard did not set its stream";
    {
      c10::StreamGuard inner(default_stream());
      EXPECT_EQ(current_stream(), default_stream()) << "nested StreamGuard did not set its stream";
    }
    EXPECT_EQ(current_stream(), outer_stream) << "nested StreamGuard did not restore";
  }
  EXPECT_EQ(current_stream(), before) << "StreamGuard did not restore";
}

TDC_INSTANTIATE_DEVICE_TEST_SUITE(StreamGuardScope);

}  // namespace
