#include "world_results.h"

#include "backends.h"
#include "candidates.h"
#include "world.h"

#include "tdc/discovery.h"
#include "tdc/run_config.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>
#include <utility>

namespace tdc::collectives {

namespace {

// The collective rank `p` was in when it failed ("ERROR rank=p in <what>: ...").
std::string failed_in(const std::string& output, int p) {
  const std::string marker = "ERROR rank=" + std::to_string(p) + " in ";
  const auto at = output.find(marker);
  if (at == std::string::npos) return "";
  const auto from = at + marker.size();
  return output.substr(from, output.find(':', from) - from);
}

// Where a rank killed at the deadline had got to: its last RESULT line.
std::string last_result(const std::string& output) {
  const auto at = output.rfind("RESULT ");
  if (at == std::string::npos) return "it printed no result";
  std::istringstream line(output.substr(at + 7, output.find('\n', at) - at - 7));
  std::string name, dtype, n;
  line >> name >> dtype >> n;
  return "its last result: " + name + " " + dtype + " " + n;
}

// The folder of this program: the rank program is installed beside it.
std::string own_folder() {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(".") : self.parent_path().string();
}

WorldResults judge(const std::vector<RankOutcome>& ranks) {
  WorldResults w;
  w.world = static_cast<int>(ranks.size());
  for (int r = 0; r < w.world; ++r) {
    const auto& rank = ranks[r];
    if (WIFEXITED(rank.status) && WEXITSTATUS(rank.status) == 77 && r == 0) {
      w.skip = rank.output.substr(0, rank.output.find('\n'));
      if (w.skip.rfind("SKIP: ", 0) == 0) w.skip = w.skip.substr(6);
    }
    std::istringstream lines(rank.output);
    std::string line;
    int results = 0;
    while (std::getline(lines, line)) {
      if (line.rfind("RESULT ", 0) == 0) {
        ++results;
        std::istringstream fields(line.substr(7));
        ResultLine result;
        fields >> result.collective;
        const auto at = line.find(" wrong=");
        result.wrong = at == std::string::npos ? -1 : std::stoll(line.substr(at + 7));
        result.text = line.substr(7);
        w.results.push_back(std::move(result));
      } else if (line.rfind("BACKEND ", 0) == 0 && r == 0) {
        w.backend = line.substr(8);
      } else if (line.rfind("SKIP ", 0) == 0 && r == 0) {
        w.skips.push_back(line.substr(5));
      } else if (line.rfind("ERROR ", 0) == 0) {
        w.problems.push_back(line);
      }
    }
    if (rank.hung) {
      std::string where = "an unknown collective";
      for (int p = 0; p < w.world; ++p) {
        if (p != r && !failed_in(ranks[p].output, p).empty()) where = failed_in(ranks[p].output, p);
      }
      const std::string why = rank.past_deadline
                                  ? " when the world's " + std::to_string(kWorldDeadlineSeconds) +
                                        " s deadline passed with every rank still running (" + last_result(rank.output) +
                                        ")"
                                  : " after its peer exited and the backend's " + std::to_string(kBackendTimeoutMs) +
                                        " ms timeout passed";
      w.problems.push_back("rank " + std::to_string(r) + " hung in " + where + ": killed (pid " +
                           std::to_string(rank.pid) + ")" + why);
    } else if (!(WIFEXITED(rank.status) && (WEXITSTATUS(rank.status) == 0 || WEXITSTATUS(rank.status) == 1 ||
                                             (WEXITSTATUS(rank.status) == 77 && !w.skip.empty())))) {
      // 1 is "some collective was wrong", which the RESULT lines say.
      w.problems.push_back("rank " + std::to_string(r) + " exited with status " + std::to_string(rank.status) +
                           ": " + rank.output.substr(0, 2000));
    }
    if (results == 0 && w.skip.empty() && !rank.hung) {
      w.problems.push_back("rank " + std::to_string(r) + " reported no collective: it checked nothing");
    }
  }
  // Every rank was reaped (waitpid in run_world): none may be left running.
  for (const auto& rank : ranks) {
    if (kill(static_cast<pid_t>(rank.pid), 0) == 0) w.problems.push_back("pid " + std::to_string(rank.pid) + " still exists");
  }
  return w;
}

}  // namespace


const WorldResults& world_results(const c10::Device& device, bool smoke) {
  static std::map<std::pair<int, bool>, WorldResults> cache;
  const auto key = std::make_pair(static_cast<int>(device.type()), smoke);
  auto found = cache.find(key);
  if (found != cache.end()) return found->second;
  WorldResults w;
  // cpu: two ranks on the one cpu. An accelerator: one rank per device (NCCL
  // refuses two ranks on one GPU), so a host with one device runs a world of
  // one, which checks the backend's own path and every element but not the
  // exchange between ranks (CollectivesTest says so in the results).
  const int world = device.is_cpu() ? 2 : host_devices().count(device.type());
  if (world < 1) {
    w.skip = "this host has no " + std::string(c10::DeviceTypeName(device.type(), true)) + " device";
  } else {
    std::string error;
    // The device backends this run loaded (--backend-lib=, TDC_BACKEND_LIBS): the ranks load them too.
    const auto& libraries = run_config().backend_libraries;
    const auto ranks = run_world(own_folder() + "/tdc_collective_rank", static_cast<int>(device.type()),
                                 c10d_candidates(device.type(), {}, libraries), join_libraries(libraries), world,
                                 smoke, &error);
    if (!error.empty()) {
      w.world = world;
      w.problems.push_back(error);
    } else {
      w = judge(ranks);
    }
  }
  return cache.emplace(key, std::move(w)).first->second;
}

}  // namespace tdc::collectives
