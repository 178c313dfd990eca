#pragma once
// What worker threads found, reported by the test thread: a thread records
// its first problem and counts the rest, and an exception that leaves a
// thread's work is a problem too, never a crash of the test program.
#include <gtest/gtest.h>

#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace tdc::concurrency {

class ThreadProblems {
 public:
  void add(int thread, const std::string& problem) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto& entry = by_thread_[thread];
    if (entry.count++ == 0) entry.first = problem;
  }

  ::testing::AssertionResult none() const {
    std::lock_guard<std::mutex> lock(mutex_);
    if (by_thread_.empty()) return ::testing::AssertionSuccess();
    std::ostringstream report;
    report << by_thread_.size() << " thread(s) saw problems:";
    for (const auto& [thread, entry] : by_thread_) {
      report << "\n  thread " << thread << ": " << entry.first;
      if (entry.count > 1) report << " (and " << entry.count - 1 << " more)";
    }
    return ::testing::AssertionFailure() << report.str();
  }

 private:
  struct Entry {
    int count = 0;
    std::string first;
  };
  mutable std::mutex mutex_;
  std::map<int, Entry> by_thread_;
};

// Runs work(thread) on `threads` threads at once and joins them all.
inline void run_threads(int threads, ThreadProblems& problems, const std::function<void(int)>& work) {
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      try {
        work(t);
      } catch (const std::exception& error) {
        problems.add(t, std::string("threw: ") + error.what());
      }
    });
  }
  for (auto& worker : workers) worker.join();
}

}  // namespace tdc::concurrency
