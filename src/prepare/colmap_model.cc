#include "prepare/colmap_model.h"

#include <fmt/format.h>

#include <cmath>

#include "core/error.h"

namespace radiant {

namespace {

// COLMAP's camera models (src/base/camera_models.h), in id order.
constexpr ColmapCameraModelInfo kModels[] = {
    {"SIMPLE_PINHOLE", 0, 3},
    {"PINHOLE", 1, 4},
    {"SIMPLE_RADIAL", 2, 4},
    {"RADIAL", 3, 5},
    {"OPENCV", 4, 8},
    {"OPENCV_FISHEYE", 5, 8},
    {"FULL_OPENCV", 6, 12},
    {"FOV", 7, 5},
    {"SIMPLE_RADIAL_FISHEYE", 8, 4},
    {"RADIAL_FISHEYE", 9, 5},
    {"THIN_PRISM_FISHEYE", 10, 12},
};

}  // namespace

const ColmapCameraModelInfo* colmap_camera_model(int id) {
    for (const auto& m : kModels)
        if (m.id == id) return &m;
    return nullptr;
}

const ColmapCameraModelInfo* colmap_camera_model(const std::string& name) {
    for (const auto& m : kModels)
        if (name == m.name) return &m;
    return nullptr;
}

const ColmapCamera* ColmapModel::camera(uint32_t id) const {
    for (const auto& c : cameras)
        if (c.id == id) return &c;
    return nullptr;
}

double ColmapModel::mean_reprojection_error() const {
    if (points.empty()) return 0;
    double sum = 0;
    for (const auto& p : points) sum += p.error;
    return sum / double(points.size());
}

CameraIntrinsics colmap_intrinsics(const ColmapCamera& cam, const std::string& source) {
    const ColmapCameraModelInfo* info = colmap_camera_model(cam.model_id);
    RD_CHECK(info && int(cam.params.size()) == info->num_params);  // checked when read
    const std::vector<double>& p = cam.params;
    CameraIntrinsics c;
    c.width = int(cam.width);
    c.height = int(cam.height);
    c.has_principal_point = true;
    auto simple = [&] {  // f, cx, cy, ...
        c.fl_x = c.fl_y = float(p[0]);
        c.cx = float(p[1]);
        c.cy = float(p[2]);
    };
    auto full = [&] {  // fx, fy, cx, cy, ...
        c.fl_x = float(p[0]);
        c.fl_y = float(p[1]);
        c.cx = float(p[2]);
        c.cy = float(p[3]);
    };
    const std::string name = info->name;
    if (name == "SIMPLE_PINHOLE") {
        simple();
    } else if (name == "PINHOLE") {
        full();
    } else if (name == "SIMPLE_RADIAL") {
        simple();
        c.k1 = float(p[3]);
    } else if (name == "RADIAL") {
        simple();
        c.k1 = float(p[3]);
        c.k2 = float(p[4]);
    } else if (name == "OPENCV") {
        full();
        c.k1 = float(p[4]), c.k2 = float(p[5]), c.p1 = float(p[6]), c.p2 = float(p[7]);
    } else if (name == "FULL_OPENCV" && p[9] == 0 && p[10] == 0 && p[11] == 0) {
        // k1 k2 p1 p2 k3 with no rational part is plain radial-tangential.
        full();
        c.k1 = float(p[4]), c.k2 = float(p[5]), c.p1 = float(p[6]), c.p2 = float(p[7]),
        c.k3 = float(p[8]);
    } else if (name == "OPENCV_FISHEYE") {
        full();
        c.fisheye = true;
        c.k1 = float(p[4]), c.k2 = float(p[5]), c.k3 = float(p[6]), c.k4 = float(p[7]);
    } else if (name == "SIMPLE_RADIAL_FISHEYE" || name == "RADIAL_FISHEYE") {
        // COLMAP's radial fisheye is the equidistant model with k on the angle, as OpenCV's.
        simple();
        c.fisheye = true;
        c.k1 = float(p[3]);
        if (name == "RADIAL_FISHEYE") c.k2 = float(p[4]);
    } else {
        throw Error(source,
                    fmt::format("camera {} uses COLMAP's {} model, which Radiant cannot trace rays "
                                "through; re-run with --camera-model OPENCV (or OPENCV_FISHEYE)",
                                cam.id, name));
    }
    if (!(c.fl_x > 0 && c.fl_y > 0) || c.width <= 0 || c.height <= 0)
        throw Error(source,
                    fmt::format("camera {} has a non-positive focal length or size", cam.id));
    // Finite as doubles (checked when read) but maybe not as floats: 1e300 would become inf.
    for (float v : {c.fl_x, c.fl_y, c.cx, c.cy, c.k1, c.k2, c.k3, c.k4, c.p1, c.p2})
        if (!std::isfinite(v))
            throw Error(source,
                        fmt::format("camera {} has a parameter beyond float range", cam.id));
    return c;
}

void colmap_camera_to_world(const ColmapImage& image, Mat3d& rotation, Vec3d& centre) {
    const Mat3d w2c =
        quaternion_to_rotation(image.qvec[0], image.qvec[1], image.qvec[2], image.qvec[3]);
    const Mat3d c2w = w2c.transposed();
    const Vec3d t{image.tvec[0], image.tvec[1], image.tvec[2]};
    centre = c2w * t * -1.0;
    // OpenCV camera axes (y down, z forward) -> OpenGL (y up, z backward): negate columns 1, 2.
    rotation = c2w;
    rotation.set_column(1, c2w.column(1) * -1.0);
    rotation.set_column(2, c2w.column(2) * -1.0);
}

}  // namespace radiant
