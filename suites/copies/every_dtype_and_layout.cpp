// Copies to, from and within one device are exact for every dtype it
// stores, every size class and every source/destination layout.
#include <ATen/ATen.h>

#include "copy_cases.h"
#include "tdc/fixtures.h"

namespace {

using Copies = tdc::DeviceDtypeTest;

TEST_P(Copies, EveryLayoutSizeAndDirectionIsExact) {
  const c10::Device host(c10::kCPU);
  tdc::copies::CaseReport report;
  std::uint64_t seed = 2026;
  for (const auto& shape : tdc::copies::copy_shapes()) {
    tdc::copies::check_layout_copies("h2d", host, device(), dtype(), shape, seed += 2, report);
    tdc::copies::check_layout_copies("d2h", device(), host, dtype(), shape, seed += 2, report);
    tdc::copies::check_layout_copies("d2d", device(), device(), dtype(), shape, seed += 2, report);
  }
  report.finish();
}

TDC_INSTANTIATE_DEVICE_STORAGE_DTYPE_TEST_SUITE(Copies);

}  // namespace
