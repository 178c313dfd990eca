#pragma once
// MismatchGuard.<Case>/<device>: the seed's guard, with deliberate mismatches.
// Mismatched tensors are never 0-dim: a 0-dim CPU tensor legally mixes with
// device tensors, so it would prove nothing.
#include <ATen/ATen.h>
#include <torch/nn/modules/linear.h>

#include <functional>
#include <string>

#include "tdc/alignment_guard.h"
#include "tdc/fixtures.h"

class MismatchGuard : public tdc::DeviceTest {};
class MismatchGuardAcrossIndices : public tdc::DevicePairTest {};

namespace tdc::testing {

// Runs the forward pass; returns its output, or an undefined tensor with the
// error message when PyTorch refused the mix.
struct ForwardOutcome {
  at::Tensor output;
  std::string error;
};
ForwardOutcome try_forward(torch::nn::Linear& model, const at::Tensor& input);

// The message of the DeviceMismatchError the guard raised, or "" if none.
std::string guard_verdict(const torch::nn::Module& model, const at::Tensor& input,
                          const ForwardOutcome& outcome, const c10::Device& expected);

// In-tree accelerators raise this when a kernel sees two devices; out-of-tree
// backends need not, which is why the guard exists.
inline constexpr const char* kSameDeviceError = "Expected all tensors to be on the same device";

}  // namespace tdc::testing
