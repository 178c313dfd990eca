// Level 3: an N x N device-to-device matrix for every device type with two or
// more devices. Each cell copies 16 MiB from device i to device j, checks the
// copy landed on j bit for bit, and times it (synchronised, median of 3). The
// bandwidths are reported (test property d2d_GBps_<type> and stdout), not
// asserted: speed targets belong to the benchmark gates.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <vector>

#include "tdc/compat/timing.h"
#include "tdc/device_spec.h"
#include "tdc/discovery.h"
#include "tdc/test_instances.h"

namespace {

constexpr int64_t kBytes = 16 * 1024 * 1024;
constexpr int kRepeats = 3;

double median_copy_seconds(const at::Tensor& source, const c10::Device& to) {
  std::vector<double> seconds;
  for (int i = 0; i < kRepeats; ++i) {
    auto timer = tdc::compat::make_interval_timer({source.device(), to});
    timer->start();
    const auto copy = source.to(to);
    seconds.push_back(timer->stop());
  }
  std::sort(seconds.begin(), seconds.end());
  return seconds[kRepeats / 2];
}

// Copies between every pair of devices: it claims every device under test.
TDC_CLAIMS_EVERY_DEVICE(DeviceToDeviceBandwidth);

TEST(DeviceToDeviceBandwidth, MatrixIsCompleteAndExact) {
  std::map<c10::DeviceType, std::vector<c10::Device>> by_type;
  for (const auto& device : tdc::host_devices().devices) {
    if (!device.is_cpu()) by_type[device.type()].push_back(device);
  }
  const auto pattern = at::arange(kBytes / 4, at::kInt);
  int matrices = 0;
  for (const auto& [type, devices] : by_type) {
    if (devices.size() < 2) continue;
    ++matrices;
    std::ostringstream table;
    table << std::fixed << std::setprecision(2);
    for (const auto& from : devices) {
      const auto source = pattern.to(from);
      for (const auto& to : devices) {
        if (from == to) {
          table << (to == devices.front() ? "" : " ") << "-";
          continue;
        }
        const auto copy = source.to(to);
        ASSERT_EQ(copy.device(), to) << "copy " << from << " -> " << to << " landed elsewhere";
        ASSERT_TRUE(at::equal(copy.to(at::kCPU), pattern)) << "copy " << from << " -> " << to
                                                           << " changed the data";
        const double gbps = kBytes / median_copy_seconds(source, to) / 1e9;
        table << (to == devices.front() ? "" : " ") << gbps;
      }
      table << (from == devices.back() ? "" : "; ");
    }
    const auto name = tdc::device_type_name(type);
    std::cout << "d2d GB/s " << name << " (rows from, columns to): " << table.str() << std::endl;
    RecordProperty("d2d_GBps_" + name, table.str());
  }
  if (matrices == 0) GTEST_SKIP() << "no device type has two or more devices: no matrix to measure";
}

}  // namespace
