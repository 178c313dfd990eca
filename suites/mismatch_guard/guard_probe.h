#pragma once
// What the mismatch-guard checks share: run the seed's forward on a possibly
// mismatched set, then ask the guard for its verdict.
#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>
#include <torch/nn/modules/linear.h>

#include <string>

namespace guard_probe {

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

}  // namespace guard_probe
