#include "copy_cases.h"

#include <ATen/ATen.h>

#include <iostream>
#include <sstream>

#include "tdc/copy_layouts.h"
#include "tdc/copy_steps.h"
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
  auto& direction = by_direction_[name.substr(0, name.find(' '))];
  ++direction.second;
  if (result) return;
  ++failed_;
  ++direction.first;
  if (failed_ <= kShownFailures) ADD_FAILURE() << name << ": " << result.message();
}

void CaseReport::finish() const {
  if (failed_ > kShownFailures) {
    ADD_FAILURE() << failed_ << " of " << cases_ << " copy cases failed; the first "
                  << kShownFailures << " are shown above";
  }
  if (cases_ == 0) ADD_FAILURE() << "no copy case ran";
  if (failed_ == 0) return;
  // d2h and d2d sources reach the device by a host -> device copy first: a
  // broken h2d path fails them too, which this line makes visible.
  std::ostringstream split;
  for (const auto& [direction, counts] : by_direction_) {
    split << (split.tellp() > 0 ? ", " : "") << direction << " " << counts.first << " of " << counts.second;
  }
  const bool placed_by_h2d = by_direction_.count("h2d") > 0;
  ADD_FAILURE() << "failed cases by direction: " << split.str()
                << (placed_by_h2d ? " (the d2h and d2d cases' sources reach the device by an h2d copy)" : "");
}

void check_layout_copies(const std::string& direction, const c10::Device& from,
                         const c10::Device& to, c10::ScalarType dtype, Shape shape,
                         std::uint64_t salt, CaseReport& report) {
  const auto rows = shape.rows;
  const auto cols = shape.cols;
  const auto& destinations = destination_layouts();
  std::vector<at::Tensor> befores;
  for (const auto layout : destinations) {
    befores.push_back(salted_pattern(copy_layout_base_shape(layout, rows, cols), dtype, salt + 1));
  }
  for (const auto source_layout : source_layouts()) {
    const auto source_base =
        salted_pattern(copy_layout_base_shape(source_layout, rows, cols), dtype, salt);
    const auto expected_values = copy_layout_view(source_base, source_layout, rows, cols);
    const auto source_name = case_name(direction, dtype, shape, copy_layout_name(source_layout), "...");
    journal_copy(source_base, from, "the source of " + source_name);
    const auto source = copy_layout_view(placed(source_base, from), source_layout, rows, cols);
    for (size_t d = 0; d < destinations.size(); ++d) {
      const auto destination_layout = destinations[d];
      const auto name = case_name(direction, dtype, shape, copy_layout_name(source_layout),
                                  copy_layout_name(destination_layout));
      journal_copy(befores[d], to, "the destination of " + name);
      const auto destination_base = placed(befores[d], to);
      journal_copy(source, to, name);
      copy_layout_view(destination_base, destination_layout, rows, cols).copy_(source);
      const auto expected_base = befores[d].clone();
      copy_layout_view(expected_base, destination_layout, rows, cols).copy_(expected_values);
      journal_copy(destination_base, at::kCPU, "the result of " + name);
      report.record(name, same_elements(destination_base, expected_base));
    }
    if (from != to) {
      const auto to_name = case_name(direction, dtype, shape, copy_layout_name(source_layout), ".to()");
      journal_copy(source, to, to_name);
      const auto moved = source.to(to);
      auto result = moved.device() == to
                        ? same_elements(moved, expected_values)
                        : ::testing::AssertionFailure() << "landed on " << moved.device();
      report.record(to_name, result);
    }
  }
}

}  // namespace tdc::copies
