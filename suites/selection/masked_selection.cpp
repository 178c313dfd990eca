// Run by the ctest entry selftest.selection.masked_accelerator_falls_back_to_cpu,
// which hides every accelerator through its runtime's environment variable.
#include <gtest/gtest.h>

#include <cstdlib>

#include "tdc/compat/accelerator.h"
#include "tdc/device_spec.h"
#include "tdc/discovery.h"
#include "selection.h"

namespace {

TEST_F(Selection, FallsBackToCpuWhenAcceleratorIsMasked) {
  const char* masked = std::getenv("TDC_SELECTION_MASKED");
  if (masked == nullptr || std::string(masked) != "1") {
    GTEST_SKIP() << "runs in its own process with accelerators masked: "
                    "ctest -R selection.masked_accelerator_falls_back_to_cpu";
  }
  const char* cuda_visible = std::getenv("CUDA_VISIBLE_DEVICES");
  ASSERT_TRUE(cuda_visible != nullptr && *cuda_visible == '\0')
      << "CUDA_VISIBLE_DEVICES must be set and empty for this check";
  const auto compiled = tdc::compat::current_accelerator();
  if (compiled == c10::DeviceType::MPS) {
    GTEST_SKIP() << "mps has no environment variable that hides it";
  }
  const auto report = tdc::select_device();
  EXPECT_FALSE(report.available) << report.str();
  EXPECT_EQ(report.selected, c10::Device(c10::DeviceType::CPU)) << report.str();
}

}  // namespace
