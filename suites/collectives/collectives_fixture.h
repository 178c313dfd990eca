#pragma once
// The rung every collectives check stands on: a device type's world of ranks
// (world_results.h), run once from index 0 of the type (the ranks take every
// index, so the instance claims them all), and the judgement of one family of
// collectives' RESULT lines against it. An undeclared family is a skip
// naming the capability; a world that went wrong is the prerequisite each
// check names, owned by Collectives.WorldRunsToTheEnd.
#include "world_results.h"

#include "tdc/fixtures.h"

#include <string>

namespace tdc::collectives {

class CollectivesTest : public DeviceTest, public UsesEveryIndex {
 protected:
  void SetUp() override;
  // Level 1's smoke world (one allreduce) instead of the whole suite's.
  virtual bool smoke() const { return false; }
  const WorldResults& world() const { return world_results(device(), smoke()); }
  // Every RESULT line of `family` (family_of) shows no wrong element, there
  // is at least one, and the world ran to the end.
  void expect_family_right(const std::string& family);
  // Says in the results (the "unobserved" property) and the output what a
  // passing check could not observe here.
  void note_unobserved(const std::string& what);
  // Skips a check that needs two ranks where the world is one rank (a host
  // with one device of the type), naming `what` it would have observed.
  void needs_two_ranks(const std::string& what);
};

class CollectivesSmokeTest : public CollectivesTest {
 protected:
  bool smoke() const override { return true; }
};

// "allreduce_max" -> "allreduce", "reduce_root1" -> "reduce",
// "broadcast_root0" -> "broadcast", "sendrecv_0to1" -> "sendrecv",
// "stream_side" -> "stream", else itself.
std::string family_of(const std::string& collective);

}  // namespace tdc::collectives
