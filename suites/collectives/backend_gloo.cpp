// c10d's gloo backend, and what this LibTorch's gloo declares (tdc/compat/gloo.h).
// ProcessGroupGloo.hpp is empty unless USE_C10D_GLOO is defined (CMake does).
#include "backends.h"

#include "tdc/compat/gloo.h"

#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>

namespace tdc::collectives {

OpenedBackend open_gloo(const c10::intrusive_ptr<::c10d::Store>& store, int rank, int world,
                        std::chrono::milliseconds timeout) {
  auto opts = ::c10d::ProcessGroupGloo::Options::create(timeout);
  opts->devices.push_back(::c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
  OpenedBackend opened;
  // What gloo lacks is TDC's statement (tdc/compat/gloo.h): the rank proves it.
  opened.prove_undeclared = true;
  opened.backend = c10::make_intrusive<::c10d::ProcessGroupGloo>(store, rank, world, opts);
  opened.undeclared = [](const std::string& collective, at::ScalarType dtype) -> std::optional<std::string> {
    if (collective == "every_collective") return compat::gloo_dtype_unsupported(dtype);
    if (collective == "allreduce_avg") return compat::gloo_avg_unsupported(dtype);
    if (collective == "allgather_into_tensor") return compat::gloo_allgather_into_tensor_unsupported();
    if (collective == "reduce_scatter") return compat::gloo_reduce_scatter_unsupported();
    return ring_rounding(collective, "gloo");
  };
  return opened;
}

}  // namespace tdc::collectives
