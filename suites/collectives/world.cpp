#include "world.h"

#include "tdc/compat/remove_tree.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

extern char** environ;

namespace tdc::collectives {

namespace {

constexpr auto kDeadline = std::chrono::seconds(kWorldDeadlineSeconds);
using Clock = std::chrono::steady_clock;

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

std::vector<RankOutcome> run_world(const std::string& rank_program, int type, const std::string& candidates,
                                   const std::string& device_libraries, int world, bool smoke, std::string* error) {
  char tmpl[] = "/tmp/tdc-collectives-XXXXXX";
  if (mkdtemp(tmpl) == nullptr) {
    *error = std::string("cannot make the ranks' rendezvous folder under /tmp: ") + std::strerror(errno) +
             " (the host, not the backend)";
    return {};
  }
  const std::filesystem::path dir = tmpl;
  const std::string store = (dir / "store").string();
  // The ranks' own temporary files (the loopback's exchange) live and die here.
  std::vector<std::string> env_strings{"TMPDIR=" + dir.string()};
  for (char** e = environ; *e; ++e) {
    if (std::strncmp(*e, "TMPDIR=", 7) != 0) env_strings.emplace_back(*e);
  }
  std::vector<char*> envp;
  for (auto& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);

  std::vector<RankOutcome> ranks(world);
  std::vector<pid_t> pids(world, -1);
  for (int r = 0; r < world; ++r) {
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    const std::string out = (dir / ("rank" + std::to_string(r) + ".out")).string();
    posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    std::vector<std::string> args{rank_program, std::to_string(r), std::to_string(world), store,
                                  std::to_string(kBackendTimeoutMs), std::to_string(type), candidates,
                                  device_libraries};
    if (smoke) args.emplace_back("--smoke");
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const int rc = posix_spawn(&pids[r], argv[0], &fa, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
      for (int k = 0; k < r; ++k) {
        kill(pids[k], SIGKILL);
        waitpid(pids[k], nullptr, 0);
      }
      compat::remove_tree(dir.string());
      *error = "cannot start rank " + std::to_string(r) + " (" + argv[0] + "): " + std::strerror(rc) +
               " (the host, not the backend)";
      return {};
    }
    ranks[r].pid = pids[r];
  }
  const auto start = Clock::now();
  auto first_exit = Clock::time_point::max();
  int running = world;
  while (running > 0) {
    for (int r = 0; r < world; ++r) {
      if (ranks[r].status == -1 && waitpid(pids[r], &ranks[r].status, WNOHANG) == pids[r]) {
        --running;
        if (first_exit == Clock::time_point::max()) first_exit = Clock::now();
      }
    }
    const auto now = Clock::now();
    const bool grace_over = first_exit != Clock::time_point::max() &&
                            now - first_exit > std::chrono::milliseconds(kBackendTimeoutMs + 2000);
    if (running > 0 && (grace_over || now - start > kDeadline)) {
      for (int r = 0; r < world; ++r) {
        if (ranks[r].status == -1) {
          ranks[r].hung = true;
          ranks[r].past_deadline = !grace_over;
          kill(pids[r], SIGKILL);
          waitpid(pids[r], &ranks[r].status, 0);
          --running;
        }
      }
    }
    if (running > 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  for (int r = 0; r < world; ++r) ranks[r].output = slurp(dir / ("rank" + std::to_string(r) + ".out"));
  compat::remove_tree(dir.string());
  return ranks;
}

}  // namespace tdc::collectives
