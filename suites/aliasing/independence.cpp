#include "independence.h"

#include <ATen/ATen.h>

#include "tdc/patterns.h"

namespace tdc::aliasing {
namespace {

at::Tensor host_snapshot(const at::Tensor& t) {
  return t.to(at::kCPU, t.scalar_type(), /*non_blocking=*/false, /*copy=*/true);
}

}  // namespace

::testing::AssertionResult independent(const at::Tensor& source, const at::Tensor& copy) {
  const auto copy_before = host_snapshot(copy);
  source.fill_(7.0);
  if (auto kept = same_elements(copy, copy_before); !kept) {
    return ::testing::AssertionFailure()
           << "writing the source (on " << source.device() << ") changed the copy (on "
           << copy.device() << "): " << kept.message();
  }
  copy.fill_(-3.0);
  if (auto kept = same_elements(source, at::full_like(copy_before, 7.0)); !kept) {
    return ::testing::AssertionFailure()
           << "writing the copy (on " << copy.device() << ") changed the source (on "
           << source.device() << "): " << kept.message();
  }
  return ::testing::AssertionSuccess();
}

}  // namespace tdc::aliasing
