// Camera paths: keyframes (camera-to-world poses in the transforms.json convention, and a
// horizontal field of view) that the viewer's path editor saves and `radiant render --path`
// turns into frames. Between keyframes, positions, orientations and the field of view follow
// Catmull-Rom splines (orientations as unit quaternions kept in one hemisphere), so the path
// passes through every keyframe with continuous velocity.
//
// File: {"format": "radiant-camera-path", "version": 1, "width": W, "height": H, "fps": F,
//        "seconds": S, "loop": false, "keyframes": [{"transform_matrix": 4x4, "camera_angle_x":
//        a}]}
#pragma once

#include <array>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/geometry.h"

namespace radiant {

struct CameraKeyframe {
    Mat3d rotation;  // camera-to-world, OpenGL axes
    Vec3d position;
    double fov_x = 0.69;  // radians
};

struct CameraPath {
    int width = 800, height = 800;
    double fps = 30, seconds = 5;
    bool loop = false;  // the last keyframe leads back to the first
    std::vector<CameraKeyframe> keyframes;

    int frame_count() const;
};

// Throws Error naming `source` for anything malformed (too few keyframes, a non-rotation,
// sizes or rates out of range).
CameraPath camera_path_from_json(const nlohmann::json& j, const std::string& source);
nlohmann::json camera_path_to_json(const CameraPath& path);
CameraPath load_camera_path(const std::string& path);
void save_camera_path(const std::string& path, const CameraPath& camera_path);

// The camera at `u` in [0, 1] along the path (keyframes evenly spaced in time).
CameraKeyframe sample_camera_path(const CameraPath& path, double u);

// Row-major 4x4 camera-to-world matrix of a keyframe.
std::array<float, 16> keyframe_matrix(const CameraKeyframe& k);

}  // namespace radiant
