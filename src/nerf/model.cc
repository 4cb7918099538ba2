#include "nerf/model.h"

#include <cmath>

#include "core/rng.h"

namespace radiant {

NerfModelConfig NerfModelConfig::for_scene(float aabb_scale, const SceneTransform& scene,
                                           int log2_hashmap_size) {
    NerfModelConfig c;
    c.field = FieldConfig::instant_ngp(aabb_scale, log2_hashmap_size);
    c.scene = scene;
    // Large (unbounded-ish) scenes step further apart with distance, as instant-ngp does.
    c.march.cone_angle = aabb_scale > 1.0f ? 1.0f / 256.0f : 0.0f;
    return c;
}

NerfModelConfig NerfModelConfig::for_dataset(const Dataset& d, int log2_hashmap_size) {
    return for_scene(d.aabb_scale, {d.scale, {d.offset[0], d.offset[1], d.offset[2]}}, log2_hashmap_size);
}

void NerfModelConfig::match_pixel_footprint(float footprint) {
    if (std::isfinite(footprint) && footprint > march.min_step) march.min_step = footprint;
}

NerfModel::NerfModel(const NerfModelConfig& config)
    : m_config(config),
      m_field(config.field),
      m_grid([&] {
          OccupancyGridConfig g;
          g.resolution = config.grid_resolution;
          g.n_cascades = OccupancyGridConfig::cascades_for_aabb_scale(config.field.aabb_scale);
          // Occupied = optical thickness over one minimal step above 0.01 (instant-ngp).
          g.threshold = 0.01f / config.march.min_step;
          return g;
      }()) {
    m_params.assign(m_field.n_params(), 0.0f);
    m_packed.assign(m_field.packed_size(), 0.0f);
}

void NerfModel::init_params(uint64_t seed) {
    Pcg32 rng(seed, 0);
    m_field.init_params(m_params.data(), rng);
    repack();
}

}  // namespace radiant
