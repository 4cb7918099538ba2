#include "nerf/render_view.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "scene/composite.h"

namespace radiant {

namespace {
constexpr size_t kTile = 256;
// Samples each ray marches per round. Rounds of 8, 16, then 32 evaluated 7.1 M densities for
// a lego-800 frame, 2.2 M of them behind where their ray had already turned opaque; rounds of
// 8 throughout evaluate 5.7 M, the same pixels, ~12% faster (4 and 6 measured alike).
constexpr size_t kSegment = 8;
// Pixels per side of the square blocks threads take (16 to 32 measured alike on lego-800; 64
// and whole rows were slower, 128 much slower: its rounds' buffers outgrow the caches).
constexpr size_t kBlock = 32;

// Per-thread state for one block of pixels.
struct BlockBuffers {
    NerfField::Workspace ws;
    std::vector<RaySample> march;
    std::vector<Ray> rays;
    std::vector<MarchCursor> cursors;
    std::vector<float> T, rgb_acc, depth_acc;
    std::vector<float> T_before_far;  // T where the ray reached an unbounded scene's far sample
    std::vector<uint32_t> active, seg_begin;
    SampleBatch samples;       // one round's samples, all active rays back to back
    AlignedVector<float> enc;  // the round's encoding
    AlignedVector<float> sigma, geometry;
    std::vector<uint32_t> lit, lit_ray;  // samples that get a colour, and their pixels
    std::vector<float> lit_weight;
    AlignedVector<float> tile_geometry, tile_dir, tile_rgb;
};
}  // namespace

// A block is rendered in rounds: each round marches the next few samples of every ray that is
// still visible (8 at a time: most rays end within a few samples of reaching a surface),
// evaluates the density of all of them in full tiles across pixels, composites front to back,
// and only then runs the colour MLP, on the samples in front of where each ray became opaque
// (a skip of colour for low-weight samples was tried: no measurable gain). A ray stops once its
// transmittance falls below 1e-2, so samples hidden behind surfaces are neither marched nor
// evaluated, and its colour is normalised by the opacity it gathered (kRenderOpaqueTransmittance).
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
    const EncodingFrame frame = field.encoding_frame();
    const size_t G = size_t(field.config().geometry_features),
                 E = size_t(field.grid().n_output_dims());
    std::vector<BlockBuffers> buffers(size_t(pool.size()));
    for (auto& b : buffers) {
        b.ws = field.make_workspace(kTile);
        b.march.resize(kSegment);
        b.tile_geometry.resize(kTile * G);
        b.tile_dir.resize(kTile * 3);
        b.tile_rgb.resize(kTile * 3);
    }
    // Pixels are rendered in square blocks: neighbouring rays in both directions share hash
    // entries and grid cells, so a block's samples reuse cache lines that a whole row would
    // have evicted. Blocks differ in cost (sky against model): threads take the next as they
    // finish.
    const size_t blocks_x = (size_t(camera.width) + kBlock - 1) / kBlock;
    const size_t blocks_y = (size_t(camera.height) + kBlock - 1) / kBlock;
    pool.parallel_for_dynamic(blocks_x * blocks_y, [&](size_t block, int t) {
        if (cancelled && cancelled()) return;
        BlockBuffers& b = buffers[size_t(t)];
        const size_t x0 = (block % blocks_x) * kBlock, y0 = (block / blocks_x) * kBlock;
        const size_t bw = std::min(kBlock, size_t(camera.width) - x0),
                     bh = std::min(kBlock, size_t(camera.height) - y0);
        const size_t W = bw * bh;
        auto pixel_x = [&](size_t x) { return x0 + x % bw; };  // block-local index x -> image pixel
        auto pixel_y = [&](size_t x) { return y0 + x / bw; };
        b.rays.resize(W);
        b.cursors.assign(W, MarchCursor{});
        b.T.assign(W, 1.0f);
        b.rgb_acc.assign(3 * W, 0.0f);
        b.depth_acc.assign(W, 0.0f);
        b.T_before_far.assign(W, -1.0f);
        b.active.resize(W);
        for (size_t x = 0; x < W; ++x) {
            b.rays[x] = camera_ray(camera, pose, model.config().scene, float(pixel_x(x)) + 0.5f,
                                   float(pixel_y(x)) + 0.5f);
            b.active[x] = uint32_t(x);
        }
        while (!b.active.empty()) {
            b.seg_begin.assign(1, 0);
            b.samples.clear();
            for (uint32_t x : b.active) {
                const size_t m = march_ray_segment(b.rays[x], model.grid(), march, b.cursors[x],
                                                   kSegment, b.march.data());
                b.samples.append(x, b.march.data(), m, frame);
                b.seg_begin.push_back(uint32_t(b.samples.size()));
            }
            const size_t g = b.samples.size();
            const SampleSpan s = b.samples.span();
            if (b.sigma.size() < g) {
                const size_t cap = g + g / 2;
                b.sigma.resize(cap), b.geometry.resize(G * cap), b.enc.resize(E * cap);
            }
            // The round's encoding level by level (each table stays in cache for the whole
            // round), then the density MLP tile by tile.
            field.grid().forward_levels(model.params().data(), s.pos, g, b.enc.data(), g, 0,
                                        field.grid().config().n_levels);
            for (size_t i0 = 0; i0 < g; i0 += kTile)
                field.density_encoded(model.packed(), &b.enc[i0], g, std::min(kTile, g - i0), b.ws,
                                      &b.sigma[i0], &b.geometry[G * i0]);
            // Front to back: transmittance, depth, and which samples need a colour.
            b.lit.clear();
            b.lit_ray.clear();
            b.lit_weight.clear();
            size_t kept = 0;
            for (size_t a = 0; a < b.active.size(); ++a) {
                const uint32_t x = b.active[a];
                Transmittance T{b.T[x]};
                for (size_t i = b.seg_begin[a];
                     i < b.seg_begin[a + 1] && T.visible(kRenderOpaqueTransmittance); ++i) {
                    // The far sample is the background: not in depth nor opacity.
                    const bool far = is_far_sample(s.dt[i]);
                    if (far) b.T_before_far[x] = T.value;
                    const float w = T.absorb(b.sigma[i], s.dt[i]);
                    b.lit.push_back(uint32_t(i));
                    b.lit_ray.push_back(x);
                    b.lit_weight.push_back(w);
                    if (extras && !far) b.depth_acc[x] += w * s.t[i];
                }
                b.T[x] = T.value;
                if (T.visible(kRenderOpaqueTransmittance) && !b.cursors[x].done)
                    b.active[kept++] = x;
            }
            b.active.resize(kept);
            // Colours of the samples that count, in full tiles.
            for (size_t j0 = 0; j0 < b.lit.size(); j0 += kTile) {
                const size_t nt = std::min(kTile, b.lit.size() - j0);
                for (size_t j = 0; j < nt; ++j) {
                    const size_t i = b.lit[j0 + j];
                    std::copy_n(&b.geometry[G * i], G, &b.tile_geometry[G * j]);
                    const Vec3& d = b.rays[s.ray[i]].direction;
                    b.tile_dir[3 * j] = d.x, b.tile_dir[3 * j + 1] = d.y,
                                   b.tile_dir[3 * j + 2] = d.z;
                }
                field.color(model.packed(), b.tile_geometry.data(), b.tile_dir.data(), nt, b.ws,
                            b.tile_rgb.data());
                for (size_t j = 0; j < nt; ++j) {
                    float* acc = &b.rgb_acc[3 * b.lit_ray[j0 + j]];
                    const float w = b.lit_weight[j0 + j];
                    for (int k = 0; k < 3; ++k) acc[k] += w * b.tile_rgb[3 * j + k];
                }
            }
        }
        for (size_t x = 0; x < W; ++x) {
            const int px = int(pixel_x(x)), py = int(pixel_y(x));
            // An opaque ray: what it gathered, as if the rest of its weight had the same colour.
            const bool opaque = b.T[x] < kRenderOpaqueTransmittance;
            const float scale = opaque ? 1.0f / (1.0f - b.T[x]) : 1.0f, T = opaque ? 0.0f : b.T[x];
            for (int k = 0; k < 3; ++k)
                out.at(px, py, k) =
                    std::clamp(scale * b.rgb_acc[3 * x + k] + T * background[k], 0.0f, 1.0f);
            if (extras) {
                // Of the scene alone: an unbounded scene's background does not count.
                const bool far = b.T_before_far[x] >= 0.0f;
                const float T_scene = far ? b.T_before_far[x] : b.T[x];
                extras->opacity.at(px, py, 0) = 1.0f - (far ? T_scene : T);
                extras->depth.at(px, py, 0) =
                    T_scene < 1.0f - 1e-6f ? b.depth_acc[x] / (1.0f - T_scene) : 0.0f;
            }
        }
    });
    return out;
}

}  // namespace radiant
