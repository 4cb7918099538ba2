#include "nerf/render_view.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace radiant {

namespace {
constexpr size_t kTile = 256;
constexpr size_t kSegment = 24;           // samples per ray per round
constexpr float kMinTransmittance = 1e-4f;  // as in training (volume_render.h)

// Per-thread buffers for one image row: every pixel's samples back to back.
struct RowBuffers {
    NerfField::Workspace ws;
    std::vector<RaySample> march;
    std::vector<uint32_t> begin, next;
    std::vector<float> T, rgb_acc;
    std::vector<uint32_t> active, seg_begin;
    SampleArrays samples;                         // all samples of the row
    AlignedVector<float> gpos, gdir, sigma, rgb;  // one round's gathered samples
};

template <class V>
void ensure(V& v, size_t n) {
    if (v.size() < n) v.resize(n + n / 2);
}
}  // namespace

// Rows are marched whole, then evaluated in rounds: each round runs the field on the next few
// samples of every ray that is still visible, in full tiles across pixels, and rays stop once
// their transmittance falls below 1e-4, so samples hidden behind surfaces are never evaluated.
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
        const size_t W = size_t(camera.width);
        b.begin.assign(1, 0);
        size_t n = 0;
        for (size_t x = 0; x < W; ++x) {
            const Ray ray = camera_ray(camera, pose, model.config().scene, x + 0.5f, y + 0.5f);
            const size_t m = march_ray(ray, model.grid(), march, b.march.data());
            n = b.samples.put(ray, b.march.data(), m, n);
            b.begin.push_back(uint32_t(n));
        }
        b.next.assign(b.begin.begin(), b.begin.end() - 1);
        b.T.assign(W, 1.0f);
        b.rgb_acc.assign(3 * W, 0.0f);
        b.active.clear();
        for (uint32_t x = 0; x < W; ++x)
            if (b.begin[x + 1] > b.begin[x]) b.active.push_back(x);
        while (!b.active.empty()) {
            // Gather the next segment of every active ray.
            b.seg_begin.assign(1, 0);
            size_t g = 0;
            for (uint32_t x : b.active) {
                const size_t s0 = b.next[x], m = std::min<size_t>(kSegment, b.begin[x + 1] - s0);
                ensure(b.gpos, 3 * (g + m));
                ensure(b.gdir, 3 * (g + m));
                std::copy_n(&b.samples.pos[3 * s0], 3 * m, &b.gpos[3 * g]);
                std::copy_n(&b.samples.dir[3 * s0], 3 * m, &b.gdir[3 * g]);
                g += m;
                b.seg_begin.push_back(uint32_t(g));
            }
            ensure(b.sigma, g);
            ensure(b.rgb, 3 * g);
            for (size_t i0 = 0; i0 < g; i0 += kTile) {
                const size_t nt = std::min(kTile, g - i0);
                field.forward(model.params().data(), model.packed(), &b.gpos[3 * i0], &b.gdir[3 * i0], nt, b.ws,
                              &b.sigma[i0], &b.rgb[3 * i0]);
            }
            // Composite front to back, continuing each ray's transmittance.
            size_t kept = 0;
            for (size_t a = 0; a < b.active.size(); ++a) {
                const uint32_t x = b.active[a];
                float T = b.T[x];
                float* acc = &b.rgb_acc[3 * x];
                const size_t s0 = b.next[x];
                size_t i = b.seg_begin[a];
                for (; i < b.seg_begin[a + 1] && T >= kMinTransmittance; ++i) {
                    const float alpha = 1.0f - std::exp(-b.sigma[i] * b.samples.dt[s0 + i - b.seg_begin[a]]);
                    const float w = T * alpha;
                    for (int k = 0; k < 3; ++k) acc[k] += w * b.rgb[3 * i + k];
                    T *= 1.0f - alpha;
                }
                b.T[x] = T;
                b.next[x] = uint32_t(s0 + (b.seg_begin[a + 1] - b.seg_begin[a]));
                if (T >= kMinTransmittance && b.next[x] < b.begin[x + 1]) b.active[kept++] = x;
            }
            b.active.resize(kept);
        }
        for (size_t x = 0; x < W; ++x)
            for (int k = 0; k < 3; ++k)
                out.at(int(x), int(y), k) = std::clamp(b.rgb_acc[3 * x + k] + b.T[x] * background[k], 0.0f, 1.0f);
    });
    return out;
}

}  // namespace radiant
