#include "guard_probe.h"

#include <ATen/ATen.h>

#include <vector>

#include "tdc/alignment_guard.h"

namespace guard_probe {

ForwardOutcome try_forward(torch::nn::Linear& model, const at::Tensor& input) {
  at::NoGradGuard no_grad;
  try {
    return {model->forward(input), ""};
  } catch (const c10::Error& error) {
    return {at::Tensor(), error.what_without_backtrace()};
  }
}

std::string guard_verdict(const torch::nn::Module& model, const at::Tensor& input,
                          const ForwardOutcome& outcome, const c10::Device& expected) {
  std::vector<at::Tensor> outputs;
  if (outcome.output.defined()) outputs.push_back(outcome.output);
  try {
    tdc::check_device_alignment(model, {input}, outputs, expected);
  } catch (const tdc::DeviceMismatchError& mismatch) {
    return mismatch.what();
  }
  return "";
}

}  // namespace guard_probe
