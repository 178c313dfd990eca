#include "collective_world.h"

#include "tdc/text.h"

#include <torch/csrc/distributed/c10d/FileStore.hpp>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace tdc::bench::collectives {
namespace {

using WorldClock = std::chrono::steady_clock;

// How long the followers of a sound world get to leave after 'done'
// (releasing their backend included), and those of a broken one, which may
// sit in a collective that will never complete.
constexpr auto kLeaveDeadline = std::chrono::seconds(60);
constexpr auto kBrokenLeaveDeadline = std::chrono::seconds(2);
constexpr auto kPoll = std::chrono::milliseconds(20);

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The line of `output` starting with `prefix`, else its first line.
std::string line_starting(const std::string& output, const std::string& prefix) {
  std::istringstream lines(output);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind(prefix, 0) == 0) return line;
  }
  return first_line(output);
}

std::string describe_status(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "was killed by signal " + std::to_string(WTERMSIG(status));
  return "ended with wait status " + std::to_string(status);
}

std::string self_executable() {
  std::error_code ec;
  const auto path = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw std::runtime_error("cannot find this program (/proc/self/exe) to start its ranks: " + ec.message());
  return path.string();
}

}  // namespace

std::string make_session_folder() {
  const char* base = std::getenv("TMPDIR");
  std::string tmpl = std::string(base && *base ? base : "/tmp") + "/tdc-bench-collectives-XXXXXX";
  if (mkdtemp(tmpl.data()) == nullptr) {
    throw std::runtime_error("cannot make the ranks' folder " + tmpl + ": " + std::strerror(errno));
  }
  if (setenv("TMPDIR", tmpl.c_str(), 1) != 0) {
    throw std::runtime_error("cannot set TMPDIR: " + std::string(std::strerror(errno)));
  }
  return tmpl;
}

World::World(c10::DeviceType type, int size)
    : type_(type), type_name_(c10::DeviceTypeName(type, /*lower_case=*/true)), size_(size),
      pids_(size, -1), statuses_(size, -1) {
  self_.rank = 0;
  self_.world = size;
  self_.device = type == c10::DeviceType::CPU ? c10::Device(type) : c10::Device(type, 0);
}

void World::start(const std::string& candidates, const std::vector<std::string>& device_libraries) {
  const char* tmp = std::getenv("TMPDIR");  // the session folder (make_session_folder)
  folder_ = (std::filesystem::path(tmp ? tmp : "/tmp") / type_name_).string();
  std::filesystem::create_directories(folder_);
  const std::string store_path = folder_ + "/store";
  self_.store = c10::make_intrusive<::c10d::FileStore>(store_path, size_);
  started_ = true;

  const std::string program = self_executable();
  for (int r = 1; r < size_; ++r) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    const std::string out = folder_ + "/rank" + std::to_string(r) + ".out";
    posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    std::vector<std::string> args{program,
                                  kFollowerFlag,
                                  std::to_string(r),
                                  std::to_string(size_),
                                  store_path,
                                  std::to_string(kBackendTimeout.count()),
                                  std::to_string(static_cast<int>(type_)),
                                  candidates,
                                  tdc::collectives::join_libraries(device_libraries)};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const int rc = posix_spawn(&pids_[r], program.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) {
      pids_[r] = -1;
      kill_followers();
      throw std::runtime_error("cannot start rank " + std::to_string(r) + " (" + program + "): " + std::strerror(rc));
    }
  }

  // Rank 0 joins on a thread of its own: a follower that fails to join
  // (exits) is seen at once, not after the backend's rendezvous timeout.
  // Such a thread is left behind, blocked until that timeout.
  auto promise = std::make_shared<std::promise<::tdc::collectives::OpenedBackend>>();
  auto opened = promise->get_future();
  std::thread([promise, candidates, device = self_.device, store = self_.store, size = size_] {
    try {
      promise->set_value(::tdc::collectives::open_backend(candidates, device, store, 0, size, kBackendTimeout));
    } catch (...) {
      promise->set_exception(std::current_exception());
    }
  }).detach();
  while (opened.wait_for(kPoll) != std::future_status::ready) {
    for (int r = 1; r < size_; ++r) {
      if (!reap(r, false)) continue;
      const std::string said = line_starting(read_text(folder_ + "/rank" + std::to_string(r) + ".out"), "ERROR");
      kill_followers();
      // A follower's SKIP is the leader's: both asked the same candidates.
      if (said.rfind("SKIP: ", 0) == 0) throw std::runtime_error(said);
      throw std::runtime_error("rank " + std::to_string(r) + " " + describe_status(statuses_[r]) +
                               " while joining: " + (said.empty() ? "it said nothing" : said));
    }
  }
  try {
    auto backend = opened.get();
    self_.backend = backend.backend;
    undeclared_ = backend.undeclared;
  } catch (const c10::Error& e) {
    kill_followers();
    throw std::runtime_error(first_line(e.what_without_backtrace()));
  } catch (const std::exception& e) {
    kill_followers();
    throw std::runtime_error(first_line(e.what()));
  }
}

std::string World::backend_name() const { return self_.backend ? self_.backend->getBackendName() : "none"; }

std::optional<std::string> World::undeclared(const std::string& capability) const {
  if (!undeclared_) return std::nullopt;
  if (auto why = undeclared_("every_collective", at::kFloat)) return why;
  return undeclared_(capability, at::kFloat);
}

double World::run(const Command& command) {
  if (!broken_.empty()) throw std::runtime_error(broken_);
  const std::int64_t seq = next_seq_++;
  try {
    const std::string text = command.text();
    self_.store->set(command_key(seq), std::vector<uint8_t>(text.begin(), text.end()));
    return execute(self_, command, seq);
  } catch (const c10::Error& e) {
    fail(e.what_without_backtrace());
  } catch (const std::exception& e) {
    fail(e.what());
  }
}

std::int64_t World::verify(Op op, std::int64_t elements) {
  Command command;
  command.kind = Command::Kind::kVerify;
  command.op = op;
  command.elements = elements;
  command.count = 1;
  run(command);
  // Every rank added its count before the barrier that ended the command.
  return self_.store->add(wrong_key(next_seq_ - 1), 0);
}

void World::fail(const std::string& what) {
  // A follower that failed first may still be writing why: give it a moment.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  broken_ = "the " + std::to_string(size_) + "-rank world of " + backend_name() + " broke: rank 0: " +
            first_line(what) + followers_said();
  throw std::runtime_error(broken_);
}

std::string World::followers_said() {
  std::string said;
  for (int r = 1; r < size_; ++r) {
    const std::string output = read_text(folder_ + "/rank" + std::to_string(r) + ".out");
    const std::string error = output.find("ERROR") == std::string::npos ? "" : line_starting(output, "ERROR");
    const bool exited = reap(r, false);
    if (error.empty() && !exited) continue;
    said += "; rank " + std::to_string(r) + ": " + (error.empty() ? describe_status(statuses_[r]) : error);
  }
  return said;
}

bool World::reap(int r, bool block) {
  if (pids_[r] <= 0) return true;
  if (statuses_[r] != -1) return true;
  int status = 0;
  const pid_t got = waitpid(pids_[r], &status, block ? 0 : WNOHANG);
  if (got != pids_[r]) return false;
  statuses_[r] = status;
  return true;
}

void World::kill_followers() {
  for (int r = 1; r < size_; ++r) {
    if (pids_[r] <= 0 || reap(r, false)) continue;
    kill(pids_[r], SIGKILL);
    reap(r, true);
  }
}

std::vector<std::string> World::finish() {
  std::vector<std::string> problems;
  if (!started_) return problems;
  try {
    const std::string done = Command().text();
    self_.store->set(command_key(next_seq_++), std::vector<uint8_t>(done.begin(), done.end()));
  } catch (const std::exception& e) {
    problems.push_back("cannot tell the ranks to leave: " + first_line(e.what()));
  }
  const auto deadline = WorldClock::now() + (broken_.empty() ? kLeaveDeadline : kBrokenLeaveDeadline);
  for (int r = 1; r < size_; ++r) {
    while (!reap(r, false) && WorldClock::now() < deadline) std::this_thread::sleep_for(kPoll);
    if (reap(r, false)) continue;
    kill(pids_[r], SIGKILL);
    reap(r, true);
    if (broken_.empty()) {
      problems.push_back("rank " + std::to_string(r) + " (pid " + std::to_string(pids_[r]) +
                         ") had not left " + std::to_string(kLeaveDeadline.count()) + " s after 'done': killed");
    }
  }
  for (int r = 1; r < size_ && broken_.empty(); ++r) {
    const int status = statuses_[r];
    if (pids_[r] <= 0 || (WIFEXITED(status) && WEXITSTATUS(status) == 0)) continue;
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) continue;  // named above
    problems.push_back("rank " + std::to_string(r) + " " + describe_status(status) + ": " +
                       line_starting(read_text(folder_ + "/rank" + std::to_string(r) + ".out"), "ERROR"));
  }
  // Rank 0's tensors and backend go before the process does (a device
  // tensor must not outlive its backend at exit); a broken world's backend
  // may still be in a collective, and is left to the exit.
  self_.buffers = Buffers{};
  if (broken_.empty()) self_.backend.reset();
  return problems;
}

}  // namespace tdc::bench::collectives
