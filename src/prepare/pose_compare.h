// How well one set of camera poses matches another up to a similarity (poses from SfM have
// no absolute position, orientation or scale): align the camera centres by least squares,
// then compare orientations and centres. Used by tests and `bench/compare-poses`.
#pragma once

#include <string>
#include <vector>

#include "core/geometry.h"
#include "io/transforms.h"

namespace radiant {

struct PoseComparison {
    size_t matched = 0;  // frames present in both (by image file name)
    Similarity estimated_to_reference;
    double mean_rotation_error_deg = 0, max_rotation_error_deg = 0;
    // Centre errors relative to the reference cameras' spread (RMS distance from their mean).
    double mean_centre_error = 0, max_centre_error = 0;
    double reference_spread = 0;
};

// Pairs frames by the file name of their image (not the folder). Needs >= 3 shared frames.
PoseComparison compare_poses(const Dataset& estimated, const Dataset& reference);

}  // namespace radiant
