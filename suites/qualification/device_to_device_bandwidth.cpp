// Level 3: an N x N device-to-device matrix for every device type with two or
// more devices. Each cell copies 16 MiB from device i to device j, checks the
// copy landed on j bit for bit, and times it (synchronised, median of 3). The
// bandwidths are reported, not asserted (speed targets belong to the
// benchmark gates): on stdout as a table (rows from, columns to, as
// nvbandwidth prints its matrices) and as the measurement
// measured.d2d_GBps.<type>, a JSON matrix that tdc summarize keeps as
// numbers in summary.json ({"unit", "rows", "columns", "values"}, null on
// the diagonal).
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <iomanip>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "tdc/compat/timing.h"
#include "tdc/copy_steps.h"
#include "tdc/device_spec.h"
#include "tdc/discovery.h"
#include "tdc/result_journal.h"
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

// "        loopback:0  loopback:1\nloopback:0         N/A        1.39\n...":
// the matrix as nvbandwidth prints one, rows from, columns to.
std::string bandwidth_table(const std::vector<c10::Device>& devices,
                            const std::vector<std::vector<double>>& gbps) {
  std::size_t width = 8;
  for (const auto& device : devices) width = std::max(width, device.str().size() + 2);
  std::ostringstream table;
  table << std::fixed << std::setprecision(2) << std::setw(static_cast<int>(width)) << "from \\ to";
  for (const auto& to : devices) table << std::setw(static_cast<int>(width)) << to.str();
  for (std::size_t i = 0; i < devices.size(); ++i) {
    table << "\n" << std::setw(static_cast<int>(width)) << devices[i].str();
    for (std::size_t j = 0; j < devices.size(); ++j) {
      table << std::setw(static_cast<int>(width));
      if (i == j) {
        table << "N/A";
      } else {
        table << gbps[i][j];
      }
    }
  }
  return table.str();
}

// {"unit": "GB/s", "rows": [...], "columns": [...], "values": [[null, 1.39], ...]}
std::string bandwidth_json(const std::vector<c10::Device>& devices,
                           const std::vector<std::vector<double>>& gbps) {
  auto names = nlohmann::json::array();
  for (const auto& device : devices) names.push_back(device.str());
  auto values = nlohmann::json::array();
  for (std::size_t i = 0; i < devices.size(); ++i) {
    auto row = nlohmann::json::array();
    for (std::size_t j = 0; j < devices.size(); ++j) row.push_back(i == j ? nlohmann::json() : nlohmann::json(gbps[i][j]));
    values.push_back(row);
  }
  return nlohmann::json{{"unit", "GB/s"}, {"rows", names}, {"columns", names}, {"values", values}}.dump();
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
    std::vector<std::vector<double>> gbps(devices.size(), std::vector<double>(devices.size(), 0.0));
    for (std::size_t i = 0; i < devices.size(); ++i) {
      const auto& from = devices[i];
      const auto source = tdc::journal_copy(pattern, from).to(from);
      for (std::size_t j = 0; j < devices.size(); ++j) {
        const auto& to = devices[j];
        if (i == j) continue;
        const auto copy = tdc::journal_copy(source, to).to(to);
        ASSERT_EQ(copy.device(), to) << "copy " << from << " -> " << to << " landed elsewhere";
        tdc::journal_copy(copy, at::kCPU, "the result of " + from.str() + " -> " + to.str());
        ASSERT_TRUE(at::equal(copy.to(at::kCPU), pattern)) << "copy " << from << " -> " << to
                                                           << " changed the data";
        tdc::journal_step("time " + tdc::copy_step(from, to, kBytes) + ", median of " + std::to_string(kRepeats));
        gbps[i][j] = kBytes / median_copy_seconds(source, to) / 1e9;
      }
    }
    const auto name = tdc::device_type_name(type);
    std::cout << "d2d bandwidth " << name << " (GB/s, rows from, columns to, median of " << kRepeats
              << " copies of " << tdc::byte_size(kBytes) << ")\n"
              << bandwidth_table(devices, gbps) << std::endl;
    tdc::record_property("measured.d2d_GBps." + name, bandwidth_json(devices, gbps));
  }
  if (matrices == 0) GTEST_SKIP() << "no device type has two or more devices: no matrix to measure";
}

}  // namespace
