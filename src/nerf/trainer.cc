#include "nerf/trainer.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/error.h"
#include "core/rng.h"
#include "nerf/volume_render.h"

namespace radiant {

NerfTrainer::NerfTrainer(const ImageSet& images, const SceneTransform& scene,
                         const NerfTrainConfig& config, ThreadPool& pool)
    : m_images(images),
      m_scene(scene),
      m_config(config),
      m_pool(pool),
      m_field(config.field),
      m_grid([&] {
          OccupancyGridConfig g;
          g.resolution = config.grid_resolution;
          g.n_cascades = OccupancyGridConfig::cascades_for_aabb_scale(config.field.aabb_scale);
          // Occupied = optical thickness over one minimal step above 0.01 (instant-ngp).
          g.threshold = 0.01f / config.march.min_step;
          return g;
      }()),
      m_rays(config.initial_rays) {
    RD_CHECK(!images.images.empty());
    m_params.assign(m_field.n_params(), 0.0f);
    m_grads.assign(m_field.n_params(), 0.0f);
    m_packed.assign(m_field.packed_size(), 0.0f);
    Pcg32 rng(config.seed, 0);
    m_field.init_params(m_params.data(), rng);
    m_field.pack(m_params.data(), m_packed.data());
    const size_t d0 = m_field.density_offset();
    m_adam = std::make_unique<Adam>(
        config.adam,
        std::vector<ParamRange>{{0, d0, false, true}, {d0, m_field.n_params() - d0, true, false}},
        m_field.n_params());
    m_chunks.resize(kChunks);
    for (auto& c : m_chunks) c.grad.assign(m_field.n_params() - d0, 0.0f);
    for (int t = 0; t < pool.size(); ++t) m_ws.push_back(m_field.make_workspace(kTile));
    m_level_order = m_field.grid().balanced_level_order();
    update_grid();
}

void NerfTrainer::update_grid() {
    Pcg32 rng = stream_for(m_config.seed, m_step, 0xFFFFFFFFull);
    auto density = [&](const float* pos, size_t n, float* out) {
        const size_t tiles = (n + kTile - 1) / kTile;
        m_pool.parallel_for(tiles, [&](size_t tile, int t) {
            const size_t i0 = tile * kTile, nt = std::min(kTile, n - i0);
            m_field.density(m_params.data(), m_packed.data(), pos + 3 * i0, nt, m_ws[t], out + i0);
        });
    };
    m_grid.update(density, rng, m_step < uint64_t(m_config.grid_warmup_steps));
}

void NerfTrainer::run_chunk(size_t c, size_t ray_begin, size_t ray_end, int thread) {
    Chunk& ch = m_chunks[c];
    Pcg32 rng = stream_for(m_config.seed, m_step, c);
    const size_t max_per_ray = m_config.march.max_samples;
    const size_t budget = std::max<size_t>(4 * m_config.target_samples / kChunks, max_per_ray);
    ch.samples.resize(budget + max_per_ray);
    ch.ray_begin.clear();
    std::vector<float> targets, backgrounds, ray_dir;
    size_t n = 0;
    for (size_t r = ray_begin; r < ray_end; ++r) {
        const size_t img = rng.next_below(uint32_t(m_images.images.size()));
        const StagedImage& im = m_images.images[img];
        const float px = rng.next_float() * im.width, py = rng.next_float() * im.height;
        float bg[3] = {rng.next_float(), rng.next_float(), rng.next_float()};
        if (n >= budget) continue;  // budget spent: the ray is dropped (still drew its numbers)
        const uint8_t* p = m_images.pixel(img, std::min(int(px), im.width - 1), std::min(int(py), im.height - 1));
        const float a = p[3] / 255.0f;
        for (int k = 0; k < 3; ++k) {
            targets.push_back(p[k] / 255.0f + (1.0f - a) * bg[k]);
            backgrounds.push_back(bg[k]);
        }
        ch.ray_begin.push_back(uint32_t(n));
        const Ray ray = camera_ray(im.camera, im.camera_to_world, m_scene, px, py);
        ray_dir.insert(ray_dir.end(), {ray.direction.x, ray.direction.y, ray.direction.z});
        n += march_ray(ray, m_grid, m_config.march, ch.samples.data() + n);
    }
    ch.ray_begin.push_back(uint32_t(n));
    const size_t rays = ch.ray_begin.size() - 1;
    ch.rays = rays;
    const int E = m_field.grid().n_output_dims();
    ch.pos.resize(3 * n);
    ch.dir.resize(3 * n);
    ch.sigma.resize(n);
    ch.rgb.resize(3 * n);
    ch.d_sigma.resize(n);
    ch.d_rgb.resize(3 * n);
    ch.d_enc.resize(size_t(E) * n);
    ch.mapped.resize(3 * n);
    std::vector<float> dt(n);
    for (size_t r = 0; r < rays; ++r) {
        for (size_t s = ch.ray_begin[r]; s < ch.ray_begin[r + 1]; ++s) {
            const RaySample& rs = ch.samples[s];
            ch.pos[3 * s] = rs.position.x;
            ch.pos[3 * s + 1] = rs.position.y;
            ch.pos[3 * s + 2] = rs.position.z;
            for (int k = 0; k < 3; ++k) ch.dir[3 * s + k] = ray_dir[3 * r + k];
            dt[s] = rs.dt;
        }
    }
    NerfField::Workspace& ws = m_ws[thread];
    for (size_t i0 = 0; i0 < n; i0 += kTile) {
        const size_t nt = std::min(kTile, n - i0);
        m_field.forward(m_params.data(), m_packed.data(), &ch.pos[3 * i0], &ch.dir[3 * i0], nt, ws,
                        &ch.sigma[i0], &ch.rgb[3 * i0]);
    }
    // Composite, loss, compositing backward.
    const float grad_scale = 1.0f / float(std::max<size_t>(m_rays, 1) * 3);
    double loss = 0.0;
    for (size_t r = 0; r < rays; ++r) {
        const size_t s0 = ch.ray_begin[r], m = ch.ray_begin[r + 1] - s0;
        const float* bg = &backgrounds[3 * r];
        CompositeResult cr = composite_forward(&ch.sigma[s0], &ch.rgb[3 * s0], &dt[s0], m, bg);
        float d_color[3];
        loss += loss_and_gradient(m_config.loss, cr.rgb, &targets[3 * r], 3, grad_scale, d_color,
                                  KernelImpl::kScalar);
        composite_backward(&ch.sigma[s0], &ch.rgb[3 * s0], &dt[s0], m, bg, cr, d_color,
                           &ch.d_sigma[s0], &ch.d_rgb[3 * s0], nullptr);
    }
    ch.loss = loss;
    // Field backward per tile (forward re-run so the workspace holds the tile's activations).
    std::fill(ch.grad.begin(), ch.grad.end(), 0.0f);
    AlignedVector<float> d_enc_tile(kTile * E);
    for (size_t i0 = 0; i0 < n; i0 += kTile) {
        const size_t nt = std::min(kTile, n - i0);
        float sig[kTile], rgb[3 * kTile];
        m_field.forward(m_params.data(), m_packed.data(), &ch.pos[3 * i0], &ch.dir[3 * i0], nt, ws,
                        sig, rgb);
        m_field.backward(m_params.data(), m_packed.data(), &ch.d_sigma[i0], &ch.d_rgb[3 * i0], nt,
                         ws, ch.grad.data(), d_enc_tile.data());
        for (int k = 0; k < E; ++k)
            for (size_t i = 0; i < nt; ++i) ch.d_enc[size_t(k) * n + i0 + i] = d_enc_tile[i * E + k];
    }
    m_field.map_positions(ch.pos.data(), n, ch.mapped.data());
}

double NerfTrainer::step() {
    if (m_step > 0 && m_step % uint64_t(m_config.grid_update_interval) == 0) update_grid();
    parallel_chunks(m_pool, m_rays, kChunks, [&](size_t c, size_t b, size_t e, int t) {
        run_chunk(c, b, e, t);
    });
    // MLP gradients: chunks summed in order.
    const size_t d0 = m_field.density_offset(), nm = m_field.n_params() - d0;
    m_pool.parallel_ranges(nm, [&](size_t b, size_t e, int) {
        for (size_t j = b; j < e; ++j) {
            float acc = 0.0f;
            for (const Chunk& ch : m_chunks) acc += ch.grad[j];
            m_grads[d0 + j] = acc;
        }
    });
    // Hash tables: one level per task, chunks in order.
    m_pool.parallel_for(m_level_order.size(), [&](size_t i, int) {
        const int level = m_level_order[i];
        for (const Chunk& ch : m_chunks) {
            const size_t n = ch.sigma.size();
            if (n) m_field.grid().backward(ch.mapped.data(), n, ch.d_enc.data(), n, m_grads.data(), level, level + 1);
        }
    });
    m_adam->step(m_params.data(), m_grads.data(), m_pool);
    m_field.pack(m_params.data(), m_packed.data());
    ++m_step;

    double loss = 0.0;
    size_t rays = 0;
    m_samples = 0;
    for (const Chunk& ch : m_chunks) {
        loss += ch.loss;
        rays += ch.rays;
        m_samples += ch.sigma.size();
    }
    // Keep the sample count near its target.
    const double per_ray = double(std::max<size_t>(m_samples, 1)) / double(std::max<size_t>(rays, 1));
    // Grow at most 2x a step, and never past one ray per target sample.
    const size_t want = size_t(double(m_config.target_samples) / std::max(per_ray, 1.0));
    m_rays = std::clamp<size_t>(std::min(want, 2 * m_rays), kChunks, m_config.target_samples);
    return loss / double(std::max<size_t>(rays, 1) * 3);
}

ImageF NerfTrainer::render(const CameraIntrinsics& camera, const std::array<float, 16>& pose,
                           const float background[3]) {
    ImageF out(camera.width, camera.height, 3);
    m_pool.parallel_for(size_t(camera.height), [&](size_t y, int t) {
        NerfField::Workspace& ws = m_ws[t];
        std::vector<RaySample> samples(m_config.march.max_samples);
        std::vector<float> pos, dir, sigma, rgb, dt;
        for (int x = 0; x < camera.width; ++x) {
            const Ray ray = camera_ray(camera, pose, m_scene, x + 0.5f, y + 0.5f);
            const size_t n = march_ray(ray, m_grid, m_config.march, samples.data());
            pos.resize(3 * n), dir.resize(3 * n), sigma.resize(n), rgb.resize(3 * n), dt.resize(n);
            for (size_t s = 0; s < n; ++s) {
                pos[3 * s] = samples[s].position.x;
                pos[3 * s + 1] = samples[s].position.y;
                pos[3 * s + 2] = samples[s].position.z;
                dir[3 * s] = ray.direction.x;
                dir[3 * s + 1] = ray.direction.y;
                dir[3 * s + 2] = ray.direction.z;
                dt[s] = samples[s].dt;
            }
            for (size_t i0 = 0; i0 < n; i0 += kTile) {
                const size_t nt = std::min(kTile, n - i0);
                m_field.forward(m_params.data(), m_packed.data(), &pos[3 * i0], &dir[3 * i0], nt, ws,
                                &sigma[i0], &rgb[3 * i0]);
            }
            CompositeResult cr = composite_forward(sigma.data(), rgb.data(), dt.data(), n, background);
            for (int k = 0; k < 3; ++k) out.at(x, int(y), k) = std::clamp(cr.rgb[k], 0.0f, 1.0f);
        }
    });
    return out;
}

}  // namespace radiant
