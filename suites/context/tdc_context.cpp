// Prints what LibTorch and the loaded backends say about this host as one
// JSON object, for tdc context: LibTorch's version and build configuration,
// the accelerator report, every backend and every device with the identity
// its backend exposes. Takes the suites' flags (--backend-lib=, --devices=).
#include <ATen/Version.h>

#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "tdc/device_info.h"
#include "tdc/discovery.h"
#include "tdc/entry_point.h"
#include "tdc/process_guard.h"
#include "tdc/run_config.h"

int main(int argc, char** argv) {
  // Like every TDC program: --help, the early-exit guard, the run flags, one
  // line and exit 2 for bad input (tdc/entry_point.h).
  tdc::ProgramSpec spec;
  spec.name = "tdc_context";
  spec.summary = "what LibTorch and the loaded backends say about this host, as one JSON object";
  if (const auto status = tdc::start_program(spec, &argc, argv)) return *status;
  const auto& host = tdc::host_devices();
  auto backends = nlohmann::ordered_json::array();
  for (const auto& backend : host.backends) {
    backends.push_back(
        {{"name", backend.name}, {"device_count", backend.device_count}, {"error", backend.error},
         {"privateuse1", backend.type == c10::DeviceType::PrivateUse1}});
  }
  auto devices = nlohmann::ordered_json::array();
  for (const auto& info : tdc::describe_host_devices()) {
    devices.push_back({{"device", info.device.str()}, {"name", info.name}, {"driver", info.driver},
                       {"memory_bytes", info.memory_bytes}, {"uuid", info.uuid},
                       {"pci_bus_id", info.pci_bus_id}});
  }
  const nlohmann::ordered_json context = {{"libtorch_version", tdc::libtorch_version()},
                                          {"libtorch_build_config", at::show_config()},
                                          {"accelerator", tdc::select_device().str()},
                                          {"backends", backends},
                                          {"devices", devices},
                                          // The settings a run used that the results depend on.
                                          {"settings", {{"sustained_seconds", tdc::sustained_seconds()}}}};
  // Replacement, not an exception: a vendor's name may hold bytes that are not UTF-8.
  std::cout << context.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
  tdc::finish_process(0);
}
