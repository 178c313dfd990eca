// A rank's device backends: the libraries the check's own process loaded
// (run_config().backend_libraries: --backend-lib=, TDC_BACKEND_LIBS), handed
// to the rank as one ':'-separated argument by the suite (world.cpp) and by
// tdc_bench_collectives' leader, and loaded the same way here so that the
// device type exists in the rank too. The check already proved each loads.
#include "backends.h"

#include <dlfcn.h>

#include <sstream>
#include <stdexcept>

namespace tdc::collectives {

void load_device_backends(const std::string& list) {
  std::stringstream libraries(list);
  for (std::string library; std::getline(libraries, library, ':');) {
    if (!library.empty() && dlopen(library.c_str(), RTLD_NOW | RTLD_GLOBAL) == nullptr) {
      throw std::runtime_error("device backend " + library + " does not load in the rank: " + dlerror());
    }
  }
}

std::string join_libraries(const std::vector<std::string>& libraries) {
  std::string joined;
  for (const auto& library : libraries) joined += (joined.empty() ? "" : ":") + library;
  return joined;
}

}  // namespace tdc::collectives
