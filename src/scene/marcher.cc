#include "scene/marcher.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace radiant {

bool intersect_box(const Ray& ray, float lo, float hi, float& t_enter, float& t_exit) {
    const float o[3] = {ray.origin.x, ray.origin.y, ray.origin.z};
    const float d[3] = {ray.direction.x, ray.direction.y, ray.direction.z};
    t_enter = 0.0f;
    t_exit = std::numeric_limits<float>::infinity();
    for (int a = 0; a < 3; ++a) {
        if (std::abs(d[a]) < 1e-12f) {
            if (o[a] < lo || o[a] > hi) return false;
            continue;
        }
        float t0 = (lo - o[a]) / d[a], t1 = (hi - o[a]) / d[a];
        if (t0 > t1) std::swap(t0, t1);
        t_enter = std::max(t_enter, t0);
        t_exit = std::min(t_exit, t1);
    }
    return t_enter < t_exit;
}

namespace {
// Distance along the ray to the far side of the box [lo, hi] from the point at t.
float exit_distance(const Ray& r, const Vec3& lo, const Vec3& hi) {
    const float o[3] = {r.origin.x, r.origin.y, r.origin.z};
    const float d[3] = {r.direction.x, r.direction.y, r.direction.z};
    const float l[3] = {lo.x, lo.y, lo.z}, h[3] = {hi.x, hi.y, hi.z};
    float t = std::numeric_limits<float>::infinity();
    for (int a = 0; a < 3; ++a) {
        if (d[a] > 1e-12f)
            t = std::min(t, (h[a] - o[a]) / d[a]);
        else if (d[a] < -1e-12f)
            t = std::min(t, (l[a] - o[a]) / d[a]);
    }
    return t;
}
}  // namespace

size_t march_ray_segment(const Ray& ray, const OccupancyGrid& grid, const MarchConfig& cfg,
                         MarchCursor& cursor, size_t max_count, RaySample* out) {
    const int K = grid.config().n_cascades;
    // The ray left the grid: done, but for the far sample of an unbounded scene.
    auto leave_grid = [&] {
        cursor.done = true;
        cursor.far_due = cfg.far_sample && cursor.emitted < cfg.max_samples;
    };
    if (!cursor.started) {
        cursor.started = true;
        const float half = 0.5f * float(1 << (K - 1));
        if (!intersect_box(ray, 0.5f - half, 0.5f + half, cursor.t, cursor.t_end)) leave_grid();
    }
    const int R = grid.config().resolution, B = grid.block_size();
    float t = cursor.t;
    size_t count = 0;
    while (!cursor.done && count < max_count) {
        if (cursor.emitted >= cfg.max_samples) {
            cursor.done = true;
            break;
        }
        if (t >= cursor.t_end) {
            leave_grid();
            break;
        }
        const Vec3 p{ray.origin.x + t * ray.direction.x, ray.origin.y + t * ray.direction.y,
                     ray.origin.z + t * ray.direction.z};
        const int k = grid.cascade_of(p);
        if (k >= K) {
            leave_grid();
            break;
        }
        const float size = float(1 << k), origin = 0.5f - 0.5f * size, cell_size = size / float(R);
        const auto [x, y, z] = grid.cell_coords(p, k);
        // Step: min_step, growing with distance, capped at this cascade's cell size.
        const float dt =
            std::clamp(t * cfg.cone_angle, cfg.min_step, std::max(cfg.min_step, cell_size));
        const int radius = grid.empty_radius(k, x, y, z);
        if (radius == 0) {  // occupied
            out[count++] = {p, t, dt};
            ++cursor.emitted;
            t += dt;
            continue;
        }
        // Empty: jump to the exit of the empty cube of cells around this one (clamped to the
        // cascade), or of the cell's whole block when that is empty and reaches further (plus a
        // hair, so the next lookup lands in the next cell).
        const int r = radius - 1;
        const Vec3 lo{origin + float(std::max(x - r, 0)) * cell_size,
                      origin + float(std::max(y - r, 0)) * cell_size,
                      origin + float(std::max(z - r, 0)) * cell_size};
        const Vec3 hi{origin + float(std::min(x + r + 1, R)) * cell_size,
                      origin + float(std::min(y + r + 1, R)) * cell_size,
                      origin + float(std::min(z + r + 1, R)) * cell_size};
        float exit = exit_distance(ray, lo, hi);
        if (B > 1 && r + 1 < B && !grid.occupied_block(k, x / B, y / B, z / B)) {
            const int bx = x - x % B, by = y - y % B, bz = z - z % B;
            const Vec3 blo{origin + float(bx) * cell_size, origin + float(by) * cell_size,
                           origin + float(bz) * cell_size};
            const Vec3 bhi{blo.x + float(B) * cell_size, blo.y + float(B) * cell_size,
                           blo.z + float(B) * cell_size};
            exit = std::max(exit, exit_distance(ray, blo, bhi));
        }
        t = std::max(t + 1e-6f, exit + 1e-5f * cell_size);
    }
    cursor.t = t;
    if (cursor.far_due && count < max_count) {
        const float f = kFarSampleDistance;
        out[count++] = {{ray.origin.x + f * ray.direction.x, ray.origin.y + f * ray.direction.y,
                         ray.origin.z + f * ray.direction.z},
                        f,
                        kFarSampleStep};
        ++cursor.emitted;
        cursor.far_due = false;
    }
    return count;
}

size_t march_ray(const Ray& ray, const OccupancyGrid& grid, const MarchConfig& cfg,
                 RaySample* out) {
    MarchCursor cursor;
    return march_ray_segment(ray, grid, cfg, cursor, cfg.max_samples, out);
}

}  // namespace radiant
