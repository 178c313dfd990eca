#include "program.h"

#include "device_errors.h"
#include "filter_check.h"
#include "tdc/config_error.h"
#include "tdc/device_info.h"
#include "tdc/entry_point.h"
#include "tdc/devices_under_test.h"
#include "tdc/discovery.h"
#include "tdc/process_guard.h"
#include "tdc/run_config.h"

#include <ATen/Parallel.h>

#include <atomic>
#include <iostream>
#include <string>
#include <vector>

namespace tdc::bench {
namespace {

std::atomic<bool> verification_failed{false};
std::atomic<int> registered_series{0};

void add_context(const Settings& settings) {
  benchmark::AddCustomContext("tdc.libtorch_version", tdc::libtorch_version());
  benchmark::AddCustomContext("tdc.selection", tdc::select_device().str());
  benchmark::AddCustomContext("tdc.quick", settings.quick ? "1" : "0");
  // Intra-op threads change copy and matmul times; on a shared host they
  // also decide whether a copy waits for a descheduled worker.
  benchmark::AddCustomContext("tdc.intra_op_threads", std::to_string(at::get_num_threads()));
  for (const auto& description : tdc::describe_host_devices()) {
    const auto key = "tdc.device." + description.device.str();
    benchmark::AddCustomContext(key + ".name", description.name);
    if (!description.driver.empty()) benchmark::AddCustomContext(key + ".driver", description.driver);
  }
}

// Google Benchmark's own flags, defaulted here rather than set per benchmark:
// per-benchmark settings end up in the benchmark names ("/repeats:5"), and
// names must not change with --tdc-quick or compare.py cannot pair them. The
// defaults come first in argv so that the user's flags override them.
std::vector<std::string> default_benchmark_flags(const Settings& settings) {
  return {
      settings.quick ? "--benchmark_min_time=0.005" : "--benchmark_min_time=0.05",
      settings.quick ? "--benchmark_min_warmup_time=0.002" : "--benchmark_min_warmup_time=0.02",
      // Five repetitions: median, cv, and enough for compare.py's U test.
      "--benchmark_repetitions=5",
      // Console: aggregates only; the JSON keeps every repetition for the U test.
      "--benchmark_display_aggregates_only=true",
  };
}

}  // namespace

int run(const Program& program, int argc, char** argv) {
  Settings settings;
  ProgramSpec spec;
  spec.name = program.name;
  spec.summary = program.description;
  spec.flags = {{"--tdc-quick", "reduced size/case set for CI (also TDC_BENCH_QUICK=1)",
                 [&](const std::string&) { settings.quick = true; }}};
  spec.flags.insert(spec.flags.end(), program.flags.begin(), program.flags.end());
  spec.passes_through = "--benchmark_";
  spec.framework_help = [] {
    std::cout << "Google Benchmark flags:\n";
    benchmark::PrintDefaultHelp();
  };
  spec.read_environment = [&] { settings.quick = settings.quick || read_env_switch("TDC_BENCH_QUICK"); };
  if (const auto status = start_program(spec, &argc, argv)) return *status;
  // A --expect / TDC_EXPECT shortfall, or a backend that failed to enumerate
  // or initialise (in an isolated child), fails the run after the benchmarks
  // of the devices that work: broken is not absent.
  bool devices_failed = false;
  for (const auto& wanted : tdc::expectations_under_test()) {
    if (const auto shortfall = tdc::expectation_shortfall(wanted)) {
      std::cerr << program.name << ": " << *shortfall << std::endl;
      devices_failed = true;
    }
  }
  for (const auto& dut : tdc::devices_under_test()) {
    if (dut.failure.empty()) continue;
    std::cerr << program.name << ": " << dut.device.str() << ": " << dut.failure << std::endl;
    devices_failed = true;
  }
  auto defaults = default_benchmark_flags(settings);
  std::vector<char*> args{argv[0]};
  for (auto& flag : defaults) args.push_back(flag.data());
  args.insert(args.end(), argv + 1, argv + argc);
  int args_count = static_cast<int>(args.size());
  args.push_back(nullptr);
  benchmark::Initialize(&args_count, args.data());
  if (benchmark::ReportUnrecognizedArguments(args_count, args.data())) {
    tdc::report_finished();
    return kConfigErrorExitCode;
  }

  add_context(settings);
  program.register_benchmarks(settings);
  if (const auto problem = nothing_to_run(args, registered_series)) {
    std::cerr << program.name << ": " << *problem << std::endl;
    if (program.finish) program.finish();
    tdc::report_finished();
    return kConfigErrorExitCode;
  }
  benchmark::RunSpecifiedBenchmarks();
  const bool finished = program.finish == nullptr || program.finish();
  benchmark::Shutdown();
  const bool a_device_threw = report_device_errors(program.name);
  tdc::report_finished();
  if (verification_failed) {
    std::cerr << program.name << ": verification failed (see the benchmarks marked ERROR)"
              << std::endl;
  }
  return devices_failed || a_device_threw || verification_failed || !finished ? 1 : 0;
}

benchmark::internal::Benchmark* configure(benchmark::internal::Benchmark* b) {
  // Run-wide options (warm-up, minimum time, repetitions) are flags: see default_benchmark_flags.
  ++registered_series;
  return b->UseManualTime()->Unit(benchmark::kMicrosecond);
}

void fail_verification(benchmark::State& state, const std::string& what) {
  verification_failed = true;
  const auto message = "verification failed: " + what;
  state.SkipWithError(message.c_str());
}

void skip_series(const std::string& series, const std::string& reason) {
  std::cerr << "skipping " << series << ": " << reason << std::endl;
  benchmark::AddCustomContext("tdc.skipped." + series, reason);
}

}  // namespace tdc::bench
