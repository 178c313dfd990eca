// tdc_bench_transfer: bandwidth of host<->device, on-device and device<->device
// copies for every device under test, beside a plain memcpy of the same sizes
// (the anchor side_by_side.py divides by). Every size is verified once before
// it is timed.
#include "buffers.h"
#include "program.h"
#include "tdc/compat/timing.h"
#include "tdc/devices_under_test.h"

#include <ATen/ATen.h>

#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <optional>

namespace tdc::bench {
namespace {

constexpr std::uint64_t kSeed = 0x7dc0b3e5;
const c10::Device kHost(c10::DeviceType::CPU);

std::vector<std::int64_t> sizes(const Settings& settings) {
  if (settings.quick) return {4 << 10, 256 << 10, 16 << 20};
  std::vector<std::int64_t> all;
  for (std::int64_t bytes = 4 << 10; bytes <= (256 << 20); bytes *= 4) all.push_back(bytes);
  return all;
}

// One series: what is copied from where to where. The host side is `kHost`.
struct Transfer {
  std::string pattern;  // "h2d_pinned": the key thresholds.json uses
  c10::Device from, to;
  bool pinned_host = false;  // the host side is page-locked; copies are non_blocking
  bool clone = false;        // allocate the destination in every copy (src.clone())

  std::string name() const {
    const auto device = from.is_cpu() ? to : from;
    const auto where = from != to && !from.is_cpu() && !to.is_cpu()
                           ? from.str() + "->" + to.str()
                           : device.str();
    return "transfer/" + pattern + "/" + where;
  }
  // The devices whose queues the copy runs on, for the timer.
  std::vector<c10::Device> devices() const {
    std::vector<c10::Device> list;
    if (!from.is_cpu()) list.push_back(from);
    if (!to.is_cpu() && to != from) list.push_back(to);
    if (list.empty()) list.push_back(kHost);
    return list;
  }
};

at::Tensor source_for(const Transfer& t, const at::Tensor& pattern) {
  if (!t.from.is_cpu()) return pattern.to(t.from);
  return t.pinned_host ? pinned(pattern) : pattern.clone();
}

at::Tensor destination_for(const Transfer& t, std::int64_t bytes) {
  if (t.clone) return at::Tensor();
  auto dst = at::empty({bytes}, at::TensorOptions().dtype(at::kByte).device(t.to));
  return t.to.is_cpu() && t.pinned_host ? pinned(dst) : dst;
}

// The first verdict per size, kept across the repetitions of a series.
using Verdicts = std::map<std::int64_t, std::optional<std::string>>;

// The one timed loop of every series, so that memcpy and LibTorch's copies
// are measured the same way.
template <typename Copy>
void time_copies(benchmark::State& state, const std::vector<c10::Device>& devices, const Copy& copy,
                 std::int64_t bytes) {
  const auto timer = compat::make_interval_timer(devices);
  for (auto _ : state) {
    timer->start();
    copy();
    state.SetIterationTime(timer->stop());
  }
  state.SetBytesProcessed(state.iterations() * bytes);
  state.SetLabel(timer->method());
}

void run_transfer(benchmark::State& state, const Transfer& t, Verdicts& verdicts) {
  const auto bytes = state.range(0);
  const auto pattern = seeded_bytes(bytes, kSeed + static_cast<std::uint64_t>(bytes));
  const auto src = source_for(t, pattern);
  auto dst = destination_for(t, bytes);
  const auto copy = [&] {
    if (t.clone) {
      dst = src.clone();
    } else {
      dst.copy_(src, /*non_blocking=*/t.pinned_host);
    }
  };

  // One untimed copy in every run, not only the verified one: Google
  // Benchmark calls this function afresh for warm-up and each repetition, and
  // the first copy into new memory pays for faulting its pages in (a 256 MiB
  // destination: ~8x the copy itself on a VM).
  copy();
  for (const auto& device : t.devices()) compat::synchronize(device);
  auto verdict = verdicts.find(bytes);
  if (verdict == verdicts.end()) {
    std::optional<std::string> problem;
    if (!at::equal(dst.to(kHost), pattern)) {
      problem = t.name() + " " + std::to_string(bytes) + " bytes: destination differs from source";
    }
    verdict = verdicts.emplace(bytes, problem).first;
  }
  if (verdict->second) return fail_verification(state, *verdict->second);

  time_copies(state, t.devices(), copy, bytes);
}

// The anchor: std::memcpy between two host buffers that are already faulted in.
void run_memcpy(benchmark::State& state, Verdicts& verdicts) {
  const auto bytes = state.range(0);
  const auto src = seeded_bytes(bytes, kSeed + static_cast<std::uint64_t>(bytes));
  auto dst = at::empty({bytes}, at::kByte);
  const auto copy = [&] {
    std::memcpy(dst.data_ptr<std::uint8_t>(), src.data_ptr<std::uint8_t>(), static_cast<size_t>(bytes));
    benchmark::ClobberMemory();
  };
  copy();  // untimed, as in run_transfer
  auto verdict = verdicts.find(bytes);
  if (verdict == verdicts.end()) {
    std::optional<std::string> problem;
    if (!at::equal(dst, src)) problem = "memcpy " + std::to_string(bytes) + " bytes differs";
    verdict = verdicts.emplace(bytes, problem).first;
  }
  if (verdict->second) return fail_verification(state, *verdict->second);

  time_copies(state, {kHost}, copy, bytes);
}

void add_series(const std::string& name, const Settings& settings,
                std::function<void(benchmark::State&, Verdicts&)> body) {
  auto verdicts = std::make_shared<Verdicts>();
  auto* b = benchmark::RegisterBenchmark(
      name.c_str(), [body, verdicts](benchmark::State& state) { body(state, *verdicts); });
  for (const auto bytes : sizes(settings)) b->Arg(bytes);
  configure(b, settings);
}

void add_transfer(const Transfer& t, const Settings& settings) {
  add_series(t.name(), settings,
             [t](benchmark::State& state, Verdicts& verdicts) { run_transfer(state, t, verdicts); });
}

void register_transfers(const Settings& settings) {
  add_series("transfer/memcpy/cpu", settings, run_memcpy);

  std::map<c10::DeviceType, std::vector<c10::Device>> by_type;
  for (const auto& dut : devices_under_test()) {
    if (!dut.present()) {
      skip_series("transfer/*/" + dut.device.str(), dut.absent_reason);
      continue;
    }
    const auto d = dut.device;
    by_type[d.type()].push_back(d);
    add_transfer({"d2d", d, d}, settings);
    add_transfer({"clone", d, d, false, true}, settings);
    if (d.is_cpu()) continue;  // the host has no host-to-device copy
    add_transfer({"h2d", kHost, d}, settings);
    add_transfer({"d2h", d, kHost}, settings);
    const auto& no_pinning = pinned_unsupported_reason();
    if (no_pinning.empty()) {
      add_transfer({"h2d_pinned", kHost, d, true}, settings);
      add_transfer({"d2h_pinned", d, kHost, true}, settings);
    } else {
      skip_series("transfer/h2d_pinned+d2h_pinned/" + d.str(), no_pinning);
    }
  }
  for (const auto& [type, devices] : by_type) {
    if (type != c10::DeviceType::CPU && devices.size() >= 2) {
      add_transfer({"d2d_peer", devices[0], devices[1]}, settings);
    }
  }
}

}  // namespace
}  // namespace tdc::bench

int main(int argc, char** argv) {
  return tdc::bench::run({"tdc_bench_transfer",
                          "copy bandwidth per device and pattern, beside plain memcpy",
                          tdc::bench::register_transfers},
                         argc, argv);
}
