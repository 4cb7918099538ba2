// Writes a Dataset as an instant-ngp `transforms.json`, the format `load_transforms` reads.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "io/transforms.h"

namespace radiant {

// Intrinsics at the top level when every frame shares them, else per frame (`fl_x fl_y cx cy
// w h`, `camera_angle_x/y`, distortion `k1 k2 k3 p1 p2`, or `is_fisheye` with `k1..k4`);
// `aabb_scale`, `scale`, `offset`; frames with `file_path` relative to `json_folder`,
// `sharpness` and `transform_matrix`. Every frame's size must be known.
nlohmann::json transforms_to_json(const Dataset& dataset, const std::string& json_folder);

// The same, with `extra` merged into the top level, written atomically to `path`.
void save_transforms(const std::string& path, const Dataset& dataset,
                     const nlohmann::json& extra = {});

}  // namespace radiant
