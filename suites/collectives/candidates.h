#pragma once
// Which c10d backends may serve a device type, in the order they are tried
// (backend_choice.cpp takes the first that accepts): the plugins named first
// (a program's own flag, then TDC_C10D_BACKEND_LIBS), then TDC's own for the
// type: gloo (cpu), the loopback's c10d library beside a loaded
// libtdc_loopback.so (PrivateUse1), "nccl" (cuda: ProcessGroupNCCL where
// the build has it, else a skip naming what is missing). The suite (world_results.cpp) and tdc_bench_collectives both
// ask here, so they agree. ':'-separated, the rank program's argument.
#include <c10/core/DeviceType.h>

#include <string>
#include <vector>

namespace tdc::collectives {

std::string c10d_candidates(c10::DeviceType type, const std::vector<std::string>& named_first,
                            const std::vector<std::string>& device_backend_libraries);

}  // namespace tdc::collectives
