// The seed's rule: the build's current accelerator when it can initialise,
// else the CPU.
#include <gtest/gtest.h>

#include <cstdlib>
#include <regex>

#include "tdc/compat/accelerator.h"
#include "tdc/device_spec.h"
#include "tdc/discovery.h"

namespace {

// A current accelerator that failed discovery fails every selection check
// naming that prerequisite, instead of each check asking the broken backend
// again.
class Selection : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto report = tdc::select_device();
    if (!report.error.empty()) GTEST_FATAL_FAILURE_(report.error.c_str());
  }
};


TEST_F(Selection, PicksCpuExactlyWhenNoAcceleratorCanInitialise) {
  const auto report = tdc::select_device();
  const auto compiled = tdc::compat::current_accelerator();
  ASSERT_EQ(report.compiled, compiled) << report.str();
  // Discovery counts devices its own way (device guards, plugins in a child
  // process): the two must agree on whether the accelerator is usable.
  const int discovered = compiled ? tdc::host_devices().count(*compiled) : 0;
  if (discovered == 0) {
    EXPECT_FALSE(report.available) << report.str();
    EXPECT_EQ(report.selected, c10::Device(c10::DeviceType::CPU)) << report.str();
  } else {
    EXPECT_TRUE(report.available) << report.str();
    EXPECT_EQ(report.selected.type(), *compiled) << report.str();
    EXPECT_TRUE(tdc::host_devices().has(report.selected)) << report.str();
  }
}

TEST_F(Selection, IsStableAcrossCalls) {
  const auto first = tdc::select_device().str();
  for (int call = 0; call < 3; ++call) {
    EXPECT_EQ(tdc::select_device().str(), first) << "call " << call + 2;
  }
}

TEST_F(Selection, ReportReadsCompiledAvailableSelected) {
  const auto report = tdc::select_device();
  static const std::regex format(R"(^compiled: [a-z0-9_]+, available: (yes|no), selected: [a-z0-9_:]+$)");
  EXPECT_TRUE(std::regex_match(report.str(), format)) << report.str();
  if (!report.compiled) {
    EXPECT_EQ(report.str(), "compiled: none, available: no, selected: cpu")
        << "with no backend compiled, the selection reads \"" << report.str() << "\": it must select the CPU";
  }
}

TEST_F(Selection, RegisteredPrivateUse1BackendIsCurrentAccelerator) {
  if (tdc::host_devices().backend(c10::DeviceType::PrivateUse1) == nullptr) {
    GTEST_SKIP() << "no PrivateUse1 backend is loaded (use --backend-lib or TDC_BACKEND_LIBS)";
  }
  // PyTorch's rule: a registered PrivateUse1 backend takes precedence over
  // the accelerator compiled into the build.
  const auto report = tdc::select_device();
  if (report.compiled == c10::DeviceType::PrivateUse1) return;
  // 2.x only sees a PrivateUse1 backend as the accelerator once it has a name.
  if (const auto unnamed = tdc::unnamed_privateuse1_backend()) FAIL() << *unnamed << "; " << report.str();
  FAIL() << "a loaded PrivateUse1 backend must be the current accelerator; " << report.str();
}

// Run by its own ctest entry, selection.masked_accelerator_falls_back_to_cpu,
// which hides every accelerator through its runtime's environment variable.
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
