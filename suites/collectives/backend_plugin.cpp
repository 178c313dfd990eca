// A c10d plugin (tdc/c10d_plugin.h): dlopen()ed, asked for a backend for this
// rank, adopted. Every way a plugin can be unusable is one line naming it.
#include "backends.h"

#include "tdc/c10d_plugin.h"

#include <dlfcn.h>

#include <stdexcept>

namespace tdc::collectives {

OpenedBackend open_plugin(const std::string& path, c10::Device device, const c10::intrusive_ptr<::c10d::Store>& store,
                          int rank, int world, std::chrono::milliseconds timeout) {
  // Never dlclose()d: the backend's code must outlive it.
  void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) throw std::runtime_error("c10d plugin " + path + " does not load: " + dlerror());
  auto create = reinterpret_cast<TdcC10dCreateBackend>(dlsym(library, TDC_C10D_CREATE_BACKEND_SYMBOL));
  if (create == nullptr) {
    throw std::runtime_error("c10d plugin " + path + " exports no " TDC_C10D_CREATE_BACKEND_SYMBOL
                             " (docs/backends.md, Collectives: the plugin ABI)");
  }
  auto undeclared = reinterpret_cast<TdcC10dUndeclared>(dlsym(library, TDC_C10D_UNDECLARED_SYMBOL));
  const std::string type = c10::DeviceTypeName(device.type(), /*lower_case=*/true);
  TdcC10dBackendRequest request{TDC_C10D_PLUGIN_ABI, store.get(), rank, world, type.c_str(), timeout.count()};
  char why[512] = "";
  compat::C10dBackend* made = create(&request, why, sizeof why);
  if (made == nullptr) {
    throw std::runtime_error("c10d plugin " + path + " made no backend for " + type + ": " +
                             (why[0] ? std::string(why) : std::string("it gave no reason")));
  }
  OpenedBackend opened;
  opened.backend = c10::intrusive_ptr<compat::C10dBackend>::reclaim(made);
  opened.undeclared = [undeclared](const std::string& collective,
                                   at::ScalarType dtype) -> std::optional<std::string> {
    if (undeclared == nullptr) return std::nullopt;
    const char* why_not = undeclared(collective.c_str(), c10::toString(dtype));
    if (why_not == nullptr) return std::nullopt;
    return std::string(why_not);
  };
  return opened;
}

}  // namespace tdc::collectives
