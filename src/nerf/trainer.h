// NeRF training step on the CPU (first version): rays from random pixels of all staged images
// -> marcher -> field -> compositing -> loss -> backward -> Adam, with occupancy-grid updates.
//
// Work is split into a fixed number of ray chunks (independent of the thread count); each
// chunk marches its rays, evaluates the field in tiles, composites, and runs the backward
// (re-running each tile's forward first, so no activations are stored across tiles). MLP
// gradients are summed over chunks in order; the hash tables are updated one level per task
// over all chunks' samples in order, so results depend only on the seed.
#pragma once

#include <memory>
#include <vector>

#include "core/aligned.h"
#include "core/thread_pool.h"
#include "io/image.h"
#include "io/staging.h"
#include "nerf/camera.h"
#include "nerf/field.h"
#include "nerf/marcher.h"
#include "nerf/occupancy_grid.h"
#include "nn/adam.h"
#include "nn/loss.h"

namespace radiant {

struct NerfTrainConfig {
    FieldConfig field = FieldConfig::instant_ngp(1.0f);
    AdamConfig adam;
    LossConfig loss;
    MarchConfig march;
    int grid_resolution = 128;
    int grid_update_interval = 16;
    int grid_warmup_steps = 256;
    size_t target_samples = size_t(1) << 16;  // per step; the ray count adapts to it
    size_t initial_rays = 2048;
    uint64_t seed = 1337;
};

class NerfTrainer {
public:
    NerfTrainer(const ImageSet& images, const SceneTransform& scene, const NerfTrainConfig& config,
                ThreadPool& pool);

    // One step; returns the mean loss per ray and colour channel.
    double step();
    uint64_t steps() const { return m_step; }
    size_t rays_last_step() const { return m_rays; }
    size_t samples_last_step() const { return m_samples; }

    // Renders a view (premultiplied colour composited on `background`).
    ImageF render(const CameraIntrinsics& camera, const std::array<float, 16>& camera_to_world,
                  const float background[3]);

    const NerfField& field() const { return m_field; }
    const OccupancyGrid& grid() const { return m_grid; }

    static constexpr size_t kChunks = 64;
    static constexpr size_t kTile = 128;

private:
    struct Chunk {
        std::vector<RaySample> samples;
        std::vector<uint32_t> ray_begin;  // per ray: first sample (+1 entry at the end)
        AlignedVector<float> pos, dir, sigma, rgb, d_sigma, d_rgb, d_enc, mapped;
        AlignedVector<float> grad;  // MLP gradients (density + colour)
        double loss = 0;
        size_t rays = 0;
    };
    void run_chunk(size_t c, size_t ray_begin, size_t ray_end, int thread);
    void update_grid();

    const ImageSet& m_images;
    SceneTransform m_scene;
    NerfTrainConfig m_config;
    ThreadPool& m_pool;
    NerfField m_field;
    OccupancyGrid m_grid;
    AlignedVector<float> m_params, m_grads, m_packed;
    std::unique_ptr<Adam> m_adam;
    std::vector<Chunk> m_chunks;
    std::vector<NerfField::Workspace> m_ws;
    std::vector<int> m_level_order;
    uint64_t m_step = 0;
    size_t m_rays, m_samples = 0;
};

}  // namespace radiant
