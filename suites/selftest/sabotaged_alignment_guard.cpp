// A guard that accepts everything. The self-test links the mismatch-guard
// suite against it and demands that the suite fails: proof that the negative
// tests have teeth.
#include "tdc/alignment_guard.h"

namespace tdc {

void check_device_alignment(const torch::nn::Module&, const std::vector<at::Tensor>&,
                            const std::vector<at::Tensor>&, c10::Device) {}

}  // namespace tdc
