#include "filter_check.h"

#include "tdc/text.h"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstring>
#include <sstream>
#include <sys/stat.h>

namespace tdc::bench {
namespace {

// Declines to run anything (ReportContext returns false), so that
// RunSpecifiedBenchmarks only matches the filter and returns the count; what
// Google Benchmark would print is kept for the reason.
class MatchOnlyReporter final : public benchmark::BenchmarkReporter {
 public:
  MatchOnlyReporter() {
    SetOutputStream(&said_);
    SetErrorStream(&said_);
  }
  bool ReportContext(const Context&) override { return false; }
  void ReportRuns(const std::vector<Run>&) override {}
  std::string said() const { return said_.str(); }

 private:
  std::ostringstream said_;
};

// The last --benchmark_out=PATH (Google Benchmark takes the last one).
std::string out_path(const std::vector<char*>& args) {
  const char* prefix = "--benchmark_out=";
  std::string path;
  for (const char* arg : args) {
    if (arg != nullptr && std::strncmp(arg, prefix, std::strlen(prefix)) == 0) {
      path = arg + std::strlen(prefix);
    }
  }
  return path;
}

void remove_if_empty(const std::string& path) {
  struct stat info {};
  if (!path.empty() && ::stat(path.c_str(), &info) == 0 && info.st_size == 0) {
    std::remove(path.c_str());
  }
}

}  // namespace

std::optional<std::string> nothing_to_run(const std::vector<char*>& args, int registered) {
  MatchOnlyReporter probe;
  const auto matched = benchmark::RunSpecifiedBenchmarks(&probe);
  if (matched > 0) return std::nullopt;
  remove_if_empty(out_path(args));
  if (registered == 0) {
    return "no benchmark to run: none is registered for the devices under test (see the "
           "'skipping' lines)";
  }
  const auto filter = benchmark::GetBenchmarkFilter();
  const auto said = first_line(probe.said());
  const char* bad_regex = "Could not compile benchmark re: ";
  if (said.rfind(bad_regex, 0) == 0) {
    return "--benchmark_filter='" + filter + "' is not a valid regular expression: " +
           said.substr(std::strlen(bad_regex));
  }
  return "--benchmark_filter='" + filter + "' matches none of the " + std::to_string(registered) +
         " series registered (--benchmark_list_tests=true lists them)";
}

}  // namespace tdc::bench
