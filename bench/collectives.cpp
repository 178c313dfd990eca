// tdc_bench_collectives: the time and bandwidth of allreduce (SUM), allgather
// (into one tensor), reduce_scatter (from one tensor), broadcast (root 0) and
// alltoall (equal splits) in float32, per device type, through the c10d
// backend that serves it (cpu: gloo; a c10d plugin named by
// --c10d-backend-lib / TDC_C10D_BACKEND_LIBS first; the loopback's own beside
// libtdc_loopback.so), with nccl-tests' algbw and busbw. A type's world is 2
// ranks on cpu and every device of an accelerator type, one process per rank
// (collective_world.h). Every size is verified once, on every rank, before
// it is timed.
#include "candidates.h"
#include "collective_world.h"
#include "device_errors.h"
#include "program.h"
#include "tdc/compat/remove_tree.h"
#include "tdc/config_error.h"
#include "tdc/devices_under_test.h"
#include "tdc/discovery.h"
#include "tdc/run_config.h"
#include "tdc/text.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>

namespace tdc::bench::collectives {
namespace {

// A timed sample lasts at least this long: the barrier before it lets the
// ranks leave some microseconds apart, which must stay a small share.
constexpr double kMinCollectiveSampleSeconds = 5e-3;
constexpr std::int64_t kMaxCollectiveBatch = std::int64_t{1} << 20;

// nccl-tests' sizes: 8 B to 1 GiB, doubling; quick (CI): four up to 4 MiB.
std::vector<std::int64_t> nominal_sizes(const Settings& settings) {
  if (settings.quick) return {8, 4 << 10, 256 << 10, 4 << 20};
  std::vector<std::int64_t> all;
  for (std::int64_t bytes = 8; bytes <= (std::int64_t{1} << 30); bytes *= 2) all.push_back(bytes);
  return all;
}

// --c10d-backend-lib=, in the order given.
std::vector<std::string>& c10d_backend_flags() {
  static std::vector<std::string> flags;
  return flags;
}

// Never destroyed: finish() ends them, and a world's backend must not be
// destroyed by the exit while a collective may still run.
std::vector<std::shared_ptr<World>>& worlds() {
  static auto* all = new std::vector<std::shared_ptr<World>>;
  return *all;
}

// The c10d backends tried for `type`, in order: --c10d-backend-lib, then
// TDC_C10D_BACKEND_LIBS, then TDC's own for the type, as the collectives
// suite orders them (suites/collectives/candidates.h: one list for both).
std::string candidates_for(c10::DeviceType type) {
  return tdc::collectives::c10d_candidates(type, c10d_backend_flags(), run_config().backend_libraries);
}

// What one size of a series keeps across Google Benchmark's calls (each
// repetition): the verdict of its one verification and the calibrated batch.
struct SizeState {
  std::optional<std::string> problem;
  std::int64_t batch = 0;
};

struct SeriesState {
  std::map<std::int64_t, SizeState> sizes;
};

Command run_command(Op op, std::int64_t elements, std::int64_t count) {
  Command c;
  c.kind = Command::Kind::kRun;
  c.op = op;
  c.elements = elements;
  c.count = count;
  return c;
}

// Calls per timed sample: enough for kMinCollectiveSampleSeconds on rank 0.
std::int64_t calibrate_collective_batch(World& world, Op op, std::int64_t elements) {
  std::int64_t batch = 1;
  for (;;) {
    const double elapsed = world.run(run_command(op, elements, batch));
    if (elapsed >= kMinCollectiveSampleSeconds || batch >= kMaxCollectiveBatch) return batch;
    const double wanted = elapsed > 0 ? std::ceil(1.25 * kMinCollectiveSampleSeconds * batch / elapsed) : 8.0 * batch;
    batch = std::clamp(static_cast<std::int64_t>(std::min(wanted, double(kMaxCollectiveBatch))), 2 * batch,
                       kMaxCollectiveBatch);
  }
}

void time_collective(benchmark::State& state, World& world, Op op, SeriesState& series) {
  const std::int64_t bytes = state.range(0);
  const std::int64_t elements = bytes / static_cast<std::int64_t>(sizeof(float));
  auto& size = series.sizes[bytes];
  if (!size.problem) {
    const std::int64_t wrong = world.verify(op, elements);
    size.problem = wrong == 0 ? std::string()
                              : std::string(info(op).name) + " " + world.type_name() + " " + std::to_string(bytes) +
                                    " bytes: #wrong=" + std::to_string(wrong) +
                                    " (elements of the ranks' results that differ from the host reference)";
  }
  if (!size.problem->empty()) return fail_verification(state, *size.problem);
  if (size.batch == 0) size.batch = calibrate_collective_batch(world, op, elements);
  while (state.KeepRunningBatch(size.batch)) {
    state.SetIterationTime(world.run(run_command(op, elements, size.batch)));
  }
  // Per call, over the manual time: algbw = size / time (nccl-tests), busbw = algbw * its factor.
  const double moved = static_cast<double>(state.iterations()) * static_cast<double>(bytes);
  state.SetBytesProcessed(static_cast<std::int64_t>(moved));
  state.counters["algbw_GBps"] = benchmark::Counter(moved / 1e9, benchmark::Counter::kIsRate);
  state.counters["busbw_GBps"] =
      benchmark::Counter(moved * bus_factor(op, world.size()) / 1e9, benchmark::Counter::kIsRate);
  state.counters["batch"] = static_cast<double>(size.batch);
  state.SetLabel(world.backend_name() + ": rank 0's steady_clock from a barrier" +
                 (world.device_is_cpu() ? "" : " to a synchronized device"));
}

void add_world(c10::DeviceType type, const Settings& settings) {
  const std::string type_name = c10::DeviceTypeName(type, /*lower_case=*/true);
  const int size = type == c10::DeviceType::CPU ? 2 : host_devices().count(type);
  if (size < 2) {
    skip_series("collectives/*/" + type_name, "a collective needs two ranks, one per device, and this host has " +
                                                  std::to_string(size) + " " + type_name + " device");
    return;
  }
  auto world = std::make_shared<World>(type, size);
  try {
    world->start(candidates_for(type), run_config().backend_libraries);
    benchmark::AddCustomContext("tdc.c10d_backend." + type_name, world->backend_name());
  } catch (const std::exception& e) {
    const std::string what = first_line(e.what());
    if (what.rfind("SKIP: ", 0) == 0) {
      skip_series("collectives/*/" + type_name, what.substr(6));
      return;
    }
    // Broken is not absent: its benchmarks are registered and fail with why.
    world->mark_broken("the " + std::to_string(size) + "-rank world of " + type_name + " did not start: " + what);
  }
  worlds().push_back(world);
  for (const auto& op : all_ops()) {
    const std::string series = "collectives/" + std::string(op.name) + "/" + type_name + "/w" + std::to_string(size);
    if (auto why = world->undeclared(op.capability)) {
      skip_series(series, *why);
      continue;
    }
    std::set<std::int64_t> sizes;  // in bytes actually moved: a chunked op rounds to the world
    for (const auto nominal : nominal_sizes(settings)) {
      sizes.insert(elements_for(op.op, nominal, size) * static_cast<std::int64_t>(sizeof(float)));
    }
    auto state = std::make_shared<SeriesState>();
    auto* b = benchmark::RegisterBenchmark(series.c_str(), [world, state, which = op.op, type_name](benchmark::State& s) {
      guard_device_errors(s, type_name, [&] { time_collective(s, *world, which, *state); });
    });
    for (const auto bytes : sizes) b->Arg(bytes);
    configure(b);
  }
}

void register_collectives(const Settings& settings) {
  std::set<int> types;  // by number: cpu first
  for (const auto& dut : devices_under_test()) {
    if (!dut.present()) {
      skip_series("collectives/*/" + dut.device.str(), dut.absent_reason);
      continue;
    }
    types.insert(static_cast<int>(dut.device.type()));
  }
  for (const int type : types) add_world(static_cast<c10::DeviceType>(type), settings);
}

bool finish_worlds() {
  bool fine = true;
  for (const auto& world : worlds()) {
    for (const auto& problem : world->finish()) {
      std::cerr << "tdc_bench_collectives: " << world->type_name() << ": " << problem << std::endl;
      fine = false;
    }
  }
  return fine;
}

ProgramFlag c10d_backend_flag() {
  return {"--c10d-backend-lib=",
          "a c10d plugin (tdc/c10d_plugin.h) tried first for every device type, or 'gloo'; repeatable "
          "(env TDC_C10D_BACKEND_LIBS, tried next)",
          [](const std::string& value) {
            if (value != "gloo" && !std::filesystem::is_regular_file(value)) {
              throw ConfigError("--c10d-backend-lib=" + value + ": no such file");
            }
            c10d_backend_flags().push_back(value);
          }};
}

}  // namespace
}  // namespace tdc::bench::collectives

int main(int argc, char** argv) {
  using namespace tdc::bench::collectives;
  if (argc > 1 && std::strcmp(argv[1], kFollowerFlag) == 0) return follower_main(argc, argv);
  std::string folder;
  try {
    folder = make_session_folder();
  } catch (const std::exception& e) {
    std::cerr << "tdc_bench_collectives: " << e.what() << std::endl;
    return 1;
  }
  tdc::bench::Program program{"tdc_bench_collectives",
                              "collective time, algbw and busbw per device type's c10d backend (nccl-tests)",
                              register_collectives};
  program.flags = {c10d_backend_flag()};
  program.finish = finish_worlds;
  const int status = tdc::bench::run(program, argc, argv);
  tdc::compat::remove_tree(folder);
  return status;
}
