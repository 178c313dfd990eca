#include "copy_cases.h"

#include <ATen/ATen.h>

#include <iostream>
#include <sstream>

#include "tdc/copy_layouts.h"
#include "tdc/devices_under_test.h"
#include "tdc/fixtures.h"
#include "tdc/patterns.h"

namespace tdc::copies {
namespace {

constexpr int kShownFailures = 5;

std::string case_name(const std::string& direction, c10::ScalarType dtype, Shape shape,
                      const char* from_layout, const char* to_layout) {
  std::ostringstream name;
  name << direction << " " << dtype_name(dtype) << " " << shape.rows << "x" << shape.cols << " "
       << from_layout << " -> " << to_layout;
  return name.str();
}

// A fresh copy of a CPU tensor on `where`, never an alias (to() on the same
// device returns its argument).
at::Tensor placed(const at::Tensor& host, const c10::Device& where) {
  return host.to(where, host.scalar_type(), /*non_blocking=*/false, /*copy=*/true);
}

}  // namespace

const std::vector<Shape>& copy_shapes() {
  static const std::vector<Shape> shapes{{0, 3}, {1, 1}, {3, 5}, {33, 65}, {2, 2049}};
  return shapes;
}

std::vector<c10::ScalarType> copyable_dtypes(c10::DeviceType type) {
  std::vector<c10::ScalarType> dtypes;
  for (const auto dtype : storage_dtypes()) {
    if (const auto reason = dtype_unsupported_reason(type, dtype)) {
      std::cout << "[   NOTE   ] " << dtype_name(dtype) << " not checked: " << *reason << "\n";
    } else {
      dtypes.push_back(dtype);
    }
  }
  return dtypes;
}

void CaseReport::record(const std::string& name, const ::testing::AssertionResult& result) {
  ++cases_;
  if (result) return;
  ++failed_;
  if (failed_ <= kShownFailures) ADD_FAILURE() << name << ": " << result.message();
}

void CaseReport::finish() const {
  if (failed_ > kShownFailures) {
    ADD_FAILURE() << failed_ << " of " << cases_ << " copy cases failed; the first "
                  << kShownFailures << " are shown above";
  }
  if (cases_ == 0) ADD_FAILURE() << "no copy case ran";
}

void check_layout_copies(const std::string& direction, const c10::Device& from,
                         const c10::Device& to, c10::ScalarType dtype, Shape shape,
                         std::uint64_t seed, CaseReport& report) {
  const auto rows = shape.rows;
  const auto cols = shape.cols;
  const auto& destinations = destination_layouts();
  std::vector<at::Tensor> befores;
  for (const auto layout : destinations) {
    befores.push_back(seeded_pattern(copy_layout_base_shape(layout, rows, cols), dtype, seed + 1));
  }
  for (const auto source_layout : source_layouts()) {
    const auto source_base =
        seeded_pattern(copy_layout_base_shape(source_layout, rows, cols), dtype, seed);
    const auto expected_values = copy_layout_view(source_base, source_layout, rows, cols);
    const auto source = copy_layout_view(placed(source_base, from), source_layout, rows, cols);
    for (size_t d = 0; d < destinations.size(); ++d) {
      const auto destination_layout = destinations[d];
      const auto destination_base = placed(befores[d], to);
      copy_layout_view(destination_base, destination_layout, rows, cols).copy_(source);
      const auto expected_base = befores[d].clone();
      copy_layout_view(expected_base, destination_layout, rows, cols).copy_(expected_values);
      report.record(case_name(direction, dtype, shape, copy_layout_name(source_layout),
                              copy_layout_name(destination_layout)),
                    same_elements(destination_base, expected_base));
    }
    if (from != to) {
      const auto moved = source.to(to);
      auto result = moved.device() == to
                        ? same_elements(moved, expected_values)
                        : ::testing::AssertionFailure() << "landed on " << moved.device();
      report.record(case_name(direction, dtype, shape, copy_layout_name(source_layout), ".to()"),
                    result);
    }
  }
}

}  // namespace tdc::copies
