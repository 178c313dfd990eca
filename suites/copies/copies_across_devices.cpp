// Copies from one device to another of the same type (cuda:0 -> cuda:1) are
// exact for every dtype, size class and layout, both ways.
#include <ATen/ATen.h>

#include "copy_cases.h"
#include "tdc/fixtures.h"

namespace {

using CopiesAcrossDevices = tdc::DevicePairTest;

TEST_P(CopiesAcrossDevices, EveryDtypeLayoutAndSizeIsExact) {
  tdc::copies::CaseReport report;
  std::uint64_t salt = 4052;
  for (const auto dtype : tdc::copies::copyable_dtypes(device().type())) {
    for (const auto& shape : tdc::copies::copy_shapes()) {
      tdc::copies::check_layout_copies("cross-index", device(), other_device(), dtype, shape,
                                       salt += 2, report);
    }
  }
  report.finish();
}

TDC_INSTANTIATE_DEVICE_TEST_SUITE(CopiesAcrossDevices);

}  // namespace
