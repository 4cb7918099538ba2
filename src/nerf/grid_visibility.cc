#include "nerf/grid_visibility.h"

#include <algorithm>
#include <cmath>

namespace radiant {

namespace {

Vec3 column(const std::array<float, 16>& m, int c) {
    Vec3 v{m[size_t(c)], m[size_t(4 + c)], m[size_t(8 + c)]};
    const float n = std::sqrt(v.x * v.x + v.y * v.y + v.z * v.z);
    return n > 0 ? Vec3{v.x / n, v.y / n, v.z / n} : v;
}

float dot(const Vec3& a, const Vec3& b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
Vec3 sub(const Vec3& a, const Vec3& b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
Vec3 axpy(float s, const Vec3& a, const Vec3& b) { return {s * a.x + b.x, s * a.y + b.y, s * a.z + b.z}; }

// The five planes a frustum's inside lies on the positive side of (unit normals through the
// camera centre): forward (the near plane) and the four sides.
struct FrustumPlanes {
    Vec3 origin;
    std::array<Vec3, 5> normals;
    bool everything = false;
};

FrustumPlanes planes_of(const ViewFrustum& f) {
    FrustumPlanes p;
    p.origin = f.origin;
    p.everything = f.sees_everything;
    // x / z >= x_lo  <=>  (right - x_lo forward) . v >= 0, and so on.
    auto side = [&](float s, const Vec3& axis, float bound) {
        const Vec3 n = axpy(-bound * s, f.forward, Vec3{s * axis.x, s * axis.y, s * axis.z});
        const float len = std::sqrt(dot(n, n));
        return Vec3{n.x / len, n.y / len, n.z / len};
    };
    p.normals = {f.forward, side(1, f.right, f.x_lo), side(-1, f.right, f.x_hi), side(1, f.down, f.y_lo),
                 side(-1, f.down, f.y_hi)};
    return p;
}

bool meets(const FrustumPlanes& p, const Vec3& centre, float radius) {
    if (p.everything) return true;
    const Vec3 v = sub(centre, p.origin);
    for (const Vec3& n : p.normals)
        if (dot(v, n) < -radius) return false;
    return true;
}

}  // namespace

ViewFrustum view_frustum(const CameraIntrinsics& camera, const std::array<float, 16>& m, const SceneTransform& scene) {
    ViewFrustum f;
    f.origin = camera_origin(m, scene);
    // OpenGL camera axes: +x right, +y up, -z forward.
    const Vec3 x = column(m, 0), y = column(m, 1), z = column(m, 2);
    f.right = x;
    f.down = {-y.x, -y.y, -y.z};
    f.forward = {-z.x, -z.y, -z.z};
    // Bounds of the normalised coordinates over the image's border: with distortion the border
    // bends, and its extremes bound every pixel inside it.
    constexpr int kPerEdge = 64;
    bool first = true;
    auto take = [&](float px, float py) {
        const Vec3 d = pixel_direction(camera, px, py);
        if (!(d.z > 0.05f) || !std::isfinite(d.x) || !std::isfinite(d.y)) {
            f.sees_everything = true;
            return;
        }
        const float u = d.x / d.z, v = d.y / d.z;
        f.x_lo = first ? u : std::min(f.x_lo, u), f.x_hi = first ? u : std::max(f.x_hi, u);
        f.y_lo = first ? v : std::min(f.y_lo, v), f.y_hi = first ? v : std::max(f.y_hi, v);
        first = false;
    };
    const float w = float(camera.width), h = float(camera.height);
    for (int i = 0; i <= kPerEdge; ++i) {
        const float s = float(i) / kPerEdge;
        take(s * w, 0), take(s * w, h), take(0, s * h), take(w, s * h);
    }
    // A pixel's worth of slack on every side, for the rounding of the border's samples.
    const float slack_x = 1.0f / std::max(camera.fl_x, 1.0f), slack_y = 1.0f / std::max(camera.fl_y, 1.0f);
    f.x_lo -= slack_x, f.x_hi += slack_x, f.y_lo -= slack_y, f.y_hi += slack_y;
    return f;
}

bool frustum_meets_sphere(const ViewFrustum& f, const Vec3& centre, float radius) {
    return meets(planes_of(f), centre, radius);
}

std::vector<uint8_t> cells_seen_by(const OccupancyGrid& grid, const std::vector<ViewFrustum>& views,
                                   ThreadPool& pool) {
    std::vector<FrustumPlanes> planes;
    planes.reserve(views.size());
    for (const ViewFrustum& f : views) planes.push_back(planes_of(f));
    const int R = grid.config().resolution, K = grid.config().n_cascades;
    const size_t cells = grid.cells_per_cascade();
    std::vector<uint8_t> seen(grid.n_cells(), 0);
    // One z-slab of one cascade per task. The view that saw the previous cell is tried first:
    // neighbouring cells are mostly seen by the same view.
    pool.parallel_for_dynamic(size_t(K) * size_t(R), [&](size_t task, int) {
        const int k = int(task / size_t(R)), z = int(task % size_t(R));
        const float size = float(1 << k), lo = 0.5f - 0.5f * size, step = size / float(R);
        const float radius = 0.5f * std::sqrt(3.0f) * step;
        size_t last = 0;
        for (int y = 0; y < R; ++y)
            for (int x = 0; x < R; ++x) {
                const Vec3 c{lo + (float(x) + 0.5f) * step, lo + (float(y) + 0.5f) * step, lo + (float(z) + 0.5f) * step};
                uint8_t hit = 0;
                for (size_t i = 0; i < planes.size() && !hit; ++i) {
                    const size_t v = (last + i) % planes.size();
                    if (meets(planes[v], c, radius)) hit = 1, last = v;
                }
                seen[size_t(k) * cells + (size_t(z) * size_t(R) + size_t(y)) * size_t(R) + size_t(x)] = hit;
            }
    });
    return seen;
}

}  // namespace radiant
