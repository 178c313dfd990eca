// Copies to, from and within one device are exact for every dtype it
// stores, every size class and every source/destination layout. One test
// per device (process start dominates the cost of a check); each failing
// case names its direction, dtype, shape and layouts.
#include <ATen/ATen.h>

#include "copy_cases.h"
#include "tdc/fixtures.h"

namespace {

using Copies = tdc::DeviceTest;

TEST_P(Copies, EveryDtypeLayoutSizeAndDirectionIsExact) {
  const c10::Device host(c10::kCPU);
  tdc::copies::CaseReport report;
  std::uint64_t salt = 2026;
  for (const auto dtype : tdc::copies::copyable_dtypes(device().type())) {
    for (const auto& shape : tdc::copies::copy_shapes()) {
      tdc::copies::check_layout_copies("h2d", host, device(), dtype, shape, salt += 2, report);
      tdc::copies::check_layout_copies("d2h", device(), host, dtype, shape, salt += 2, report);
      tdc::copies::check_layout_copies("d2d", device(), device(), dtype, shape, salt += 2, report);
    }
  }
  report.finish();
}

TDC_INSTANTIATE_DEVICE_TEST_SUITE(Copies);

}  // namespace
