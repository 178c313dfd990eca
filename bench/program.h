#pragma once
// The entry point every benchmark program shares: TDC's flags, plugins and
// device specs first (as in the suites' gtest_main), then registration for
// the devices under test, then Google Benchmark.
#include "tdc/entry_point.h"

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

namespace tdc::bench {

struct Settings {
  bool quick = false;  // --tdc-quick or TDC_BENCH_QUICK=1: the reduced set for CI
};

struct Program {
  const char* name;         // "tdc_bench_transfer"
  const char* description;  // one line for --help
  // Registers the program's benchmarks; devices_under_test() is ready.
  void (*register_benchmarks)(const Settings&);
  // The program's own flags beside --tdc-quick (tdc_bench_collectives: --c10d-backend-lib=).
  std::vector<ProgramFlag> flags = {};
  // Ends what register_benchmarks started (tdc_bench_collectives' rank
  // processes): called once after the benchmarks ran, or were found to match
  // nothing. False fails the run (exit status 1).
  bool (*finish)() = nullptr;
};

// Runs the program; returns the process exit status: kConfigErrorExitCode (2)
// on bad input or when nothing would be timed (a filter matching nothing),
// 1 when a benchmark failed verification, a device threw, an expected device
// is missing, a device is broken or finish() failed, else 0.
int run(const Program& program, int argc, char** argv);

// The options every benchmark shares: manual time (batch_timing.h decides
// how) in microseconds. Warm-up, minimum time
// and repetitions are run-wide flags with defaults (see program.cpp).
benchmark::internal::Benchmark* configure(benchmark::internal::Benchmark* b);

// Marks the run as failed (exit status 1) and skips the benchmark with the
// message, which starts with "verification failed".
void fail_verification(benchmark::State& state, const std::string& what);

// Records why a series is not registered: printed, and kept in the JSON
// context under "skipped.<series>".
void skip_series(const std::string& series, const std::string& reason);

}  // namespace tdc::bench
