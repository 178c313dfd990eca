// A fresh process (fork, then exec) runs the seed forward on the device while
// this process holds memory on it: what a launcher's second job step, a
// spawned data-loader worker or a second framework process does. Unlike a
// forked child, a spawned one inherits no device state, so it must work; a
// device that serves one process at a time (CUDA's EXCLUSIVE_PROCESS compute
// mode) fails here, naming the child's error.
#include "tdc/fixtures.h"
#include "tdc/isolated_child.h"
#include "tdc/run_config.h"

#include <ATen/ATen.h>
#include <unistd.h>

#include <climits>
#include <string>
#include <vector>

extern char** environ;

namespace {

using SpawnedChild = tdc::DeviceTest;

// The child is told its device and libraries by flags; the run's own
// selection, libraries and expectations would contradict them.
std::vector<std::string> child_environment() {
  std::vector<std::string> kept;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string text = *entry;
    const auto name = text.substr(0, text.find('='));
    if (name != "TDC_BACKEND_LIBS" && name != "TDC_DEVICES" && name != "TDC_EXPECT") kept.push_back(text);
  }
  return kept;
}

// TDC_SEED_CHILD beside this program: a build's bin/ and an installed
// TDC's libexec/tdc/ hold both, so no build path is compiled in.
std::string seed_child() {
  char self[PATH_MAX];
  const auto length = readlink("/proc/self/exe", self, sizeof self - 1);
  const std::string path = length > 0 ? std::string(self, static_cast<std::size_t>(length)) : "";
  return path.substr(0, path.rfind('/') + 1) + TDC_SEED_CHILD;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& line : lines) text += (text.empty() ? "" : " | ") + line;
  return text.empty() ? "(no output)" : text;
}

TEST_P(SpawnedChild, RunsTheSeedForwardWhileThisProcessHoldsTheDevice) {
  constexpr std::int64_t kHeld = 1 << 20;
  const auto held = at::ones({kHeld}, at::TensorOptions().device(device()));
  ASSERT_EQ(held.sum().item<double>(), double(kHeld)) << "this process's own use of " << device();

  std::vector<std::string> argv = {seed_child(), "--devices=" + device().str()};
  for (const auto& library : tdc::run_config().backend_libraries) argv.push_back("--backend-lib=" + library);
  const auto outcome = tdc::run_program(argv, child_environment(), tdc::backend_timeout_seconds());

  ASSERT_TRUE(outcome.finished) << "tdc_seed_child on " << device() << ": " << outcome.failure << "; "
                                << joined(outcome.lines);
  // One verdict for the child, its own words once: a child that names a
  // prerequisite (Module::to failing) is that line, not three expectations
  // around it.
  if (outcome.exit_status != 0 || outcome.lines != std::vector<std::string>{"right"}) {
    ADD_FAILURE() << (outcome.lines.size() == 1 && outcome.lines[0].rfind("prerequisite failed: ", 0) == 0
                          ? outcome.lines[0]
                          : "a process spawned while this one holds " + device().str() + " exited " +
                                std::to_string(outcome.exit_status) + ": " + joined(outcome.lines));
  }
  EXPECT_EQ(held.sum().item<double>(), double(kHeld)) << device() << " in this process after the child ran";
}

TDC_INSTANTIATE_DEVICE_TEST_SUITE(SpawnedChild);

}  // namespace
