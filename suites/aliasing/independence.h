#pragma once
// Whether tensors own separate memory: judged by writing (an alias shows
// whatever the backend's pointers look like) and, across indices, by address.
#include <ATen/core/Tensor.h>
#include <gtest/gtest.h>

namespace tdc::aliasing {

// Fills `source`, checks `copy` kept its values; fills `copy`, checks
// `source` kept the value just written. Both must hold float32 data.
::testing::AssertionResult independent(const at::Tensor& source, const at::Tensor& copy);

// Allocates alternately on both devices (largest first, so each later block
// could fit inside an earlier one of the other index) and expects every pair
// across them disjoint in address and holding its own values.
void expect_allocations_disjoint(const c10::Device& device, const c10::Device& other_device);

}  // namespace tdc::aliasing
