// The current device belongs to the thread (PyTorch guard.md, like CUDA's
// cudaSetDevice): two threads that each make a different index current
// both still see their own once the other has switched.
#include <c10/core/DeviceGuard.h>

#include <thread>

#include "guard_fixtures.h"
#include "tdc/rendezvous.h"

namespace {

using GuardPerThread = tdc::guard::GuardPairTest;
using tdc::guard::current_device;

// Both threads set their device, wait until the other has set its own,
// read theirs, and hold their guard until both have read: whichever order
// the switches happened in, a process-wide current device shows one of
// them the other's index.
TEST_P(GuardPerThread, AnotherThreadsDeviceDoesNotMoveThisOne) {
  const auto type = device().type();
  tdc::TwoThreadRendezvous both_set, both_read;
  std::optional<c10::Device> seen_by_other_thread;
  std::thread other([&] {
    c10::DeviceGuard guard(other_device());
    both_set.arrive_and_wait();
    seen_by_other_thread = current_device(type);
    both_read.arrive_and_wait();
  });
  {
    c10::DeviceGuard guard(device());
    both_set.arrive_and_wait();
    const auto seen = current_device(type);
    both_read.arrive_and_wait();
    EXPECT_EQ(seen, device()) << "this thread's device after another thread set " << other_device();
  }
  other.join();
  ASSERT_TRUE(seen_by_other_thread.has_value())
      << "the other thread never reported its current device: it ended before reading it";
  EXPECT_EQ(*seen_by_other_thread, other_device())
      << "the other thread's device after this thread set " << device();
}

TDC_INSTANTIATE_DEVICE_TEST_SUITE(GuardPerThread);

}  // namespace
