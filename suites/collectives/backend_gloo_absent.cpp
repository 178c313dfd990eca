// Built instead of backend_gloo.cpp where gloo's headers were not found at
// configure time: the gloo entries skip with this reason (collectives.cpp).
#include "backends.h"

#include <stdexcept>

namespace tdc::collectives {

OpenedBackend open_gloo(const c10::intrusive_ptr<::c10d::Store>&, int, int, std::chrono::milliseconds) {
  throw std::runtime_error(
      "SKIP: no c10d backend serves cpu: c10d gloo headers not found at configure time: install libgloo-dev (docs/backends.md, Collectives)");
}

}  // namespace tdc::collectives
