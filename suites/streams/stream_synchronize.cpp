// Work issued on a stream is done once the stream has synchronised:
// query() says so and the host reads the result (PyTorch stream.md:
// synchronizeStream, queryStream).
#include <ATen/ATen.h>
#include <c10/core/StreamGuard.h>

#include "tdc/stream_fixtures.h"

namespace {

using StreamSynchronize = tdc::StreamTest;

TEST_P(StreamSynchronize, QueryIsTrueAndWorkVisibleAfterSynchronize) {
  const auto stream = pool_stream();
  at::Tensor result;
  {
    c10::StreamGuard guard(stream);
    result = at::arange(1 << 16, at::TensorOptions().dtype(at::kFloat).device(device()));
    result.mul_(3).add_(1);
  }
  stream.synchronize();
  EXPECT_TRUE(stream.query()) << "stream " << stream.id() << " reports pending work after synchronize()";
  const auto expected = at::arange(1 << 16, at::kFloat).mul_(3).add_(1);
  EXPECT_TRUE(at::equal(result.to(at::kCPU), expected)) << "the host does not see the stream's work";
}

TDC_INSTANTIATE_DEVICE_TEST_SUITE(StreamSynchronize);

}  // namespace
