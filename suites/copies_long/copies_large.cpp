// Copies of more than 256 MiB are exact: past the sizes where transfer paths
// change strategy (chunked DMA, staging buffers, page boundaries); and every
// dtype at about a megabyte, contiguous and transposed. Label `long`: a few
// seconds per device, excluded from the quick conformance run with
// `ctest -LE long`.
#include <ATen/ATen.h>

#include "large_pattern.h"
#include "tdc/fixtures.h"
#include "tdc/patterns.h"

namespace {

using tdc::copies_long::large_host_pattern;

using CopiesLarge = tdc::DeviceTest;

TEST_P(CopiesLarge, Over256MiBIsExactEveryWay) {
  const auto& host = large_host_pattern();
  const auto on_device = host.to(device(), at::kFloat, false, /*copy=*/true);
  EXPECT_TRUE(tdc::same_elements(on_device, host)) << "host -> device -> host, contiguous";
  EXPECT_TRUE(tdc::same_elements(on_device.clone(), host)) << "device -> device";
  // A transposed source: to() keeps its strides, so this is a strided copy.
  // (One strided copy only: at this size each costs seconds of CPU on the
  // reference side, and the layouts are covered at small sizes by `Copies`.)
  EXPECT_TRUE(tdc::same_elements(host.t().to(device()), host.t())) << "host -> device, transposed";
}

// 257 x 1031 = 264,967 elements: 1 MiB in float32, odd in both dimensions.
TEST_P(CopiesLarge, EveryDtypeAtAMegabyteIsExact) {
  for (const auto dtype : tdc::storage_dtypes()) {
    if (tdc::dtype_unsupported_reason(device().type(), dtype)) continue;
    SCOPED_TRACE(tdc::dtype_name(dtype));
    const auto host = tdc::salted_pattern({257, 1031}, dtype, 1031);
    const auto on_device = host.to(device(), dtype, false, /*copy=*/true);
    EXPECT_TRUE(tdc::same_elements(on_device, host)) << "host -> device -> host";
    EXPECT_TRUE(tdc::same_elements(on_device.clone(), host)) << "device -> device";
    EXPECT_TRUE(tdc::same_elements(host.t().to(device()), host.t())) << "transposed";
    EXPECT_TRUE(tdc::same_elements(on_device.t().contiguous(), host.t().contiguous()))
        << "transposed on the device";
  }
}

TDC_INSTANTIATE_DEVICE_TEST_SUITE(CopiesLarge);

}  // namespace
