// COLMAP sparse models (cameras, images, points3D) in COLMAP's binary (.bin) and text (.txt)
// formats, as `colmap mapper` writes them and COLMAP's GUI opens them.
//
// COLMAP's conventions: an image's pose is world-to-camera, x_cam = R(qvec) x_world + tvec,
// with qvec = (qw, qx, qy, qz); the camera frame is OpenCV's (+x right, +y down, +z forward);
// pixel centres are at +0.5 (the top-left pixel's centre is (0.5, 0.5)).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/geometry.h"
#include "io/transforms.h"

namespace radiant {

struct ColmapCamera {
    uint32_t id = 0;
    int model_id =
        0;  // COLMAP's id: 0 SIMPLE_PINHOLE, 1 PINHOLE, 2 SIMPLE_RADIAL, 3 RADIAL, 4 OPENCV, ...
    uint64_t width = 0, height = 0;
    std::vector<double> params;  // in COLMAP's order for the model
};

struct ColmapPoint2D {
    double x = 0, y = 0;
    int64_t point3d_id = -1;  // -1: not triangulated
};

struct ColmapImage {
    uint32_t id = 0;
    std::array<double, 4> qvec{1, 0, 0, 0};  // world-to-camera rotation (w, x, y, z)
    std::array<double, 3> tvec{};            // world-to-camera translation
    uint32_t camera_id = 0;
    std::string name;  // path relative to the image folder
    std::vector<ColmapPoint2D> points2d;
};

struct ColmapTrackElement {
    uint32_t image_id = 0, point2d_index = 0;
};

struct ColmapPoint3D {
    uint64_t id = 0;
    Vec3d xyz;
    std::array<uint8_t, 3> rgb{};
    double error = 0;  // mean reprojection error in pixels
    std::vector<ColmapTrackElement> track;
};

struct ColmapModel {
    std::vector<ColmapCamera> cameras;
    std::vector<ColmapImage> images;
    std::vector<ColmapPoint3D> points;

    const ColmapCamera* camera(uint32_t id) const;
    // Mean of the points' reprojection errors (what COLMAP reports), 0 without points.
    double mean_reprojection_error() const;
};

// A COLMAP camera model: its name, id and parameter count.
struct ColmapCameraModelInfo {
    const char* name;
    int id;
    int num_params;
};
// nullptr when unknown.
const ColmapCameraModelInfo* colmap_camera_model(int id);
const ColmapCameraModelInfo* colmap_camera_model(const std::string& name);

// Reads cameras, images and points3D from `folder` (the .bin files, else the .txt files).
// Throws Error naming the file and the problem: missing file, truncated or malformed record,
// unknown camera model, a parameter count that disagrees with the model, an image that names
// a missing camera, duplicate ids, a count larger than the file can hold.
ColmapModel read_colmap_model(const std::string& folder);

// Writes the three files of `model` into `folder` (which must exist), binary or text.
void write_colmap_model(const ColmapModel& model, const std::string& folder, bool binary);

// Whether `folder` holds a model (cameras and images, .bin or .txt).
bool is_colmap_model_folder(const std::string& folder);

// A COLMAP camera as Radiant intrinsics (pixels; distortion mapped onto OpenCV's radial-
// tangential or fisheye model). Throws Error (naming `source`) for models Radiant cannot
// trace rays through (FOV, THIN_PRISM_FISHEYE, FULL_OPENCV with k4..k6).
CameraIntrinsics colmap_intrinsics(const ColmapCamera& camera, const std::string& source);

// The image's camera-to-world pose in the OpenGL camera convention (x right, y up, looking
// down -z), in COLMAP's world frame.
void colmap_camera_to_world(const ColmapImage& image, Mat3d& rotation, Vec3d& centre);

}  // namespace radiant
