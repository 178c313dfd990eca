// The seed program in C++: select the accelerator if it can initialise, else
// the CPU; put Linear(3, 2) and its input there; run a no-grad forward pass;
// refuse to go on when model, input and output disagree on the device.
//
// Exit status: 0 aligned, 1 device mismatch (the guard's message on stderr),
// 2 bad flags or environment.
#include <ATen/ATen.h>

#include <cstring>
#include <iostream>
#include <string>

#include "tdc/alignment_guard.h"
#include "tdc/config_error.h"
#include "tdc/device_spec.h"
#include "tdc/device_info.h"
#include "tdc/discovery.h"
#include "tdc/run_config.h"
#include "tdc/seed_model.h"

namespace {

struct Options {
  bool verbose = false;
  std::string inject_mismatch;  // "", "input" or "output"
};

Options parse_options(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--verbose" || arg == "-v") {
      options.verbose = true;
    } else if (arg.rfind("--inject-mismatch=", 0) == 0) {
      options.inject_mismatch = arg.substr(std::strlen("--inject-mismatch="));
      if (options.inject_mismatch != "input" && options.inject_mismatch != "output") {
        throw tdc::ConfigError("--inject-mismatch='" + options.inject_mismatch +
                               "': expected input or output");
      }
    } else {
      throw tdc::ConfigError("unknown argument '" + arg + "' (see --help)");
    }
  }
  return options;
}

void print_help() {
  std::cout << "usage: device_select [--verbose] [--inject-mismatch=input|output]\n"
            << tdc::run_flags_help()
            << "  --inject-mismatch=X   put X on the meta device to show the guard refusing\n";
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

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      print_help();
      return 0;
    }
  }
  if (!tdc::prepare_run_or_report(&argc, argv)) return tdc::kConfigErrorExitCode;
  Options options;
  try {
    options = parse_options(argc, argv);
  } catch (const tdc::ConfigError& error) {
    std::cerr << "device_select: " << error.what() << std::endl;
    return tdc::kConfigErrorExitCode;
  }

  const c10::Device device = tdc::select_device().selected;
  auto model = tdc::make_seed_model();
  model->to(device);
  const auto inputs = tdc::make_seed_input(at::TensorOptions().device(
      options.inject_mismatch == "input" ? c10::Device(c10::kMeta) : device));
  at::Tensor outputs;
  try {
    at::NoGradGuard no_grad;
    outputs = model->forward(inputs);
  } catch (const c10::Error&) {
    // PyTorch refusing the mix is fine; the guard below names the devices.
  }
  if (options.inject_mismatch == "output" && outputs.defined()) outputs = outputs.to(c10::kMeta);

  try {
    tdc::check_device_alignment(*model, {inputs},
                                outputs.defined() ? std::vector<at::Tensor>{outputs}
                                                  : std::vector<at::Tensor>{},
                                device);
  } catch (const tdc::DeviceMismatchError& mismatch) {
    std::cerr << mismatch.what() << std::endl;
    return 1;
  }
  if (options.verbose) print_context();
  std::cout << "selected_device=" << tdc::device_type_name(device.type()) << "\n"
            << "model_device=" << tdc::device_type_name(model->weight.device().type()) << "\n"
            << "input_device=" << tdc::device_type_name(inputs.device().type()) << "\n"
            << "output_device=" << tdc::device_type_name(outputs.device().type()) << std::endl;
  return 0;
}
