// c10d's NCCL backend for cuda tensors, from LibTorch's CUDA build. Its
// header is empty unless USE_C10D_NCCL is defined: the pip CUDA builds'
// torch_cuda target defines it, and nccl.h comes from the nvidia-nccl
// wheel beside torch or the CUDA toolkit (CMakeLists.txt finds it).
// NCCL declares every collective and dtype the rank runs, so nothing else is
// undeclared here: a failure is the backend's. Its rings round a bfloat16
// sum at each hop (ring_rounding).
#include "backends.h"

#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>

namespace tdc::collectives {

OpenedBackend open_nccl(const c10::intrusive_ptr<::c10d::Store>& store, int rank, int world,
                        std::chrono::milliseconds timeout) {
  auto opts = ::c10d::ProcessGroupNCCL::Options::create();
  opts->timeout = timeout;
  OpenedBackend opened;
  opened.backend = c10::make_intrusive<::c10d::ProcessGroupNCCL>(store, rank, world, opts);
  opened.undeclared = [](const std::string& collective, at::ScalarType) { return ring_rounding(collective, "NCCL"); };
  return opened;
}

}  // namespace tdc::collectives
