// Built instead of backend_nccl.cpp where LibTorch has no CUDA or nccl.h was
// not found at configure time: cuda's collectives skip with this reason.
#include "backends.h"

#include <stdexcept>

namespace tdc::collectives {

OpenedBackend open_nccl(const c10::intrusive_ptr<::c10d::Store>&, int, int, std::chrono::milliseconds) {
  throw std::runtime_error(
      "SKIP: no c10d backend serves cuda: c10d NCCL not built: this LibTorch has no CUDA, or nccl.h or cusparse.h was not found at configure "
      "time (pip's nvidia-nccl and nvidia-cu* wheels, or the CUDA toolkit; docs/backends.md, Collectives)");
}

}  // namespace tdc::collectives
