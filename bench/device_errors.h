#pragma once
// A device that throws (Module::to, a copy, a kernel) fails its own
// benchmarks and nothing else: the other devices' results are kept, the
// error is printed once per device at the end, and the program exits 1.
#include <benchmark/benchmark.h>
#include <c10/util/Exception.h>

#include <exception>
#include <string>

namespace tdc::bench {

// Records the error of `device` (the first one is kept: later ones usually
// repeat it); returns the line the benchmark reports.
std::string record_device_error(const std::string& device, const std::string& message);

// Prints "<program>: <device>: <error>" per failed device; true if any.
bool report_device_errors(const char* program);

// Runs `body`; a c10::Error or std::exception from it marks `device` as
// failed and skips the benchmark with the error.
template <typename Body>
void guard_device_errors(benchmark::State& state, const std::string& device, const Body& body) {
  std::string error;
  try {
    body();
    return;
  } catch (const c10::Error& e) {
    error = e.what_without_backtrace();
  } catch (const std::exception& e) {
    error = e.what();
  }
  state.SkipWithError(record_device_error(device, error).c_str());
}

}  // namespace tdc::bench
