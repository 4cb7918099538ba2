// A procedural test image with detail at many scales, so `fit-image` and the tests have a
// built-in default that needs no data: smooth colour ramps, a checkerboard, sharp-edged discs,
// fine stripes and a band-limited zone plate. Deterministic for a given size.
#pragma once

#include "io/image.h"

namespace radiant {

ImageF make_test_pattern(int width, int height);

}  // namespace radiant
