// Asking a device for more than its total memory raises
// c10::OutOfMemoryError, which the caller can catch; afterwards the device
// still allocates, copies exactly and runs the seed forward correctly. The
// request is sized from the memory the device reports (1 PiB where the
// allocator does not implement getMemoryInfo), and nothing of it is held
// afterwards.
#include "tdc/compat/allocator.h"
#include "tdc/fixtures.h"
#include "tdc/patterns.h"
#include "tdc/prerequisite.h"
#include "tdc/seed_model.h"
#include "tdc/tolerance.h"

#include <ATen/ATen.h>

#include <cstdint>
#include <string>

namespace {

using OutOfMemory = tdc::DeviceTest;

TEST_P(OutOfMemory, RaisesCatchableErrorAndTheDeviceStillWorks) {
  std::string why_not;
  bool unimplemented = false;
  const auto info = tdc::compat::device_memory_info(device(), &why_not, &unimplemented);
  if (!info && !unimplemented) GTEST_SKIP() << why_not << " (no total memory reported to size the request from)";
  // More than the whole device, so no cache or fragmentation can satisfy it.
  // An allocator that does not implement getMemoryInfo (LibTorch allows
  // that) is asked for 1 PiB instead: more than any device has.
  const auto too_much = info ? static_cast<std::int64_t>(info->second) + (std::int64_t{1} << 30)
                             : (std::int64_t{1} << 50);
  const auto sized = info ? "total " + std::to_string(info->second)
                          : why_not + "; 1 PiB asked for instead";
  bool raised = false;
  try {
    const auto never = at::empty({too_much}, at::TensorOptions().device(device()).dtype(at::kByte));
    ADD_FAILURE() << "allocating " << too_much << " bytes on " << device() << " (" << sized << ") succeeded";
  } catch (const c10::OutOfMemoryError&) {
    raised = true;
  } catch (const c10::Error& e) {
    ADD_FAILURE() << "allocating " << too_much << " bytes on " << device() << " raised c10::Error, not "
                  << "c10::OutOfMemoryError: " << e.what_without_backtrace() << " (the allocator must "
                  << "raise c10::OutOfMemoryError, TORCH_CHECK_WITH(OutOfMemoryError, ...), when a "
                  << "request exceeds the device: docs/backends.md, \"Allocator\")";
    raised = true;  // raised, but the wrong type: said once, above
  }
  EXPECT_TRUE(raised) << "no c10::OutOfMemoryError";

  // The device after the failure: allocate, copy both ways, forward.
  const auto pattern = tdc::salted_pattern({257, 31}, at::kFloat, 3);
  EXPECT_TRUE(tdc::same_elements(pattern.to(device()).cpu(), pattern))
      << "copies after the out-of-memory error";
  auto model = tdc::make_seed_model();
  TDC_MOVE_MODULE_OR_FAIL(*model, device());
  at::NoGradGuard no_grad;
  const auto input = tdc::make_seed_input(at::TensorOptions().device(device()));
  const auto output = model->forward(input);
  EXPECT_EQ(output.device(), device())
      << "after an out-of-memory error, a forward on " << device() << " gave its output on " << output.device() << ": the device does not recover";
  EXPECT_TRUE(tdc::all_close(output, tdc::reference_forward(model, input),
                             tdc::tolerance_for(at::kFloat)))
      << "seed forward after the out-of-memory error";
}

TDC_INSTANTIATE_DEVICE_TEST_SUITE(OutOfMemory);

}  // namespace
