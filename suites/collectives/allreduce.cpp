// Allreduce with SUM, MAX, MIN, PRODUCT and AVG (where declared) on every rank, every dtype and size, every
// element against the host reference on every rank (collectives_fixture.h); from three ranks, how a
// bfloat16 sum is rounded.
#include "collectives_fixture.h"

#include <cstdio>

namespace {

class Allreduce : public tdc::collectives::CollectivesTest {};

TEST_P(Allreduce, EveryOpMatchesHostReference) {
  // allreduce_precision (rank_precision.cpp) runs from three ranks.
  if (world().world == 2) {
    note_unobserved("whether a bfloat16 sum is rounded once (float32 accumulation): two contributions are "
                    "rounded once either way, and this world has two ranks");
  }
  expect_family_right("allreduce");
  for (const auto& result : world().results) {
    if (result.collective == "allreduce_precision") std::printf("RESULT %s\n", result.text.c_str());
  }
}

TDC_INSTANTIATE_DEVICE_TEST_SUITE(Allreduce);

}  // namespace
