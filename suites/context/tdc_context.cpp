// Prints what LibTorch and the loaded backends say about this host as one
// JSON object, for ci/context.py: LibTorch's version and build configuration,
// the accelerator report, every backend and every device with the identity
// its backend exposes. Takes the suites' flags (--backend-lib=, --devices=).
#include <ATen/Version.h>

#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>

#include "tdc/config_error.h"
#include "tdc/device_info.h"
#include "tdc/discovery.h"
#include "tdc/run_config.h"

namespace {

std::string quoted(const std::string& text) {
  std::ostringstream out;
  out << '"';
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out << '\\' << c;
    } else if (c == '\n') {
      out << "\\n";
    } else if (c < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
      out << escaped;
    } else {
      out << c;
    }
  }
  out << '"';
  return out.str();
}

}  // namespace

int main(int argc, char** argv) {
  if (!tdc::prepare_run_or_report(&argc, argv)) return tdc::kConfigErrorExitCode;
  if (argc > 1) {
    std::cerr << "tdc_context: unknown argument '" << argv[1] << "'" << std::endl;
    return tdc::kConfigErrorExitCode;
  }
  const auto& host = tdc::host_devices();
  std::cout << "{\n  \"libtorch_version\": " << quoted(tdc::libtorch_version())
            << ",\n  \"libtorch_build_config\": " << quoted(at::show_config())
            << ",\n  \"accelerator\": " << quoted(tdc::select_device().str())
            << ",\n  \"backends\": [";
  const char* separator = "\n";
  for (const auto& backend : host.backends) {
    std::cout << separator << "    {\"name\": " << quoted(backend.name)
              << ", \"device_count\": " << backend.device_count
              << ", \"error\": " << quoted(backend.error) << "}";
    separator = ",\n";
  }
  std::cout << "\n  ],\n  \"devices\": [";
  separator = "\n";
  for (const auto& info : tdc::describe_host_devices()) {
    std::cout << separator << "    {\"device\": " << quoted(info.device.str())
              << ", \"name\": " << quoted(info.name) << ", \"driver\": " << quoted(info.driver)
              << ", \"memory_bytes\": " << info.memory_bytes << ", \"uuid\": " << quoted(info.uuid)
              << ", \"pci_bus_id\": " << quoted(info.pci_bus_id) << "}";
    separator = ",\n";
  }
  std::cout << "\n  ]\n}\n";
  return 0;
}
