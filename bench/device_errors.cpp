#include "device_errors.h"

#include "tdc/text.h"

#include <iostream>
#include <map>
#include <mutex>

namespace tdc::bench {
namespace {

std::mutex& errors_mutex() {
  static std::mutex mutex;
  return mutex;
}

// device -> its first error (the root cause; later ones usually repeat it).
std::map<std::string, std::string>& errors() {
  static std::map<std::string, std::string> by_device;
  return by_device;
}

}  // namespace

std::string record_device_error(const std::string& device, const std::string& message) {
  const auto line = first_line(message);
  std::lock_guard<std::mutex> lock(errors_mutex());
  errors().emplace(device, line);
  return "device error on " + device + ": " + line;
}

bool report_device_errors(const char* program) {
  std::lock_guard<std::mutex> lock(errors_mutex());
  for (const auto& [device, message] : errors()) {
    std::cerr << program << ": " << device << ": " << message << std::endl;
  }
  return !errors().empty();
}

}  // namespace tdc::bench
