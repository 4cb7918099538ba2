#include "nerf/render_view.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace radiant {

namespace {
constexpr size_t kTile = 256;
constexpr size_t kSegment = 24;             // samples per ray per round
constexpr float kMinTransmittance = 1e-4f;  // as in training (volume_render.h)

// Per-thread state for one image row.
struct RowBuffers {
    NerfField::Workspace ws;
    std::vector<RaySample> march;
    std::vector<Ray> rays;
    std::vector<MarchCursor> cursors;
    std::vector<float> T, rgb_acc, depth_acc;
    std::vector<uint32_t> active, seg_begin;
    SampleArrays samples;                // one round's samples, all active rays back to back
    AlignedVector<float> sigma, rgb;
};
}  // namespace

// A row is rendered in rounds: each round marches the next few samples of every ray that is
// still visible, runs the field on all of them in full tiles across pixels, and composites
// them front to back. A ray stops once its transmittance falls below 1e-4, so samples hidden
// behind surfaces are neither marched nor evaluated.
ImageF render_view(const NerfModel& model, const CameraIntrinsics& camera,
                   const std::array<float, 16>& pose, const float background[3], ThreadPool& pool,
                   ViewExtras* extras, const std::function<bool()>& cancelled) {
    ImageF out(camera.width, camera.height, 3);
    if (extras) {
        extras->opacity = ImageF(camera.width, camera.height, 1);
        extras->depth = ImageF(camera.width, camera.height, 1);
    }
    const NerfField& field = model.field();
    const MarchConfig& march = model.config().march;
    std::vector<RowBuffers> buffers(size_t(pool.size()));
    for (auto& b : buffers) {
        b.ws = field.make_workspace(kTile);
        b.march.resize(kSegment);
    }
    pool.parallel_for(size_t(camera.height), [&](size_t y, int t) {
        if (cancelled && cancelled()) return;
        RowBuffers& b = buffers[size_t(t)];
        const size_t W = size_t(camera.width);
        b.rays.resize(W);
        b.cursors.assign(W, MarchCursor{});
        b.T.assign(W, 1.0f);
        b.rgb_acc.assign(3 * W, 0.0f);
        b.depth_acc.assign(W, 0.0f);
        b.active.resize(W);
        for (size_t x = 0; x < W; ++x) {
            b.rays[x] = camera_ray(camera, pose, model.config().scene, x + 0.5f, y + 0.5f);
            b.active[x] = uint32_t(x);
        }
        while (!b.active.empty()) {
            b.seg_begin.assign(1, 0);
            size_t g = 0;
            for (uint32_t x : b.active) {
                const size_t m = march_ray_segment(b.rays[x], model.grid(), march, b.cursors[x], kSegment, b.march.data());
                g = b.samples.put(b.rays[x], b.march.data(), m, g);
                b.seg_begin.push_back(uint32_t(g));
            }
            if (b.sigma.size() < g) b.sigma.resize(g + g / 2), b.rgb.resize(3 * (g + g / 2));
            for (size_t i0 = 0; i0 < g; i0 += kTile) {
                const size_t nt = std::min(kTile, g - i0);
                field.forward(model.params().data(), model.packed(), &b.samples.pos[3 * i0], &b.samples.dir[3 * i0],
                              nt, b.ws, &b.sigma[i0], &b.rgb[3 * i0]);
            }
            size_t kept = 0;
            for (size_t a = 0; a < b.active.size(); ++a) {
                const uint32_t x = b.active[a];
                float T = b.T[x];
                float* acc = &b.rgb_acc[3 * x];
                const Ray& ray = b.rays[x];
                for (size_t i = b.seg_begin[a]; i < b.seg_begin[a + 1] && T >= kMinTransmittance; ++i) {
                    const float alpha = 1.0f - std::exp(-b.sigma[i] * b.samples.dt[i]);
                    const float w = T * alpha;
                    for (int k = 0; k < 3; ++k) acc[k] += w * b.rgb[3 * i + k];
                    if (extras) {
                        const float* p = &b.samples.pos[3 * i];
                        b.depth_acc[x] += w * ((p[0] - ray.origin.x) * ray.direction.x + (p[1] - ray.origin.y) * ray.direction.y +
                                               (p[2] - ray.origin.z) * ray.direction.z);
                    }
                    T *= 1.0f - alpha;
                }
                b.T[x] = T;
                if (T >= kMinTransmittance && !b.cursors[x].done) b.active[kept++] = x;
            }
            b.active.resize(kept);
        }
        for (size_t x = 0; x < W; ++x) {
            for (int k = 0; k < 3; ++k)
                out.at(int(x), int(y), k) = std::clamp(b.rgb_acc[3 * x + k] + b.T[x] * background[k], 0.0f, 1.0f);
            if (extras) {
                const float opacity = 1.0f - b.T[x];
                extras->opacity.at(int(x), int(y), 0) = opacity;
                extras->depth.at(int(x), int(y), 0) = opacity > 1e-6f ? b.depth_acc[x] / opacity : 0.0f;
            }
        }
    });
    return out;
}

}  // namespace radiant
