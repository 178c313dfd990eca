#pragma once
#include "tdc/fixtures.h"

// Placement.<Case>/<device>: where tensors and modules land.
class Placement : public tdc::DeviceTest {};
