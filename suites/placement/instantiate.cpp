#include "placement.h"

TDC_INSTANTIATE_DEVICE_TEST_SUITE(Placement);
