// Which c10d backend serves the device type under test: the candidates in
// order (a vendor's plugins first, then TDC's own for the type), the first
// that makes a backend wins. A plugin that refuses the type is skipped with
// its reason; one that fails to load is an error like any other.
#include "backends.h"

#include <sstream>
#include <stdexcept>

namespace tdc::collectives {

namespace {
// A plugin's refusal of a device type, as opposed to a broken plugin.
bool is_refusal(const std::string& what) { return what.find(" made no backend for ") != std::string::npos; }
}  // namespace

OpenedBackend open_backend(const std::string& candidates, c10::Device device,
                           const c10::intrusive_ptr<::c10d::Store>& store, int rank, int world,
                           std::chrono::milliseconds timeout) {
  const std::string type = c10::DeviceTypeName(device.type(), /*lower_case=*/true);
  std::string refusals;
  std::stringstream list(candidates);
  std::string candidate;
  while (std::getline(list, candidate, ':')) {
    if (candidate.empty()) continue;
    if (candidate == "nccl") {
      if (device.is_cuda()) return open_nccl(store, rank, world, timeout);
      refusals += "; nccl: NCCL runs on cuda tensors only";
      continue;
    }
    if (candidate == "gloo") {
      if (device.is_cpu()) return open_gloo(store, rank, world, timeout);
      refusals += "; gloo: TDC runs gloo on cpu tensors only";
      continue;
    }
    try {
      return open_plugin(candidate, device, store, rank, world, timeout);
    } catch (const std::runtime_error& e) {
      if (!is_refusal(e.what())) throw;
      refusals += std::string("; ") + e.what();
    }
  }
  throw std::runtime_error("SKIP: no c10d backend serves " + type + (refusals.empty() ? "" : " (" + refusals.substr(2) + ")") +
                           ": a vendor adds one through TDC_C10D_BACKEND_LIBS (docs/backends.md, Collectives)");
}

}  // namespace tdc::collectives
