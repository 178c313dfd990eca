#include "collectives_fixture.h"

#include "tdc/prerequisite.h"

#include <cstdio>
#include <regex>

namespace tdc::collectives {

std::string family_of(const std::string& collective) {
  static const std::regex suffix(
      "^(allreduce)_[a-z]+$|^(reduce|broadcast)_root[0-9]+$|^(sendrecv)_[0-9]+to[0-9]+$|^(stream)_(current|side)$");
  std::smatch m;
  if (!std::regex_match(collective, m, suffix)) return collective;
  for (size_t i = 1; i < m.size(); ++i) {
    if (m[i].matched) return m[i].str();
  }
  return collective;
}

void CollectivesTest::SetUp() {
  DeviceTest::SetUp();
  if (stopped()) return;
  const std::string type = c10::DeviceTypeName(device().type(), /*lower_case=*/true);
  if (device().has_index() && device().index() != 0) {
    GTEST_SKIP() << "the collectives of " << type << " run once per device type, from " << type
                 << ":0, whose ranks take every index";
  }
  const auto& w = world();
  if (!w.skip.empty()) GTEST_SKIP() << w.skip;
  RecordProperty("c10d_backend", w.backend);
  RecordProperty("world_size", w.world);
  if (w.world == 1) {
    // Passing here proves the backend's path and every element, not what
    // crosses between ranks: the results say so.
    note_unobserved("what crosses between ranks, and whether the work ran at all (one rank's every result is "
                    "its input, which a reused buffer may already hold): this host has one " + type +
                    " device, so the world is one rank");
  }
}

void CollectivesTest::note_unobserved(const std::string& what) {
  RecordProperty("unobserved", what);
  std::printf("NOTE unobserved: %s\n", what.c_str());
}

void CollectivesTest::needs_two_ranks(const std::string& what) {
  if (world().world != 1) return;
  GTEST_SKIP() << what << " needs two ranks, and this host has one "
               << c10::DeviceTypeName(device().type(), /*lower_case=*/true) << " device (a world of one rank)";
}

void CollectivesTest::expect_family_right(const std::string& family) {
  const auto& w = world();
  int lines = 0;
  long long wrong = 0;
  for (const auto& result : w.results) {
    if (family_of(result.collective) != family) continue;
    ++lines;
    wrong += result.wrong;
    EXPECT_EQ(result.wrong, 0) << "collective check failed: RESULT " << result.text;
  }
  RecordProperty("wrong_elements", std::to_string(wrong));
  std::string undeclared;
  for (const auto& skip : w.skips) {
    const auto name = skip.substr(0, skip.find(' '));
    if (family_of(name) == family || name == "every_collective") {
      std::printf("SKIP %s\n", skip.c_str());
      if (name != "every_collective") undeclared += (undeclared.empty() ? "" : "; ") + skip;
    }
  }
  const std::string owner = "Collectives.WorldRunsToTheEnd/" + device_under_test().label();
  if (!w.problems.empty()) {
    const std::string type = c10::DeviceTypeName(device().type(), /*lower_case=*/true);
    const std::string served = w.backend.empty() ? "" : " (c10d backend " + w.backend + ")";
    ADD_FAILURE() << prerequisite_failed("the " + std::to_string(w.world) + "-rank world of " + type + served,
                                         w.problems.front(), owner);
    return;
  }
  if (lines == 0 && !undeclared.empty()) GTEST_SKIP() << "the c10d backend does not declare " << undeclared;
  EXPECT_GT(lines, 0) << "no rank reported a " << family << " result: the check checked nothing";
}

}  // namespace tdc::collectives
