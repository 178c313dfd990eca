// The dtypes a device declares (getDeviceCapability) hold what it claims:
// each allocates, takes 64 values (0..7, exact in every dtype) from the CPU,
// gives them back bit for bit and adds them exactly. A dtype it does not
// declare either raises a c10::Error or, if it works anyway, is exact too:
// never silent garbage. Where nothing is declared (a backend without the
// query, LibTorch before 2.13) every value dtype is probed and the verdict
// says "probed".
#include "tdc/compat/capability.h"
#include "tdc/fixtures.h"

#include <ATen/ATen.h>
#include <c10/util/Exception.h>

#include <algorithm>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

namespace {

using DeclaredDtypes = tdc::DeviceTest;

bool same_bytes(const at::Tensor& a, const at::Tensor& b) {
  const auto left = a.contiguous();
  const auto right = b.contiguous();
  return left.nbytes() == right.nbytes() &&
         std::memcmp(left.data_ptr(), right.data_ptr(), left.nbytes()) == 0;
}

// What one dtype did on the device: empty when it held up, else the problem.
std::string exercise(const c10::Device& device, const at::Tensor& values, std::string* add_note) {
  const auto on_device = values.to(device);
  if (on_device.scalar_type() != values.scalar_type() || on_device.device() != device) {
    return "the copy to the device gave " + std::string(c10::toString(on_device.scalar_type())) +
           " on " + on_device.device().str();
  }
  if (!same_bytes(on_device.cpu(), values)) return "the values came back different";
  at::Tensor expected_sum;
  try {
    expected_sum = values + values;
  } catch (const c10::Error&) {
    *add_note = "the cpu cannot add it, so the sum is not compared";
    return "";
  }
  const auto sum = (on_device + on_device).cpu();
  if (!same_bytes(sum, expected_sum)) return "values + values is not the cpu's sum";
  return "";
}

TEST_P(DeclaredDtypes, DeclaredDtypesHoldValuesExactlyAndOthersRaiseOrAreExact) {
  std::string why_undeclared;
  const auto declared = tdc::compat::declared_dtypes(device(), &why_undeclared);
  const bool probed = !declared.has_value();
  std::vector<std::string> works, raises, unchecked;
  for (const auto dtype : tdc::compat::value_dtypes()) {
    const std::string name = c10::toString(dtype);
    const bool is_declared = declared && std::count(declared->begin(), declared->end(), dtype) > 0;
    at::Tensor values;
    try {
      values = (at::arange(64, at::TensorOptions().dtype(at::kLong)) % 8).to(dtype);
    } catch (const c10::Error&) {
      unchecked.push_back(name + " (the cpu cannot make its values)");
      continue;
    }
    std::string add_note, problem;
    try {
      problem = exercise(device(), values, &add_note);
    } catch (const c10::Error& error) {
      if (is_declared) {
        ADD_FAILURE() << device() << " declares " << name << " but it raised: " << error.what_without_backtrace();
      } else {
        raises.push_back(name);
      }
      continue;
    }
    if (!problem.empty()) {
      ADD_FAILURE() << device() << (is_declared ? " declares " : " does not declare but accepts ") << name
                    << ": " << problem;
      continue;
    }
    works.push_back(name + (add_note.empty() ? "" : " (" + add_note + ")"));
  }
  auto join = [](const std::vector<std::string>& names) {
    std::ostringstream out;
    for (size_t i = 0; i < names.size(); ++i) out << (i ? ", " : "") << names[i];
    return out.str();
  };
  RecordProperty("dtypes_source", probed ? "probed: " + why_undeclared : "declared");
  RecordProperty("dtypes_working", join(works));
  RecordProperty("dtypes_raising", join(raises));
  std::cout << device() << (probed ? " dtypes probed (" + why_undeclared + ")" : " dtypes declared")
            << "\n  exact: " << join(works) << "\n  raise: " << join(raises)
            << "\n  not checked: " << join(unchecked) << "\n";
  if (declared) {
    EXPECT_FALSE(declared->empty()) << device() << " declares no value dtype at all";
  }
  EXPECT_FALSE(works.empty()) << "no dtype works on " << device();
}

TDC_INSTANTIATE_DEVICE_TEST_SUITE(DeclaredDtypes);

}  // namespace
