#include "mismatch_guard.h"

TDC_INSTANTIATE_DEVICE_TEST_SUITE(MismatchGuard);
TDC_INSTANTIATE_DEVICE_TEST_SUITE(MismatchGuardAcrossIndices);

namespace tdc::testing {

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
    check_device_alignment(model, {input}, outputs, expected);
  } catch (const DeviceMismatchError& mismatch) {
    return mismatch.what();
  }
  return "";
}

}  // namespace tdc::testing
