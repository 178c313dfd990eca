// tdc_cold_start: one seed forward in a fresh process, timed from main() to
// the first result on the host, lazy accelerator initialisation included.
// Prints one JSON object; cold_start.py runs it N times (and adds the time
// before main(): loading LibTorch) and reports medians.
#include "tdc/config_error.h"
#include "tdc/device_info.h"
#include "tdc/entry_point.h"
#include "tdc/discovery.h"
#include "tdc/prerequisite.h"
#include "tdc/process_guard.h"
#include "tdc/run_config.h"
#include "tdc/text.h"
#include "tdc/seed_model.h"

#include <ATen/ATen.h>

#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>

namespace {

using Clock = std::chrono::steady_clock;

double us_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::micro>(b - a).count();
}

}  // namespace

int main(int argc, char** argv) {
  const auto entered = Clock::now();
  // Exit status: 0 a correct result, 1 a wrong one or a failure (one line on
  // stderr), 2 bad flags or environment.
  tdc::ProgramSpec spec;
  spec.name = "tdc_cold_start";
  spec.summary = "time to the seed's first forward result";
  int timeout = 0;
  spec.read_environment = [&] { timeout = tdc::test_timeout_seconds(); };
  if (const auto status = tdc::start_program(spec, &argc, argv)) return *status;
  const auto fail = [](const std::string& message) {
    std::cerr << "tdc_cold_start: " << tdc::first_line(message) << std::endl;
    tdc::report_finished();
    return 1;
  };
  tdc::arm_watchdog(argv[0], timeout, "the seed's first forward");
  const auto prepared = Clock::now();

  // The seed's rule picks the device, initialising the accelerator if needed.
  const auto selection = tdc::select_device();
  if (!selection.error.empty()) return fail(selection.error);
  const auto device = selection.selected;
  const auto selected = Clock::now();

  at::NoGradGuard no_grad;
  auto model = tdc::make_seed_model();
  if (const auto why = tdc::move_module_or_explain(*model, device)) return fail(*why);
  at::Tensor on_host;
  try {
    const auto output = model->forward(tdc::make_seed_input(at::TensorOptions().device(device)));
    on_host = output.to(at::kCPU);  // waits for the device
  } catch (const std::exception& error) {
    return fail("forward on " + device.str() + " threw: " + error.what());
  }
  const auto done = Clock::now();

  const auto expected = tdc::reference_forward(model, tdc::make_seed_input({})).to(at::kFloat);
  const bool correct = at::allclose(on_host, expected, 1e-4, 1e-5);

  const nlohmann::ordered_json result = {{"device", device.str()},
                                         {"selection", selection.str()},
                                         {"libtorch", tdc::libtorch_version()},
                                         {"main_to_result_us", us_between(entered, done)},
                                         {"prepare_us", us_between(entered, prepared)},
                                         {"select_us", us_between(prepared, selected)},
                                         {"first_forward_us", us_between(selected, done)},
                                         {"correct", correct}};
  std::cout << result.dump() << std::endl;
  tdc::report_finished();
  return correct ? 0 : 1;
}
