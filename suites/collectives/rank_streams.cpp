// Stream semantics of one rank (issue 31), on a device type with streams:
// a collective's work waits for what the caller's current stream queued
// before it, and wait() leaves the result visible to that stream. Checked on
// the device's default stream ("stream_current") and on a side stream from
// the pool made current ("stream_side"), which the default stream does not
// order: a backend that reads its input on its own or the default stream
// without waiting for the caller's reads it unproduced. The input is
// produced on the stream under test by a non_blocking host-to-device copy
// queued just before the allreduce (a kernel would do as well on a GPU; the
// loopback runs its kernels on the host at once, but queues such copies),
// with no synchronisation, and read back on the same stream after wait().
// cpu has no streams: nothing to check there.
#include "rank.h"
#include "rank_report.h"
#include "rank_values.h"

#include <c10/core/StreamGuard.h>
#include <c10/core/impl/VirtualGuardImpl.h>

#include <vector>

namespace tdc::collectives {

int run_stream_semantics(Rank& self) {
  if (self.device.is_cpu()) return 0;
  constexpr int64_t n = 1000;
  int failures = 0;
  const c10::impl::VirtualGuardImpl impl(self.device.type());
  for (const bool side : {false, true}) {
    const std::string name = side ? "stream_side" : "stream_current";
    if (auto why = self.undeclared(name, at::kFloat)) {
      skip(name, at::kFloat, *why);
      continue;
    }
    const c10::Stream stream =
        side ? impl.getStreamFromGlobalPool(self.device, /*isHighPriority=*/false) : impl.getDefaultStream(self.device);
    const c10::StreamGuard on_stream(stream);
    self.enter(name, at::kFloat, n);
    const at::Tensor produced = (contribution(self.rank, self.world, n, at::kFloat) + 1.0).to(at::kFloat);
    std::vector<at::Tensor> t{at::zeros({n}, self.options(at::kFloat))};
    t[0].copy_(produced, /*non_blocking=*/true);  // queued on `stream`: the collective must wait for it
    self.pg->allreduce(t)->wait();
    at::Tensor want = at::zeros({n}, at::kDouble);
    for (int r = 0; r < self.world; ++r) want += contribution(r, self.world, n, at::kFloat) + 1.0;
    failures += report(self, name, at::kFloat, n, t[0].to(at::kCPU), want);
  }
  return failures;
}

}  // namespace tdc::collectives
