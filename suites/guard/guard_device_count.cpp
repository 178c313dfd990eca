// The device count is a property of the host, not of the caller: the same
// on every call and every thread, and the number discovery found.
#include <thread>
#include <vector>

#include "guard_fixtures.h"
#include "tdc/discovery.h"

namespace {

using GuardDeviceCount = tdc::guard::GuardTest;

constexpr int kThreads = 4;
constexpr int kCallsPerThread = 3;

TEST_P(GuardDeviceCount, SameAcrossCallsAndThreads) {
  const int discovered = tdc::host_devices().count(device().type());
  std::vector<std::vector<int>> counts(kThreads + 1);
  const auto ask = [&](std::vector<int>& into) {
    for (int call = 0; call < kCallsPerThread; ++call) into.push_back(impl().deviceCount());
  };
  std::vector<std::thread> threads;
  for (int t = 1; t <= kThreads; ++t) threads.emplace_back(ask, std::ref(counts[t]));
  ask(counts[0]);
  for (auto& thread : threads) thread.join();
  for (int t = 0; t <= kThreads; ++t) {
    for (const int count : counts[t]) {
      EXPECT_EQ(count, discovered) << (t == 0 ? "test thread" : "worker thread " + std::to_string(t))
                                   << ": deviceCount() disagrees with discovery";
    }
  }
}

TDC_INSTANTIATE_DEVICE_TEST_SUITE(GuardDeviceCount);

}  // namespace
