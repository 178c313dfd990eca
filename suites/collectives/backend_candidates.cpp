#include "candidates.h"

#include <cstdlib>
#include <filesystem>
#include <sstream>

namespace tdc::collectives {

std::string c10d_candidates(c10::DeviceType type, const std::vector<std::string>& named_first,
                            const std::vector<std::string>& device_backend_libraries) {
  std::vector<std::string> list = named_first;
  std::stringstream vendor(std::getenv("TDC_C10D_BACKEND_LIBS") ? std::getenv("TDC_C10D_BACKEND_LIBS") : "");
  for (std::string item; std::getline(vendor, item, ':');) {
    if (!item.empty()) list.push_back(item);
  }
  if (type == c10::DeviceType::CPU) list.push_back("gloo");
  if (type == c10::DeviceType::CUDA) list.push_back("nccl");
  if (type == c10::DeviceType::PrivateUse1) {
    // TDC's loopback: its c10d library is installed beside it (lib/, lib/tdc/).
    for (const auto& library : device_backend_libraries) {
      const auto path = std::filesystem::path(library);
      const auto c10d = path.parent_path() / "libtdc_c10d_loopback.so";
      if (path.filename() == "libtdc_loopback.so" && std::filesystem::exists(c10d)) list.push_back(c10d.string());
    }
  }
  std::string joined;
  for (const auto& item : list) joined += (joined.empty() ? "" : ":") + item;
  return joined;
}

}  // namespace tdc::collectives
