#include "scene/grid_visibility.h"

#include <algorithm>
#include <cmath>

namespace radiant {

namespace {

Vec3 column(const std::array<float, 16>& m, int c, float sign) {
    return {sign * m[size_t(c)], sign * m[size_t(4 + c)], sign * m[size_t(8 + c)]};
}

float dot(const Vec3& a, const Vec3& b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
Vec3 cross(const Vec3& a, const Vec3& b) {
    return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
Vec3 sub(const Vec3& a, const Vec3& b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }

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
    if (p.everything) return p;
    // A point at w = A q from the centre, A = [right down forward], has camera coordinates q;
    // it is inside where n . q >= 0 for n = (0, 0, 1) (in front), (1, 0, -x_lo) (x/z >= x_lo),
    // and so on. In the unit-cube frame that plane's normal is A^-T n = (n.x (down x forward) +
    // n.y (forward x right) + n.z (right x down)) / det A.
    const Vec3 a = cross(f.down, f.forward), b = cross(f.forward, f.right),
               c = cross(f.right, f.down);
    const float det = dot(f.right, a);
    const float n_cam[5][3] = {
        {0, 0, 1}, {1, 0, -f.x_lo}, {-1, 0, f.x_hi}, {0, 1, -f.y_lo}, {0, -1, f.y_hi}};
    for (int i = 0; i < 5; ++i) {
        const float* n = n_cam[i];
        const Vec3 w{(n[0] * a.x + n[1] * b.x + n[2] * c.x) / det,
                     (n[0] * a.y + n[1] * b.y + n[2] * c.y) / det,
                     (n[0] * a.z + n[1] * b.z + n[2] * c.z) / det};
        const float len = std::sqrt(dot(w, w));
        if (!(len > 0) || !std::isfinite(len)) {  // a singular pose
            p.everything = true;
            return p;
        }
        p.normals[size_t(i)] = {w.x / len, w.y / len, w.z / len};
    }
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

void ViewFrustum::pack(float* out) const {
    const float v[kFloats] = {origin.x,
                              origin.y,
                              origin.z,
                              right.x,
                              right.y,
                              right.z,
                              down.x,
                              down.y,
                              down.z,
                              forward.x,
                              forward.y,
                              forward.z,
                              x_lo,
                              x_hi,
                              y_lo,
                              y_hi,
                              sees_everything ? 1.0f : 0.0f};
    std::copy_n(v, kFloats, out);
}

ViewFrustum ViewFrustum::unpack(const float* v) {
    ViewFrustum f;
    f.origin = {v[0], v[1], v[2]};
    f.right = {v[3], v[4], v[5]};
    f.down = {v[6], v[7], v[8]};
    f.forward = {v[9], v[10], v[11]};
    f.x_lo = v[12], f.x_hi = v[13], f.y_lo = v[14], f.y_hi = v[15];
    f.sees_everything = v[16] != 0;
    return f;
}

ViewFrustum view_frustum(const CameraIntrinsics& camera, const std::array<float, 16>& m,
                         const SceneTransform& scene) {
    ViewFrustum f;
    f.origin = camera_origin(m, scene);
    // As camera_ray: OpenCV's (x, y, 1) goes to x c0 - y c1 - c2 (OpenGL pose columns).
    f.right = column(m, 0, 1), f.down = column(m, 1, -1), f.forward = column(m, 2, -1);
    // Bounds of the normalised coordinates over the border and a lattice inside: with
    // distortion the border bends, and where the lens model does not invert (distorting the
    // direction does not give the pixel back) no bounds are trusted.
    constexpr int kSteps = 32;
    const bool check_inverse = !camera.fisheye;
    bool first = true;
    auto take = [&](float px, float py) {
        const Vec3 d = pixel_direction(camera, px, py);
        if (!(d.z > 0.05f) || !std::isfinite(d.x) || !std::isfinite(d.y)) {
            f.sees_everything = true;
            return;
        }
        const float u = d.x / d.z, v = d.y / d.z;
        if (check_inverse) {
            float ud, vd;
            distort(camera, u, v, ud, vd);
            if (!(std::abs(ud * camera.fl_x + camera.cx - px) < 0.5f &&
                  std::abs(vd * camera.fl_y + camera.cy - py) < 0.5f))
                f.sees_everything = true;
        }
        f.x_lo = first ? u : std::min(f.x_lo, u), f.x_hi = first ? u : std::max(f.x_hi, u);
        f.y_lo = first ? v : std::min(f.y_lo, v), f.y_hi = first ? v : std::max(f.y_hi, v);
        first = false;
    };
    const float w = float(camera.width), h = float(camera.height);
    for (int j = 0; j <= kSteps; ++j)
        for (int i = 0; i <= kSteps; ++i) take(w * float(i) / kSteps, h * float(j) / kSteps);
    // A pixel's worth of slack on every side, for the spacing of the samples.
    const float slack_x = 1.0f / std::max(camera.fl_x, 1.0f),
                slack_y = 1.0f / std::max(camera.fl_y, 1.0f);
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
    const int B = R % 8 == 0 ? 8 : 1, n = R / B;  // blocks of B^3 cells
    const size_t cells = grid.cells_per_cascade();
    std::vector<uint8_t> seen(grid.n_cells(), 0);
    // One block per task: the views that meet the block's sphere first, then each cell against
    // those only (the unseen cells of a large grid would otherwise try every view). The view
    // that saw the previous cell is tried first: neighbouring cells share views.
    pool.parallel_for_dynamic(size_t(K) * size_t(n) * size_t(n) * size_t(n), [&](size_t task, int) {
        const int k = int(task / (size_t(n) * n * n));
        const int bz = int(task / (size_t(n) * n) % size_t(n)),
                  by = int(task / size_t(n) % size_t(n)), bx = int(task % size_t(n));
        const float size = float(1 << k), lo = 0.5f - 0.5f * size, step = size / float(R);
        const float cell_radius = 0.5f * std::sqrt(3.0f) * step,
                    block_radius = float(B) * cell_radius;
        const Vec3 block_centre{lo + (float(bx) + 0.5f) * float(B) * step,
                                lo + (float(by) + 0.5f) * float(B) * step,
                                lo + (float(bz) + 0.5f) * float(B) * step};
        std::vector<uint32_t> near;
        for (size_t v = 0; v < planes.size(); ++v)
            if (meets(planes[v], block_centre, block_radius)) near.push_back(uint32_t(v));
        if (near.empty()) return;
        size_t last = 0;
        for (int z = bz * B; z < (bz + 1) * B; ++z)
            for (int y = by * B; y < (by + 1) * B; ++y)
                for (int x = bx * B; x < (bx + 1) * B; ++x) {
                    const Vec3 c{lo + (float(x) + 0.5f) * step, lo + (float(y) + 0.5f) * step,
                                 lo + (float(z) + 0.5f) * step};
                    uint8_t hit = 0;
                    for (size_t i = 0; i < near.size() && !hit; ++i) {
                        const size_t v = (last + i) % near.size();
                        if (meets(planes[near[v]], c, cell_radius)) hit = 1, last = v;
                    }
                    seen[size_t(k) * cells + (size_t(z) * size_t(R) + size_t(y)) * size_t(R) +
                         size_t(x)] = hit;
                }
    });
    return seen;
}

}  // namespace radiant
