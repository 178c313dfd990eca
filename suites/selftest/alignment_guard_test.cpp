#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include "tdc/alignment_guard.h"
#include "tdc/seed_model.h"

namespace {

TEST(AlignmentGuard, MessageListsDevicesSortedInTheSeedsFormat) {
  const tdc::DeviceMismatchError error(
      tdc::distinct_sorted({c10::Device("cuda:0"), c10::Device("cpu"), c10::Device("cuda:0")}),
      c10::Device("cuda:0"));
  EXPECT_STREQ(error.what(), "Device mismatch: [cpu, cuda:0] (expected cuda:0)");
}

TEST(AlignmentGuard, AcceptsAnAlignedCpuSet) {
  auto model = tdc::make_seed_model();
  const auto input = tdc::make_seed_input(at::TensorOptions());
  const auto output = model->forward(input);
  EXPECT_NO_THROW(tdc::check_device_alignment(*model, {input}, {output}, c10::kCPU));
}

TEST(AlignmentGuard, RejectsEachPieceOffDevice) {
  auto model = tdc::make_seed_model();
  const auto input = tdc::make_seed_input(at::TensorOptions());
  const auto output = model->forward(input);
  const auto meta = input.to(c10::kMeta);
  EXPECT_THROW(tdc::check_device_alignment(*model, {meta}, {output}, c10::kCPU),
               tdc::DeviceMismatchError);
  EXPECT_THROW(tdc::check_device_alignment(*model, {input}, {output.to(c10::kMeta)}, c10::kCPU),
               tdc::DeviceMismatchError);
  // Everything agrees, but not with the device the caller expected.
  EXPECT_THROW(tdc::check_device_alignment(*model, {input}, {output}, c10::kMeta),
               tdc::DeviceMismatchError);
}

TEST(AlignmentGuard, SeesABufferLeftBehind) {
  auto model = tdc::make_model_with_buffers();
  ASSERT_EQ(tdc::module_devices(*model), std::vector<c10::Device>{c10::Device(c10::kCPU)});
  model->register_buffer("stray", at::zeros({2}, at::TensorOptions().device(c10::kMeta)));
  EXPECT_EQ(tdc::module_devices(*model),
            (std::vector<c10::Device>{c10::Device(c10::kCPU), c10::Device(c10::kMeta)}));
}

}  // namespace
