#include "nerf/camera.h"

#include <cmath>

namespace radiant {

void distort(const CameraIntrinsics& c, float x, float y, float& xd, float& yd) {
    const float r2 = x * x + y * y;
    const float radial = 1.0f + c.k1 * r2 + c.k2 * r2 * r2;
    xd = x * radial + 2.0f * c.p1 * x * y + c.p2 * (r2 + 2.0f * x * x);
    yd = y * radial + c.p1 * (r2 + 2.0f * y * y) + 2.0f * c.p2 * x * y;
}

void undistort(const CameraIntrinsics& c, float xd, float yd, float& x, float& y) {
    x = xd;
    y = yd;
    if (c.k1 == 0 && c.k2 == 0 && c.p1 == 0 && c.p2 == 0) return;
    for (int it = 0; it < 20; ++it) {
        const float r2 = x * x + y * y;
        const float radial = 1.0f + c.k1 * r2 + c.k2 * r2 * r2;
        const float tx = 2.0f * c.p1 * x * y + c.p2 * (r2 + 2.0f * x * x);
        const float ty = c.p1 * (r2 + 2.0f * y * y) + 2.0f * c.p2 * x * y;
        x = (xd - tx) / radial;
        y = (yd - ty) / radial;
    }
}

Ray camera_ray(const CameraIntrinsics& camera, const std::array<float, 16>& m,
               const SceneTransform& scene, float px, float py) {
    float x, y;
    undistort(camera, (px - camera.cx) / camera.fl_x, (py - camera.cy) / camera.fl_y, x, y);
    // OpenGL camera: image right = +x, image down = -y, forward = -z.
    const float cx = x, cy = -y, cz = -1.0f;
    Vec3 d{m[0] * cx + m[1] * cy + m[2] * cz, m[4] * cx + m[5] * cy + m[6] * cz,
           m[8] * cx + m[9] * cy + m[10] * cz};
    const float inv = 1.0f / std::sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
    Ray r;
    r.direction = {d.x * inv, d.y * inv, d.z * inv};
    r.origin = {m[3] * scene.scale + scene.offset.x, m[7] * scene.scale + scene.offset.y,
                m[11] * scene.scale + scene.offset.z};
    return r;
}

}  // namespace radiant
