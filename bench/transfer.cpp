// tdc_bench_transfer: bandwidth of host<->device, on-device and device<->device
// copies for every device under test, beside a plain memcpy of the same sizes
// (the physical reference line of the plot), and the latency of one small
// copy as its own series. Every size is verified once before it is timed.
#include "batch_timing.h"
#include "buffers.h"
#include "device_errors.h"
#include "program.h"
#include "tdc/devices_under_test.h"

#include <ATen/ATen.h>

#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <optional>

namespace tdc::bench {
namespace {

constexpr std::uint64_t kSalt = 0x7dc0b3e5;
const c10::Device kHost(c10::DeviceType::CPU);
// The latency series: one small copy, with the synchronisation a caller pays.
constexpr std::int64_t kLatencyBytes = 4 << 10;

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

  // "loopback:0", or "loopback:0->loopback:1" for a copy between devices.
  std::string where() const {
    const auto device = from.is_cpu() ? to : from;
    return from != to && !from.is_cpu() && !to.is_cpu() ? from.str() + "->" + to.str()
                                                         : device.str();
  }
  std::string name() const { return pattern + "/" + where(); }
  // A blocking copy between pageable host memory and a device waits for the
  // device's stream (batch_timing.h, HostWaits).
  HostWaits waits() const { return !pinned_host && from.is_cpu() != to.is_cpu() ? HostWaits::kMay : HostWaits::kNever; }
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

// What one size of a series keeps across Google Benchmark's calls (warm-up,
// each repetition): the first verification verdict and the calibrated batch,
// so every repetition of a size times the same batch.
struct SizeState {
  std::optional<std::string> problem;
  std::int64_t batch = 0;
};

// The buffers of the series and size being measured, kept across those
// calls as a plain loop keeps them: fresh ones per call made every
// repetition fault new pages in and regenerate the pattern. One slot for the
// whole program (Google Benchmark runs one benchmark at a time, a size's
// repetitions back to back), so 256 MiB buffers are never hoarded.
struct Buffers {
  const void* series = nullptr;
  std::int64_t bytes = 0;
  at::Tensor pattern, src, dst;
};

struct SeriesState {
  std::map<std::int64_t, SizeState> sizes;
};

// Whether the copy was checked and found wrong; verifies on first use.
template <typename Check>
const std::optional<std::string>& verdict(SeriesState& series, std::int64_t bytes, const Check& check) {
  auto found = series.sizes.find(bytes);
  if (found == series.sizes.end()) found = series.sizes.emplace(bytes, SizeState{check(), 0}).first;
  return found->second.problem;
}

// Never destroyed: device tensors must not outlive their backend at exit.
Buffers& buffer_slot() {
  static auto* slot = new Buffers;
  return *slot;
}

// The buffers for `series` and `bytes`, made by `make` when either changed.
template <typename Make>
Buffers& buffers_for(const SeriesState& series, std::int64_t bytes, const Make& make) {
  auto& slot = buffer_slot();
  if (slot.series != &series || slot.bytes != bytes) {
    slot = Buffers{};  // release the previous buffers before allocating the next
    slot.pattern = salted_bytes(bytes, kSalt + static_cast<std::uint64_t>(bytes));
    make(slot);
    slot.series = &series;
    slot.bytes = bytes;
  }
  return slot;
}

// The one timed loop of every bandwidth series, so that memcpy and LibTorch's
// copies are measured the same way: batches of copies, one interval each.
template <typename Copy>
void time_copies(benchmark::State& state, const std::vector<c10::Device>& devices, HostWaits waits,
                 const Copy& copy, std::int64_t bytes, SizeState& size_state) {
  const auto timer = make_batch_timer(devices, waits);
  if (size_state.batch == 0) size_state.batch = calibrate_batch(*timer, copy);
  time_batches(state, *timer, size_state.batch, copy);
  state.SetBytesProcessed(state.iterations() * bytes);
}

enum class Timing { kBatched, kPerCall };

// Bandwidth (batched) or latency (one synchronised copy per interval: what a
// single copy costs a caller, not what a stream of them does) of `bytes`.
void run_transfer(benchmark::State& state, const Transfer& t, SeriesState& series,
                  std::int64_t bytes, Timing timing) {
  auto& b = buffers_for(series, bytes, [&](Buffers& fresh) {
    fresh.src = source_for(t, fresh.pattern);
    fresh.dst = destination_for(t, bytes);
  });
  const auto& pattern = b.pattern;
  const auto& src = b.src;
  auto& dst = b.dst;
  const auto copy = [&] {
    if (t.clone) {
      dst = src.clone();
    } else {
      dst.copy_(src, /*non_blocking=*/t.pinned_host);
    }
  };

  // One untimed copy in every run: the first copy into new memory pays for
  // faulting its pages in (a 256 MiB destination: ~8x the copy itself on a
  // VM), and a clone's result is new memory in every call.
  copy();
  for (const auto& device : t.devices()) compat::synchronize(device);
  const auto& problem = verdict(series, bytes, [&]() -> std::optional<std::string> {
    if (at::equal(dst.to(kHost), pattern)) return std::nullopt;
    return t.name() + " " + std::to_string(bytes) + " bytes: destination differs from source";
  });
  if (problem) return fail_verification(state, *problem);

  if (timing == Timing::kPerCall) return time_each_call(state, t.devices(), copy);
  time_copies(state, t.devices(), t.waits(), copy, bytes, series.sizes[bytes]);
}

// The physical reference: std::memcpy between two host buffers already
// faulted in.
void run_memcpy(benchmark::State& state, SeriesState& series) {
  const auto bytes = state.range(0);
  auto& b = buffers_for(series, bytes, [&](Buffers& fresh) {
    fresh.src = fresh.pattern;
    fresh.dst = at::empty({bytes}, at::kByte);
  });
  auto* dst = b.dst.data_ptr<std::uint8_t>();
  const auto* src = b.src.data_ptr<std::uint8_t>();
  const auto copy = [&] {
    std::memcpy(dst, src, static_cast<size_t>(bytes));
    benchmark::ClobberMemory();
  };
  copy();  // untimed, as in run_transfer
  const auto& problem = verdict(series, bytes, [&]() -> std::optional<std::string> {
    if (at::equal(b.dst, b.src)) return std::nullopt;
    return "memcpy " + std::to_string(bytes) + " bytes differs";
  });
  if (problem) return fail_verification(state, *problem);

  time_copies(state, {kHost}, HostWaits::kNever, copy, bytes, series.sizes[bytes]);
}

void add_series(const std::string& name, const std::string& device,
                const std::vector<std::int64_t>& byte_sizes,
                std::function<void(benchmark::State&, SeriesState&)> body) {
  auto states = std::make_shared<SeriesState>();
  auto* b = benchmark::RegisterBenchmark(name.c_str(), [body, states, device](benchmark::State& state) {
    guard_device_errors(state, device, [&] { body(state, *states); });
  });
  for (const auto bytes : byte_sizes) b->Arg(bytes);
  configure(b);
}

void add_transfer(const Transfer& t, const Settings& settings) {
  const auto device = t.where();
  add_series("transfer/" + t.name(), device, sizes(settings),
             [t](benchmark::State& state, SeriesState& series) {
               run_transfer(state, t, series, state.range(0), Timing::kBatched);
             });
  if (t.clone || t.pinned_host || t.pattern == "d2d_peer") return;  // latency: the plain copies
  add_series("latency/" + t.name(), device, {kLatencyBytes},
             [t](benchmark::State& state, SeriesState& series) {
               run_transfer(state, t, series, kLatencyBytes, Timing::kPerCall);
             });
}

void register_transfers(const Settings& settings) {
  add_series("transfer/memcpy/cpu", "cpu", sizes(settings), run_memcpy);

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
    // A device-wide synchronise on its own (the latency series wait for the
    // copy's stream only): on a backend that walks every pool stream it
    // costs far more than a small copy, and must not be read as one.
    add_series("sync/device/" + d.str(), d.str(), {0},
               [d](benchmark::State& state, SeriesState&) { time_device_synchronize(state, d); });
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
