#include "scene/camera.h"

#include <algorithm>
#include <cmath>

namespace radiant {

namespace {

bool no_distortion(const CameraIntrinsics& c) {
    return c.k1 == 0 && c.k2 == 0 && c.k3 == 0 && c.k4 == 0 &&
           (c.fisheye || (c.p1 == 0 && c.p2 == 0));
}

// Fisheye: theta_d = theta (1 + k1 theta^2 + k2 theta^4 + k3 theta^6 + k4 theta^8).
float fisheye_theta_d(const CameraIntrinsics& c, float theta) {
    const float t2 = theta * theta;
    return theta * (1 + t2 * (c.k1 + t2 * (c.k2 + t2 * (c.k3 + t2 * c.k4))));
}

// The angle from the axis whose distorted radius is theta_d (Newton from theta = theta_d).
float fisheye_theta(const CameraIntrinsics& c, float theta_d) {
    float theta = theta_d;
    for (int it = 0; it < 20; ++it) {
        const float t2 = theta * theta;
        const float f = fisheye_theta_d(c, theta) - theta_d;
        const float df = 1 + t2 * (3 * c.k1 + t2 * (5 * c.k2 + t2 * (7 * c.k3 + t2 * 9 * c.k4)));
        if (!(df > 1e-6f)) break;  // past the model's fold: keep the last good angle
        const float next = theta - f / df;
        if (std::abs(next - theta) < 1e-7f) return next;
        theta = next;
    }
    return theta;
}

}  // namespace

void distort(const CameraIntrinsics& c, float x, float y, float& xd, float& yd) {
    const float r2 = x * x + y * y;
    if (c.fisheye) {
        const float r = std::sqrt(r2);
        const float s = r > 1e-8f ? fisheye_theta_d(c, std::atan(r)) / r : 1.0f;
        xd = x * s;
        yd = y * s;
        return;
    }
    const float radial = 1.0f + r2 * (c.k1 + r2 * (c.k2 + r2 * c.k3));
    xd = x * radial + 2.0f * c.p1 * x * y + c.p2 * (r2 + 2.0f * x * x);
    yd = y * radial + c.p1 * (r2 + 2.0f * y * y) + 2.0f * c.p2 * x * y;
}

void undistort(const CameraIntrinsics& c, float xd, float yd, float& x, float& y) {
    x = xd;
    y = yd;
    if (no_distortion(c)) return;
    if (c.fisheye) {
        const float theta_d = std::sqrt(xd * xd + yd * yd);
        if (theta_d < 1e-8f) return;
        const float s = std::tan(fisheye_theta(c, theta_d)) / theta_d;
        x = xd * s;
        y = yd * s;
        return;
    }
    for (int it = 0; it < 20; ++it) {
        const float r2 = x * x + y * y;
        const float radial = 1.0f + r2 * (c.k1 + r2 * (c.k2 + r2 * c.k3));
        const float tx = 2.0f * c.p1 * x * y + c.p2 * (r2 + 2.0f * x * x);
        const float ty = c.p1 * (r2 + 2.0f * y * y) + 2.0f * c.p2 * x * y;
        x = (xd - tx) / radial;
        y = (yd - ty) / radial;
    }
}

Vec3 pixel_direction(const CameraIntrinsics& c, float px, float py) {
    const float xd = (px - c.cx) / c.fl_x, yd = (py - c.cy) / c.fl_y;
    if (c.fisheye) {
        // Through the angle, not tan(angle): also valid for fields of view past 180 degrees.
        const float theta_d = std::sqrt(xd * xd + yd * yd);
        if (theta_d < 1e-8f) return {xd, yd, 1.0f};
        const float theta = no_distortion(c) ? theta_d : fisheye_theta(c, theta_d);
        const float s = std::sin(theta) / theta_d;
        return {xd * s, yd * s, std::cos(theta)};
    }
    float x, y;
    undistort(c, xd, yd, x, y);
    return {x, y, 1.0f};
}

Ray camera_ray(const CameraIntrinsics& camera, const std::array<float, 16>& m,
               const SceneTransform& scene, float px, float py) {
    const Vec3 v = pixel_direction(camera, px, py);
    // OpenGL camera: image right = +x, image down = -y, forward = -z.
    const float cx = v.x, cy = -v.y, cz = -v.z;
    Vec3 d{m[0] * cx + m[1] * cy + m[2] * cz, m[4] * cx + m[5] * cy + m[6] * cz,
           m[8] * cx + m[9] * cy + m[10] * cz};
    const float inv = 1.0f / std::sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
    Ray r;
    r.direction = {d.x * inv, d.y * inv, d.z * inv};
    r.origin = camera_origin(m, scene);
    return r;
}

Vec3 camera_origin(const std::array<float, 16>& m, const SceneTransform& scene) {
    return {m[3] * scene.scale + scene.offset.x, m[7] * scene.scale + scene.offset.y,
            m[11] * scene.scale + scene.offset.z};
}

float pixel_footprint(const CameraIntrinsics& camera, const std::array<float, 16>& m,
                      const SceneTransform& scene) {
    const Vec3 o = camera_origin(m, scene);
    const float dx = o.x - 0.5f, dy = o.y - 0.5f, dz = o.z - 0.5f;
    const float focal = 0.5f * (camera.fl_x + camera.fl_y);
    return std::sqrt(dx * dx + dy * dy + dz * dz) / std::max(focal, 1e-6f);
}

}  // namespace radiant
