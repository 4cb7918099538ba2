// A COLMAP sparse model -> a Radiant scene (instant-ngp transforms): OpenCV world-to-camera
// poses become OpenGL camera-to-world ones, and the whole capture is moved into the
// normalised frame of io/pose_normalization.h (mean up +z, looked-at point in the middle,
// cameras at mean distance 4, aabb_scale from the sparse points).
#pragma once

#include <string>

#include "io/pose_normalization.h"
#include "io/transforms.h"
#include "prepare/colmap_model.h"

namespace radiant {

struct ConvertedScene {
    Dataset dataset;                  // frames sorted by image name; image paths under image_folder
    PoseNormalization normalization;  // COLMAP world -> the dataset's world
    double mean_reprojection_error = 0;
    size_t points = 0;
};

// `image_folder`: where the model's image names are found. `source` names the model in errors.
// Throws Error when the model has no images or a camera Radiant cannot use.
ConvertedScene convert_colmap_model(const ColmapModel& model, const std::string& image_folder,
                                    const std::string& source);

}  // namespace radiant
