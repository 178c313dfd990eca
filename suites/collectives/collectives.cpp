// Collectives on cpu through c10d's gloo backend, world size 2. The check
// starts one tdc_collective_rank process per rank (posix_spawn, never fork
// after torch threads exist), rendezvous through a c10d::FileStore in a fresh
// temp folder, waits with a deadline and kills what is left by PID. Every
// collective's #wrong (elements differing from the host reference) must be 0.
// A rank that has not finished once its peer has exited and gloo's timeout
// has passed is named as hung, with the collective its peer was in.
#include <gtest/gtest.h>

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
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace {

constexpr int kWorld = 2;
constexpr int kGlooTimeoutMs = 5000;
// The whole run's deadline; generous, a verdict never depends on speed.
constexpr auto kDeadline = std::chrono::seconds(300);

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(Collectives, GlooWorld2EveryElementMatchesHostReference) {
  char tmpl[] = "/tmp/tdc-collectives-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr) << "cannot make the ranks' rendezvous folder under /tmp: "
                                     << std::strerror(errno) << " (the host, not the backend)";
  const std::filesystem::path dir = tmpl;
  const std::string store = (dir / "store").string();
  std::vector<pid_t> pids(kWorld, -1);
  for (int r = 0; r < kWorld; ++r) {
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    const std::string out = (dir / ("rank" + std::to_string(r) + ".out")).string();
    posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    std::vector<std::string> args{TDC_COLLECTIVE_RANK, std::to_string(r), std::to_string(kWorld), store,
                                  std::to_string(kGlooTimeoutMs)};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ASSERT_EQ(posix_spawn(&pids[r], argv[0], &fa, nullptr, argv.data(), environ), 0)
        << "cannot start rank " << r << " (" << argv[0] << "): the host, not the backend";
    posix_spawn_file_actions_destroy(&fa);
  }
  std::vector<int> status(kWorld, -1);
  std::vector<bool> hung(kWorld, false);
  const auto start = std::chrono::steady_clock::now();
  auto first_exit = std::chrono::steady_clock::time_point::max();
  int running = kWorld;
  while (running > 0) {
    for (int r = 0; r < kWorld; ++r) {
      if (pids[r] > 0 && status[r] == -1 && waitpid(pids[r], &status[r], WNOHANG) == pids[r]) {
        --running;
        if (first_exit == std::chrono::steady_clock::time_point::max()) first_exit = std::chrono::steady_clock::now();
      }
    }
    const auto now = std::chrono::steady_clock::now();
    const bool grace_over = first_exit != std::chrono::steady_clock::time_point::max() &&
                            now - first_exit > std::chrono::milliseconds(kGlooTimeoutMs + 2000);
    if (running > 0 && (grace_over || now - start > kDeadline)) {
      for (int r = 0; r < kWorld; ++r) {
        if (status[r] == -1) {
          hung[r] = true;
          kill(pids[r], SIGKILL);
          waitpid(pids[r], &status[r], 0);
          --running;
        }
      }
    }
    if (running > 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::vector<std::string> outs;
  for (int r = 0; r < kWorld; ++r) outs.push_back(slurp(dir / ("rank" + std::to_string(r) + ".out")));
  for (int r = 0; r < kWorld; ++r) {
    // Report each rank's lines; a non-zero #wrong names the collective.
    std::istringstream lines(outs[r]);
    std::string line;
    int results = 0;
    while (std::getline(lines, line)) {
      if (line.rfind("RESULT ", 0) == 0) {
        ++results;
        EXPECT_NE(line.find(" wrong=0 "), std::string::npos) << "collective check failed: " << line;
      } else if (line.rfind("ERROR ", 0) == 0) {
        ADD_FAILURE() << line;
      } else if (line.rfind("SKIP ", 0) == 0 && r == 0) {
        std::printf("%s\n", line.c_str());
      }
    }
    if (hung[r]) {
      std::string where = "an unknown collective";
      for (int p = 0; p < kWorld; ++p) {
        auto at = outs[p].find("ERROR rank=" + std::to_string(p) + " in ");
        if (p != r && at != std::string::npos) {
          auto from = at + std::string("ERROR rank=X in ").size();
          where = outs[p].substr(from, outs[p].find(':', from) - from);
        }
      }
      ADD_FAILURE() << "rank " << r << " hung in " << where << ": killed (pid " << pids[r]
                    << ") after its peer exited and gloo's " << kGlooTimeoutMs << " ms timeout passed";
    } else {
      EXPECT_TRUE(WIFEXITED(status[r]) && WEXITSTATUS(status[r]) == 0)
          << "rank " << r << " exited with status " << status[r] << "\n" << outs[r];
    }
    EXPECT_GT(results, 0) << "rank " << r << " reported no collective: it checked nothing";
  }
  // Every rank was reaped (waitpid above): none is left running.
  for (int r = 0; r < kWorld; ++r) {
    EXPECT_EQ(kill(pids[r], 0), -1) << "rank " << r << " (pid " << pids[r] << ") still exists";
  }
  std::printf("all %d rank processes reaped\n", kWorld);
  std::filesystem::remove_all(dir);
}

}  // namespace
