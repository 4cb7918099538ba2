#include "nerf/model.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
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
    return for_scene(d.aabb_scale, {d.scale, {d.offset[0], d.offset[1], d.offset[2]}},
                     log2_hashmap_size);
}

void NerfModelConfig::match_pixel_footprint(float footprint) {
    if (std::isfinite(footprint) && footprint > march.min_step) march.min_step = footprint;
}

void NerfModelConfig::make_unbounded(float inner_radius) {
    field.set_contraction(inner_radius);
    march.far_sample = true;
}

NerfModel::NerfModel(const NerfModelConfig& config)
    : m_config(config), m_field(config.field), m_grid([&] {
          OccupancyGridConfig g;
          g.resolution = config.grid_resolution;
          g.n_cascades = OccupancyGridConfig::cascades_for_aabb_scale(config.field.aabb_scale);
          g.threshold = config.grid_threshold;
          g.per_cascade_mean = config.grid_threshold_per_cascade;
          return g;
      }()) {
    m_own_params.assign(m_field.n_params(), 0.0f);
    m_params = m_own_params.data();
    m_packed.assign(m_field.packed_size(), 0.0f);
}

NerfModel::NerfModel(const NerfModel& other)
    : m_config(other.m_config),
      m_field(other.m_field),
      m_grid(other.m_grid),
      m_own_params(other.params().begin(), other.params().end()),
      m_packed(other.m_packed),
      m_params(m_own_params.data()) {}

void NerfModel::copy_state_from(const NerfModel& other) {
    RD_CHECK(other.params().size() == params().size());
    std::copy(other.params().begin(), other.params().end(), m_params);
    m_packed = other.m_packed;
    m_grid = other.m_grid;
}

void NerfModel::init_params(uint64_t seed) {
    Pcg32 rng(seed, 0);
    m_field.init_params(m_params, rng);
    repack();
}

void NerfModel::place_params(float* storage, bool copy) {
    if (copy) std::copy(params().begin(), params().end(), storage);
    m_params = storage;
}

void NerfModel::return_params() {
    if (m_params == m_own_params.data()) return;
    std::copy(m_params, m_params + m_own_params.size(), m_own_params.data());
    m_params = m_own_params.data();
}

}  // namespace radiant
