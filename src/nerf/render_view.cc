#include "nerf/render_view.h"

#include <algorithm>
#include <vector>

#include "nerf/volume_render.h"

namespace radiant {

namespace {
constexpr size_t kTile = 256;

// Per-thread buffers for one image row: every pixel's samples back to back, so the field runs
// on full tiles across pixels instead of one short ray at a time.
struct RowBuffers {
    NerfField::Workspace ws;
    std::vector<RaySample> march;
    std::vector<uint32_t> begin;
    AlignedVector<float> pos, dir, sigma, rgb, dt;
};
}  // namespace

ImageF render_view(const NerfModel& model, const CameraIntrinsics& camera,
                   const std::array<float, 16>& pose, const float background[3], ThreadPool& pool) {
    ImageF out(camera.width, camera.height, 3);
    const NerfField& field = model.field();
    const MarchConfig& march = model.config().march;
    std::vector<RowBuffers> buffers(size_t(pool.size()));
    for (auto& b : buffers) {
        b.ws = field.make_workspace(kTile);
        b.march.resize(march.max_samples);
    }
    pool.parallel_for(size_t(camera.height), [&](size_t y, int t) {
        RowBuffers& b = buffers[size_t(t)];
        b.begin.assign(1, 0);
        size_t n = 0;
        for (int x = 0; x < camera.width; ++x) {
            const Ray ray = camera_ray(camera, pose, model.config().scene, x + 0.5f, y + 0.5f);
            const size_t m = march_ray(ray, model.grid(), march, b.march.data());
            if (b.pos.size() < 3 * (n + m)) {
                const size_t cap = 3 * std::max(2 * (n + m), size_t(4096));
                b.pos.resize(cap), b.dir.resize(cap), b.rgb.resize(cap);
                b.sigma.resize(cap / 3), b.dt.resize(cap / 3);
            }
            for (size_t s = 0; s < m; ++s) {
                const RaySample& rs = b.march[s];
                float* p = &b.pos[3 * (n + s)];
                float* d = &b.dir[3 * (n + s)];
                p[0] = rs.position.x, p[1] = rs.position.y, p[2] = rs.position.z;
                d[0] = ray.direction.x, d[1] = ray.direction.y, d[2] = ray.direction.z;
                b.dt[n + s] = rs.dt;
            }
            n += m;
            b.begin.push_back(uint32_t(n));
        }
        for (size_t i0 = 0; i0 < n; i0 += kTile) {
            const size_t nt = std::min(kTile, n - i0);
            field.forward(model.params().data(), model.packed(), &b.pos[3 * i0], &b.dir[3 * i0], nt,
                          b.ws, &b.sigma[i0], &b.rgb[3 * i0]);
        }
        for (int x = 0; x < camera.width; ++x) {
            const size_t s0 = b.begin[size_t(x)], m = b.begin[size_t(x) + 1] - s0;
            const CompositeResult cr = composite_forward(b.sigma.data() + s0, b.rgb.data() + 3 * s0,
                                                         b.dt.data() + s0, m, background);
            for (int k = 0; k < 3; ++k) out.at(x, int(y), k) = std::clamp(cr.rgb[k], 0.0f, 1.0f);
        }
    });
    return out;
}

}  // namespace radiant
