#pragma once
// A run that would time nothing must say so and fail, not exit 0 with an
// empty (or a 0-byte) JSON: Google Benchmark itself only prints a line and
// reports success when --benchmark_filter matches nothing or is no regex.
#include <optional>
#include <string>
#include <vector>

namespace tdc::bench {

// Asks Google Benchmark (initialised, benchmarks registered) which
// benchmarks the run would time, without running them. Returns the one-line
// reason when none, after removing the empty --benchmark_out file that the
// probe leaves (`args` are the flags given to Google Benchmark).
std::optional<std::string> nothing_to_run(const std::vector<char*>& args, int registered);

}  // namespace tdc::bench
