#include "io/transforms.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/system.h"
#include "io/image.h"
#include "io/pose_normalization.h"

namespace radiant {

namespace fs = std::filesystem;
using nlohmann::json;

void CameraIntrinsics::resolve() {
    if (fl_x <= 0 && camera_angle_x) fl_x = 0.5f * width / std::tan(0.5f * *camera_angle_x);
    if (fl_y <= 0 && camera_angle_y) fl_y = 0.5f * height / std::tan(0.5f * *camera_angle_y);
    if (fl_y <= 0) fl_y = fl_x;
    if (fl_x <= 0) fl_x = fl_y;
    if (!has_principal_point) {
        cx = 0.5f * width;
        cy = 0.5f * height;
        has_principal_point = true;
    }
}

CameraIntrinsics CameraIntrinsics::downscaled(int k) const {
    CameraIntrinsics c = *this;
    c.width = width / k;
    c.height = height / k;
    c.fl_x = fl_x / k;
    c.fl_y = fl_y / k;
    c.cx = cx / k;
    c.cy = cy / k;
    return c;
}

std::string resolve_transforms_path(const std::string& scene) {
    std::error_code ec;
    if (!fs::exists(scene, ec)) throw Error(scene, "no such file or directory");
    if (fs::is_directory(scene, ec)) {
        for (const char* name : {"transforms.json", "transforms_train.json"}) {
            fs::path p = fs::path(scene) / name;
            if (fs::exists(p, ec)) return p.string();
        }
        throw Error(scene, "folder has no transforms.json or transforms_train.json");
    }
    return scene;
}

namespace {

constexpr double kMaxTransformsNumber = 1e30;  // far inside float's range, far beyond any scene

// Whether a number read as a double survives being kept as a float, with room to compute on.
bool within_camera_range(double v) {
    return std::isfinite(v) && std::abs(v) <= kMaxTransformsNumber;
}

// Reads a number field if present; throws if present with another type or non-finite.
std::optional<double> number_field(const json& obj, const char* key, const std::string& file,
                                   const std::string& where) {
    auto it = obj.find(key);
    if (it == obj.end()) return std::nullopt;
    if (!it->is_number())
        throw Error(file,
                    fmt::format("{}'{}' must be a number, got {}", where, key, it->type_name()));
    double v = it->get<double>();
    if (!std::isfinite(v)) throw Error(file, fmt::format("{}'{}' is not finite", where, key));
    // Stored as float: a double beyond float's range would become inf.
    if (std::abs(v) > kMaxTransformsNumber)
        throw Error(file, fmt::format("{}'{}' is {}, beyond the +-1e30 that a camera value can be",
                                      where, key, v));
    return v;
}

// Applies any intrinsics present in `obj` (the file's top level or one frame) onto `cam`.
void read_intrinsics(const json& obj, CameraIntrinsics& cam, const std::string& file,
                     const std::string& where) {
    auto positive = [&](const char* key) -> std::optional<double> {
        auto v = number_field(obj, key, file, where);
        if (v && *v <= 0)
            throw Error(file, fmt::format("{}'{}' must be positive, got {}", where, key, *v));
        return v;
    };
    auto side = [&](const char* key) -> std::optional<int> {
        auto v = positive(key);
        if (v && *v > kMaxImageSide)
            throw Error(file, fmt::format("{}'{}' is {}; images are at most {} pixels a side",
                                          where, key, *v, kMaxImageSide));
        return v ? std::optional<int>(int(std::lround(*v))) : std::nullopt;
    };
    if (auto v = side("w")) cam.width = *v;
    if (auto v = side("h")) cam.height = *v;
    if (auto v = positive("fl_x")) cam.fl_x = float(*v);
    if (auto v = positive("fl_y")) cam.fl_y = float(*v);
    if (auto v = positive("camera_angle_x")) cam.camera_angle_x = float(*v);
    if (auto v = positive("camera_angle_y")) cam.camera_angle_y = float(*v);
    auto cx = number_field(obj, "cx", file, where);
    auto cy = number_field(obj, "cy", file, where);
    if (cx || cy) {
        if (!cx || !cy) throw Error(file, where + "'cx' and 'cy' must be given together");
        cam.cx = float(*cx);
        cam.cy = float(*cy);
        cam.has_principal_point = true;
    }
    if (auto v = number_field(obj, "k1", file, where)) cam.k1 = float(*v);
    if (auto v = number_field(obj, "k2", file, where)) cam.k2 = float(*v);
    if (auto v = number_field(obj, "k3", file, where)) cam.k3 = float(*v);
    if (auto v = number_field(obj, "k4", file, where)) cam.k4 = float(*v);
    if (auto v = number_field(obj, "p1", file, where)) cam.p1 = float(*v);
    if (auto v = number_field(obj, "p2", file, where)) cam.p2 = float(*v);
    if (auto it = obj.find("is_fisheye"); it != obj.end()) {  // instant-ngp
        if (!it->is_boolean()) throw Error(file, where + "'is_fisheye' must be true or false");
        cam.fisheye = it->get<bool>();
    }
    if (auto it = obj.find("camera_model"); it != obj.end()) {  // nerfstudio
        if (!it->is_string()) throw Error(file, where + "'camera_model' must be a string");
        const std::string model = it->get<std::string>();
        if (model == "OPENCV_FISHEYE") {
            cam.fisheye = true;
        } else if (model == "OPENCV" || model == "PINHOLE" || model == "SIMPLE_PINHOLE") {
            cam.fisheye = false;
        } else {
            throw Error(
                file,
                fmt::format("{}camera_model '{}' is not supported (OPENCV, OPENCV_FISHEYE, PINHOLE "
                            "or SIMPLE_PINHOLE)",
                            where, model));
        }
    }
    if (cam.fisheye && (cam.p1 != 0 || cam.p2 != 0))
        throw Error(file, where + "a fisheye camera takes k1..k4, not 'p1'/'p2'");
}

// nerfstudio's applied_transform: 3x4 (or 4x4) numbers.
std::array<double, 16> read_applied_transform(const json& m, const std::string& file) {
    const char* what = "'applied_transform' must be a 3x4 or 4x4 array of finite numbers";
    if (!m.is_array() || (m.size() != 3 && m.size() != 4)) throw Error(file, what);
    std::array<double, 16> out{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    for (size_t r = 0; r < m.size(); ++r) {
        if (!m[r].is_array() || m[r].size() != 4) throw Error(file, what);
        for (size_t c = 0; c < 4; ++c) {
            if (!m[r][c].is_number() || !std::isfinite(m[r][c].get<double>()))
                throw Error(file, what);
            out[r * 4 + c] = m[r][c].get<double>();
        }
    }
    return out;
}

// nerfstudio leaves poses in COLMAP's arbitrary frame and normalises them when it loads them;
// do the same (centre and scale only, so the poses stay exactly as the file has them).
void normalize_nerfstudio(Dataset& ds, const std::string& file) {
    std::vector<Mat3d> rotations;
    std::vector<Vec3d> centres;
    for (const Frame& f : ds.frames) {
        Mat3d r;
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) r(i, j) = f.camera_to_world[size_t(i * 4 + j)];
        rotations.push_back(r);
        centres.push_back({f.camera_to_world[3], f.camera_to_world[7], f.camera_to_world[11]});
    }
    const PoseNormalization n = normalize_poses(rotations, centres, {}, false);
    ds.scale = float(kUnitCubeScale * n.to_scene.scale);
    for (int i = 0; i < 3; ++i)
        ds.offset[size_t(i)] = float(0.5 + kUnitCubeScale * n.to_scene.translation[i]);
    ds.aabb_scale = n.aabb_scale;
    // Poses far apart in float (1e-30 next to 1e30) can still overflow or underflow here.
    const bool finite =
        std::isfinite(ds.scale) && ds.scale > 0 &&
        std::all_of(ds.offset.begin(), ds.offset.end(), [](float v) { return std::isfinite(v); });
    if (!finite)
        throw Error(file,
                    "the camera positions cannot be centred and scaled (they overflow a float); "
                    "give 'scale' and 'offset' in the file");
}

// NeRF-synthetic writes paths without an extension; try the usual ones.
std::string resolve_image_path(const fs::path& base, const std::string& file_path,
                               const std::string& file, const std::string& where) {
    fs::path p = base / file_path;
    std::error_code ec;
    if (fs::is_regular_file(p, ec)) return p.lexically_normal().string();
    for (const char* ext : {".png", ".jpg", ".jpeg", ".PNG", ".JPG", ".JPEG"}) {
        fs::path q = p;
        q += ext;
        if (fs::is_regular_file(q, ec)) return q.lexically_normal().string();
    }
    throw Error(p.lexically_normal().string(),
                fmt::format("image file not found (listed in {} {})", file,
                            where.substr(0, where.size() - 2)));
}

}  // namespace

std::array<float, 16> read_transform_matrix(const nlohmann::json& frame, const std::string& file,
                                            const std::string& where) {
    auto it = frame.find("transform_matrix");
    if (it == frame.end()) throw Error(file, where + "missing 'transform_matrix'");
    const json& m = *it;
    if (!m.is_array() || m.size() != 4)
        throw Error(file, where + "'transform_matrix' must be a 4x4 array of numbers");
    std::array<float, 16> out{};
    for (int r = 0; r < 4; ++r) {
        if (!m[r].is_array() || m[r].size() != 4)
            throw Error(file, where + "'transform_matrix' must be a 4x4 array of numbers");
        for (int c = 0; c < 4; ++c) {
            if (!m[r][c].is_number())
                throw Error(file, where + "'transform_matrix' must be a 4x4 array of numbers");
            double v = m[r][c].get<double>();
            if (!within_camera_range(v))
                throw Error(file, where +
                                      "'transform_matrix' has a non-finite or out-of-range (beyond "
                                      "+-1e30) entry");
            out[r * 4 + c] = float(v);
        }
    }
    return out;
}

Dataset load_transforms(const std::string& scene) {
    Dataset ds;
    ds.json_path = resolve_transforms_path(scene);
    const std::string& file = ds.json_path;
    json root;
    const std::string text = read_file(file, kMaxTransformsBytes);
    try {
        root = json::parse(text);
    } catch (const json::exception& e) {
        // Python's json module writes NaN/Infinity, which are not JSON: name the real problem.
        if (text.find("NaN") != std::string::npos || text.find("Infinity") != std::string::npos)
            throw Error(file,
                        "contains a non-finite number (NaN or Infinity), which is not valid JSON");
        throw Error(file, std::string("invalid JSON: ") + e.what());
    }
    if (!root.is_object()) throw Error(file, "expected a JSON object at the top level");

    CameraIntrinsics shared;
    read_intrinsics(root, shared, file, "");
    ds.nerf_synthetic = shared.fl_x <= 0 && shared.camera_angle_x.has_value();
    ds.dialect = root.contains("camera_model") ? TransformsDialect::kNerfstudio
                 : ds.nerf_synthetic           ? TransformsDialect::kNerfSynthetic
                                               : TransformsDialect::kInstantNgp;
    if (auto it = root.find("applied_transform"); it != root.end())
        ds.applied_transform = read_applied_transform(*it, file);
    if (auto v = number_field(root, "aabb_scale", file, "")) {
        if (*v < 1) throw Error(file, fmt::format("'aabb_scale' must be >= 1, got {}", *v));
        ds.aabb_scale = float(*v);
    }
    if (auto v = number_field(root, "scale", file, "")) {
        if (*v <= 0) throw Error(file, fmt::format("'scale' must be positive, got {}", *v));
        ds.scale = float(*v);
    }
    if (auto it = root.find("offset"); it != root.end()) {
        if (!it->is_array() || it->size() != 3)
            throw Error(file, "'offset' must be an array of 3 numbers");
        for (int i = 0; i < 3; ++i) {
            if (!(*it)[i].is_number() || !within_camera_range((*it)[i].get<double>()))
                throw Error(file, "'offset' must be an array of 3 finite numbers within +-1e30");
            ds.offset[i] = (*it)[i].get<float>();
        }
    }

    auto frames_it = root.find("frames");
    if (frames_it == root.end()) throw Error(file, "missing 'frames'");
    if (!frames_it->is_array()) throw Error(file, "'frames' must be an array");
    if (frames_it->empty()) throw Error(file, "'frames' is empty: no images to use");
    if (frames_it->size() > kMaxFrames)
        throw Error(file, fmt::format("lists {} frames; Radiant trains on at most {}",
                                      frames_it->size(), kMaxFrames));

    fs::path base = fs::path(file).parent_path();
    ds.frames.reserve(frames_it->size());
    for (size_t i = 0; i < frames_it->size(); ++i) {
        const json& jf = (*frames_it)[i];
        std::string where = fmt::format("frame {}: ", i);
        if (!jf.is_object()) throw Error(file, where + "must be an object");
        Frame f;
        auto fp = jf.find("file_path");
        if (fp == jf.end()) throw Error(file, where + "missing 'file_path'");
        if (!fp->is_string()) throw Error(file, where + "'file_path' must be a string");
        f.camera_to_world = read_transform_matrix(jf, file, where);
        f.camera = shared;
        read_intrinsics(jf, f.camera, file, where);
        if (f.camera.fl_x <= 0 && f.camera.fl_y <= 0 && !f.camera.camera_angle_x &&
            !f.camera.camera_angle_y)
            throw Error(file, where + "no focal length: give 'fl_x' or 'camera_angle_x'");
        if (auto v = number_field(jf, "sharpness", file, where)) f.sharpness = float(*v);
        f.image_path = resolve_image_path(base, fp->get<std::string>(), file, where);
        ds.frames.push_back(std::move(f));
    }
    if (ds.dialect == TransformsDialect::kNerfstudio && !root.contains("scale") &&
        !root.contains("offset") && !root.contains("aabb_scale"))
        normalize_nerfstudio(ds, file);
    return ds;
}

void select_holdout(Dataset& dataset, int every, bool keep_held_out) {
    if (every < 2) throw Error(dataset.json_path, "--holdout-every must be at least 2");
    std::vector<Frame> kept;
    for (size_t i = 0; i < dataset.frames.size(); ++i)
        if ((i % size_t(every) == size_t(every) - 1) == keep_held_out)
            kept.push_back(dataset.frames[i]);
    if (kept.empty())
        throw Error(dataset.json_path, "--holdout-every " + std::to_string(every) + " leaves no " +
                                           (keep_held_out ? "held-out" : "training") + " views");
    dataset.frames = std::move(kept);
}

}  // namespace radiant
