#pragma once
// Whether two tensors own separate memory, judged by writing: an alias that
// only shows in pointer arithmetic on some backends always shows here.
#include <ATen/core/Tensor.h>
#include <gtest/gtest.h>

namespace tdc::aliasing {

// Fills `source`, checks `copy` kept its values; fills `copy`, checks
// `source` kept the value just written. Both must hold float32 data.
::testing::AssertionResult independent(const at::Tensor& source, const at::Tensor& copy);

}  // namespace tdc::aliasing
