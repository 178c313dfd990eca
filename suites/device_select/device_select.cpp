// The seed program in C++: select the accelerator if it can initialise, else
// the CPU; put Linear(3, 2) and its input there; run a no-grad forward pass;
// refuse to go on when model, input and output disagree on the device.
//
// Exit status: 0 aligned; 1 a check failed: device mismatch (the guard's
// message on stderr), a TDC_EXPECT/--expect shortfall, a broken accelerator,
// Module::to or the forward pass throwing, no result within TDC_TEST_TIMEOUT;
// 2 bad flags or environment. Every failure is one line on stderr.
#include <ATen/ATen.h>

#include <fstream>
#include <iostream>
#include <string>

#include "tdc/alignment_guard.h"
#include "tdc/config_error.h"
#include "tdc/device_resources.h"
#include "tdc/entry_point.h"
#include "tdc/device_spec.h"
#include "tdc/device_info.h"
#include "tdc/devices_under_test.h"
#include "tdc/discovery.h"
#include "tdc/prerequisite.h"
#include "tdc/process_guard.h"
#include "tdc/run_config.h"
#include "tdc/seed_model.h"
#include "tdc/text.h"

namespace {

struct Options {
  bool verbose = false;
  std::string inject_mismatch;  // "", "input" or "output"
  std::string resource_spec;    // write CTest's resource spec here instead of running the seed
  int resource_slots = 100;
};

int parse_slots(const std::string& text) {
  const bool digits = !text.empty() && text.size() <= 6 &&
                      text.find_first_not_of("0123456789") == std::string::npos;
  const int slots = digits ? std::stoi(text) : 0;
  if (slots < 1 || slots > 100000) {
    throw tdc::ConfigError("--resource-slots='" + text + "': expected an integer 1..100000");
  }
  return slots;
}

void print_context() {
  const auto report = tdc::select_device();
  std::cout << "libtorch_version=" << tdc::libtorch_version() << "\n"
            << "accelerator=" << report.str() << "\n";
  for (const auto& info : tdc::describe_host_devices()) {
    std::cout << "device=" << info.device.str() << " name=\"" << info.name << "\"";
    if (!info.driver.empty()) std::cout << " driver=\"" << info.driver << "\"";
    std::cout << "\n";
  }
  for (const auto& backend : tdc::host_devices().backends) {
    std::cout << "backend=" << backend.name << " device_count=" << backend.device_count;
    if (!backend.error.empty()) std::cout << " error=\"" << backend.error << "\"";
    std::cout << "\n";
  }
}

int fail(const std::string& message) {
  std::cerr << "device_select: " << tdc::first_line(message) << std::endl;
  tdc::report_finished();
  return 1;
}

int write_resource_spec(const Options& options) {
  std::ofstream out(options.resource_spec);
  out << tdc::ctest_resource_spec(tdc::devices_under_test(), options.resource_slots);
  out.close();
  if (!out) return fail("cannot write the resource spec to " + options.resource_spec);
  tdc::report_finished();
  return 0;
}

int run(const Options& options) {
  if (!options.resource_spec.empty()) return write_resource_spec(options);
  for (const auto& wanted : tdc::expectations_under_test()) {
    if (const auto shortfall = tdc::expectation_shortfall(wanted)) return fail(*shortfall);
  }
  const auto selection = tdc::select_device();
  if (!selection.error.empty()) return fail(selection.error);
  const c10::Device device = selection.selected;
  auto model = tdc::make_seed_model();
  if (const auto why = tdc::move_module_or_explain(*model, device)) return fail(*why);
  const auto inputs = tdc::make_seed_input(at::TensorOptions().device(
      options.inject_mismatch == "input" ? c10::Device(c10::kMeta) : device));
  at::Tensor outputs;
  try {
    at::NoGradGuard no_grad;
    outputs = model->forward(inputs);
  } catch (const c10::Error& error) {
    // PyTorch refusing a mix is fine, the guard below names the devices; on
    // an aligned set it is the backend failing.
    if (options.inject_mismatch.empty()) {
      return fail("forward on " + device.str() + " threw: " + error.what_without_backtrace());
    }
  }
  if (options.inject_mismatch == "output" && outputs.defined()) outputs = outputs.to(c10::kMeta);

  try {
    tdc::check_device_alignment(*model, {inputs},
                                outputs.defined() ? std::vector<at::Tensor>{outputs}
                                                  : std::vector<at::Tensor>{},
                                device);
  } catch (const tdc::DeviceMismatchError& mismatch) {
    return fail(mismatch.what());
  }
  if (options.verbose) print_context();
  // PyTorch's rule is right to pass over an unnamed backend; say why, once,
  // so that "cpu" beside two loaded devices is not a mystery.
  if (device.is_cpu()) {
    if (const auto unnamed = tdc::unnamed_privateuse1_backend()) {
      std::cerr << "device_select: note: cpu selected: " << *unnamed << std::endl;
      if (options.verbose) std::cout << "note=\"" << *unnamed << "\"\n";
    }
  }
  std::cout << "selected_device=" << tdc::device_type_name(device.type()) << "\n"
            << "model_device=" << tdc::device_type_name(model->weight.device().type()) << "\n"
            << "input_device=" << tdc::device_type_name(inputs.device().type()) << "\n"
            << "output_device=" << tdc::device_type_name(outputs.device().type()) << std::endl;
  tdc::report_finished();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  tdc::ProgramSpec spec;
  spec.name = "device_select";
  spec.summary = "the seed program: select, place, forward, refuse a device mismatch";
  spec.takes_devices = false;
  spec.flags = {
      {"--verbose", "also print the LibTorch version, devices and backends",
       [&](const std::string&) { options.verbose = true; }},
      {"-v", "same as --verbose", [&](const std::string&) { options.verbose = true; }},
      {"--inject-mismatch=", "input|output: put it on the meta device to show the guard refusing",
       [&](const std::string& value) {
         if (value != "input" && value != "output") {
           throw tdc::ConfigError("--inject-mismatch='" + value + "': expected input or output");
         }
         options.inject_mismatch = value;
       }},
      {"--resource-spec=", "write CTest's resource spec (one kind per device found, honouring "
                           "TDC_DEVICES) to this file and exit, running nothing",
       [&](const std::string& value) {
         if (value.empty()) throw tdc::ConfigError("--resource-spec=: expected a file name");
         options.resource_spec = value;
       }},
      {"--resource-slots=", "slots per device in that spec (default 100)",
       [&](const std::string& value) { options.resource_slots = parse_slots(value); }},
  };
  int timeout = 0;
  spec.read_environment = [&] { timeout = tdc::test_timeout_seconds(); };
  if (const auto status = tdc::start_program(spec, &argc, argv)) return *status;
  tdc::arm_watchdog(argv[0], timeout, "the seed (discovery, Module::to, forward)");
  try {
    return run(options);
  } catch (const std::exception& error) {
    return fail(std::string("the seed threw: ") + error.what());
  }
}
