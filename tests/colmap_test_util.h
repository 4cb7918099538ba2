// Test helpers: COLMAP models built from known cameras.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "core/geometry.h"
#include "prepare/colmap_model.h"

namespace radiant::test {

// OpenGL camera-to-world rotation of a camera at `eye` looking at `target` with `up` roughly up.
inline Mat3d look_at_rotation(const Vec3d& eye, const Vec3d& target, const Vec3d& up) {
    const Vec3d f = normalized(target - eye), r = normalized(cross(f, up)), u = cross(r, f);
    Mat3d m;
    m.set_column(0, r);
    m.set_column(1, u);
    m.set_column(2, f * -1.0);
    return m;
}

// A COLMAP image (world-to-camera, OpenCV axes) for an OpenGL camera-to-world pose.
inline ColmapImage colmap_image(uint32_t id, uint32_t camera_id, const std::string& name,
                                const Mat3d& rotation_gl, const Vec3d& centre) {
    Mat3d cv = rotation_gl;
    cv.set_column(1, rotation_gl.column(1) * -1.0);
    cv.set_column(2, rotation_gl.column(2) * -1.0);
    const Mat3d w2c = cv.transposed();
    const Vec3d t = w2c * centre * -1.0;
    ColmapImage im;
    im.id = id;
    im.camera_id = camera_id;
    im.name = name;
    const auto q = rotation_to_quaternion(w2c);
    im.qvec = {q[0], q[1], q[2], q[3]};
    im.tvec = {t.x, t.y, t.z};
    return im;
}

struct KnownCapture {
    std::vector<Mat3d> rotations;  // OpenGL camera-to-world
    std::vector<Vec3d> centres;
    ColmapModel model;
};

// `n` cameras around `target` at `distance`, at elevations 10..50 degrees about a tilted `up`,
// one OPENCV camera with mild distortion, and `points` scene points within `point_radius`.
inline KnownCapture known_capture(int n, const Vec3d& target, double distance, const Vec3d& up,
                                  int points = 0, double point_radius = 1.0, int width = 64,
                                  int height = 48) {
    KnownCapture c;
    ColmapCamera cam;
    cam.id = 1;
    cam.model_id = 4;  // OPENCV
    cam.width = uint64_t(width);
    cam.height = uint64_t(height);
    cam.params = {60.0, 58.0, width / 2.0 + 1.5, height / 2.0 - 0.75, 0.02, -0.01, 0.001, -0.0005};
    c.model.cameras.push_back(cam);
    const Vec3d u = normalized(up);
    const Vec3d a = normalized(cross(u, std::abs(u.x) < 0.9 ? Vec3d{1, 0, 0} : Vec3d{0, 1, 0})),
                b = cross(u, a);
    for (int i = 0; i < n; ++i) {
        const double az = 2 * 3.14159265358979 * i / n,
                     el = (10.0 + 40.0 * i / std::max(n - 1, 1)) * 3.14159265358979 / 180;
        const Vec3d eye = target + (a * (std::cos(el) * std::cos(az)) +
                                    b * (std::cos(el) * std::sin(az)) + u * std::sin(el)) *
                                       distance;
        c.rotations.push_back(look_at_rotation(eye, target, u));
        c.centres.push_back(eye);
        c.model.images.push_back(colmap_image(uint32_t(10 + i), 1,
                                              "img_" + std::to_string(100 + i) + ".png",
                                              c.rotations.back(), eye));
    }
    for (int i = 0; i < points; ++i) {
        ColmapPoint3D p;
        p.id = uint64_t(i + 1);
        const double s = point_radius * (i + 1) / points;  // spread evenly up to the radius
        p.xyz = target +
                Vec3d{std::cos(i * 2.4) * s, std::sin(i * 2.4) * s, std::cos(i * 1.3) * s * 0.5};
        p.rgb = {uint8_t(i % 256), 20, 30};
        p.error = 0.5 + 0.01 * i;
        p.track = {{10, uint32_t(i)}, {11, uint32_t(i)}};
        c.model.points.push_back(p);
    }
    return c;
}

}  // namespace radiant::test
