// tdc_seed_child: the seed forward on the one device --devices names, in a
// process of its own. SpawnedChild starts it (fork, then exec) while the test
// process holds that device, as a launcher's second job step or a spawned
// data-loader worker would.
//
// Prints "right" or "wrong: <why>". Exit status: 0 right; 1 wrong, or the
// device is absent, broken or throws (one line on stderr); 2 bad input.
#include <ATen/ATen.h>
#include <c10/core/DeviceGuard.h>

#include <iostream>

#include "tdc/devices_under_test.h"
#include "tdc/entry_point.h"
#include "tdc/prerequisite.h"
#include "tdc/process_guard.h"
#include "tdc/run_config.h"
#include "tdc/seed_model.h"
#include "tdc/text.h"
#include "tdc/tolerance.h"

namespace {

// Every way out says so: the process guard fails an exit it was not told of.
[[noreturn]] void finish(int status) { tdc::finish_process(status); }

int run_seed(const tdc::DeviceUnderTest& dut) {
  const auto reference = tdc::reference_forward(
      tdc::make_seed_model(), tdc::make_seed_input(at::TensorOptions().dtype(at::kFloat)));
  c10::DeviceGuard guard(dut.device);
  auto model = tdc::make_seed_model();
  // Moving the model has its own check: name it rather than repeat its failure.
  if (const auto prerequisite = tdc::move_module_or_explain(*model, dut.device)) {
    std::cout << *prerequisite << "\n";
    return 1;
  }
  at::NoGradGuard no_grad;
  const auto output = model->forward(tdc::make_seed_input(at::TensorOptions().device(dut.device)));
  if (output.device() != dut.device) {
    std::cout << "wrong: the output is on " << output.device() << "\n";
    return 1;
  }
  const auto close = tdc::all_close(output, reference, tdc::tolerance_for(at::kFloat));
  std::cout << (close ? std::string("right") : "wrong: " + std::string(close.message())) << "\n";
  return close ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  tdc::ProgramSpec spec;
  spec.name = "tdc_seed_child";
  spec.summary = "run the seed forward on the one device --devices names; print right or wrong";
  int timeout = 0;
  spec.read_environment = [&] { timeout = tdc::test_timeout_seconds(); };
  if (const auto status = tdc::start_program(spec, &argc, argv)) return *status;
  tdc::arm_watchdog(argv[0], timeout, "the seed forward in a spawned process");
  const auto& devices = tdc::devices_under_test();
  if (devices.size() != 1) {
    std::cerr << "tdc_seed_child: --devices must name exactly one device; it names " << devices.size() << "\n";
    finish(2);
  }
  const auto& dut = devices.front();
  if (!dut.present()) {
    std::cerr << "tdc_seed_child: " << dut.device << ": "
              << (dut.failure.empty() ? dut.absent_reason : dut.failure) << "\n";
    finish(1);
  }
  try {
    finish(run_seed(dut));
  } catch (const std::exception& e) {
    std::cerr << "tdc_seed_child: " << dut.device << ": " << tdc::first_line(e.what()) << "\n";
    finish(1);
  }
}
