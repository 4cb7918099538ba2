// Posed-image datasets: both `transforms.json` dialects of DESIGN §5 into one Dataset.
//
// NeRF-synthetic: `camera_angle_x`, `file_path` without extension (PNG), no image size
// (it comes from the images). instant-ngp: `fl_x fl_y cx cy w h`, distortion `k1 k2 k3 p1 p2`
// (`is_fisheye` with k1..k4), `aabb_scale`, `scale`, `offset`; any intrinsic may be overridden
// per frame. nerfstudio: `camera_model` (OPENCV, OPENCV_FISHEYE, PINHOLE, SIMPLE_PINHOLE),
// per-frame intrinsics, `applied_transform`; its poses are in COLMAP's arbitrary scale, so
// when the file gives no `scale`/`offset`/`aabb_scale` they are chosen from the cameras the
// way `radiant prepare` chooses them (io/pose_normalization.h).
// Poses are kept exactly as written (camera-to-world, OpenGL convention, world units);
// the nerf stage applies `scale` and `offset` when it builds rays.
#pragma once

#include <array>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

namespace radiant {

struct CameraIntrinsics {
    int width = 0;  // pixels; 0 until known (NeRF-synthetic takes it from the image)
    int height = 0;
    float fl_x = 0, fl_y = 0;  // focal lengths in pixels; 0 until resolved
    float cx = 0, cy = 0;      // principal point in pixels (pixel centres at +0.5)
    bool has_principal_point = false;
    // Lens distortion. Radial-tangential (OpenCV): k1 k2 k3 radial, p1 p2 tangential. Fisheye
    // (OpenCV's equidistant model, `camera_model: OPENCV_FISHEYE` or `is_fisheye`): k1..k4 on
    // the angle from the axis; p1 p2 unused.
    bool fisheye = false;
    float k1 = 0, k2 = 0, k3 = 0, k4 = 0, p1 = 0, p2 = 0;
    std::optional<float> camera_angle_x, camera_angle_y;  // radians, full field of view

    // Fills focal lengths / principal point from the angles and the size, once the image
    // size is known. Width and height must be set.
    void resolve();
    // Intrinsics of the same camera after an integer box downscale by k.
    CameraIntrinsics downscaled(int k) const;
};

struct Frame {
    std::string image_path;                   // resolved path of the image file
    std::array<float, 16> camera_to_world{};  // row-major 4x4, as in the json
    CameraIntrinsics camera;
    float sharpness = 0;  // instant-ngp's per-frame sharpness, 0 if absent
};

enum class TransformsDialect { kNerfSynthetic, kInstantNgp, kNerfstudio };

struct Dataset {
    std::string json_path;        // the transforms file that was read
    bool nerf_synthetic = false;  // true when the file used camera_angle_x without fl_x
    TransformsDialect dialect = TransformsDialect::kInstantNgp;
    float aabb_scale = 1.0f;
    float scale = 0.33f;  // world -> unit cube scale (instant-ngp's default)
    std::array<float, 3> offset{0.5f, 0.5f, 0.5f};
    // nerfstudio's (and prepare's) record of the transform already applied to the source
    // (COLMAP) world, row-major 4x4; informational: the poses are already in the file's frame.
    std::optional<std::array<double, 16>> applied_transform;
    std::vector<Frame> frames;
};

// `scene` is a folder holding transforms.json or transforms_train.json, or a path to a
// transforms file. Throws Error naming the file and the problem for anything malformed.
Dataset load_transforms(const std::string& scene);
// Limits checked before the file is parsed (its JSON tree is ~10x the text) and before frames
// are allocated: far above real captures (a few thousand photos, ~1 kB of JSON each).
constexpr size_t kMaxTransformsBytes = size_t(64) << 20;
constexpr size_t kMaxFrames = 100000;

// Splits off held-out views: frames K-1, 2K-1, ... (every K-th) are the held-out ones. Keeps
// those when `keep_held_out`, else all the others. Throws Error if K < 2 or nothing is left.
void select_holdout(Dataset& dataset, int every, bool keep_held_out);

// An object's 'transform_matrix': 4x4 rows of finite numbers (row-major). Throws Error naming
// `file` with `where` (e.g. "frame 3: ") in front of the problem.
std::array<float, 16> read_transform_matrix(const nlohmann::json& object, const std::string& file,
                                            const std::string& where);

// The transforms file a scene path refers to (same rules as load_transforms).
std::string resolve_transforms_path(const std::string& scene);

}  // namespace radiant
