// Cameras and rays for NeRF training and rendering.
//
// Frames: poses in the dataset are camera-to-world in the OpenGL/Blender convention (camera
// looks down -z, +y up, +x right); pixel rows grow downward. Rays live in the *unit-cube
// frame*: p_unit = p_world * scale + offset (instant-ngp's scene transform), directions unit
// length. Pixel centres are at (x + 0.5, y + 0.5).
#pragma once

#include <array>

#include "io/transforms.h"

namespace radiant {

struct Vec3 {
    float x = 0, y = 0, z = 0;
};

struct Ray {
    Vec3 origin;     // unit-cube frame
    Vec3 direction;  // unit length
};

// Lens distortion on normalised image coordinates (x = X/Z, y = Y/Z in OpenCV's camera frame):
// radial-tangential (k1 k2 k3, p1 p2), or OpenCV's equidistant fisheye (k1..k4) when
// `c.fisheye`.
void distort(const CameraIntrinsics& c, float x, float y, float& xd, float& yd);
// Inverse of distort (fixed-point iteration for radial-tangential, which converges for the mild
// distortion of real lenses; Newton on the angle for fisheye). Exact with no distortion.
void undistort(const CameraIntrinsics& c, float xd, float yd, float& x, float& y);

// The direction, in OpenCV's camera frame (+x right, +y down, +z forward; not normalised),
// seen at pixel position (px, py). Fisheye pixels beyond 90 degrees from the axis get z <= 0.
Vec3 pixel_direction(const CameraIntrinsics& c, float px, float py);

struct SceneTransform {
    float scale = 0.33f;
    Vec3 offset{0.5f, 0.5f, 0.5f};
};

// The camera's centre (the translation of its camera-to-world pose) in the unit-cube frame.
Vec3 camera_origin(const std::array<float, 16>& camera_to_world, const SceneTransform& scene);

// The ray through pixel position (px, py) (pixels, continuous) of a camera with the given
// camera-to-world pose (row-major 4x4, world frame).
Ray camera_ray(const CameraIntrinsics& camera, const std::array<float, 16>& camera_to_world,
               const SceneTransform& scene, float px, float py);

// Width, in the unit-cube frame, of one pixel of the camera seen at the cube's centre
// (distance to (0.5, 0.5, 0.5) over the focal length): the finest detail the view resolves
// there.
float pixel_footprint(const CameraIntrinsics& camera, const std::array<float, 16>& camera_to_world,
                      const SceneTransform& scene);

}  // namespace radiant
