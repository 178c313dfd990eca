#pragma once
// Copies in every layout combination, element by element: the engine of the
// copy checks. A case is one (source layout, destination layout, shape) copy
// between two devices; its destination is a view of a base read back whole,
// so writes outside the view are caught as well as wrong values inside it.
#include <ATen/core/Tensor.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tdc::copies {

struct Shape {
  int64_t rows;
  int64_t cols;
};

// 0 and 1 element, odd sizes, and one just past 4096 elements. All stay
// below the size where CPU kernels split work across threads, which keeps
// the reference side cheap; megabyte-sized copies are suites/copies_long's.
const std::vector<Shape>& copy_shapes();

// storage_dtypes() less those `type` cannot hold in any release
// (dtype_unsupported_reason), each of which is printed as a note.
std::vector<c10::ScalarType> copyable_dtypes(c10::DeviceType type);

// Collects case results; shows the first few failures in full so that a
// broken copy path does not print thousands of lines, then the count, and
// how the failures split by direction (the first word of a case's name).
class CaseReport {
 public:
  void record(const std::string& name, const ::testing::AssertionResult& result);
  // Adds the "N of M cases failed" and by-direction lines; call once at the
  // end of the test.
  void finish() const;
  int cases() const { return cases_; }

 private:
  int cases_ = 0;
  int failed_ = 0;
  std::map<std::string, std::pair<int, int>> by_direction_;  // direction -> (failed, cases)
};

// Every source layout into every destination layout with copy_(), and
// every source layout through .to(), from `from` to `to`, for one dtype and
// shape. `direction` names the pair in the case names ("h2d").
void check_layout_copies(const std::string& direction, const c10::Device& from,
                         const c10::Device& to, c10::ScalarType dtype, Shape shape,
                         std::uint64_t salt, CaseReport& report);

}  // namespace tdc::copies
