#include "nn/hash_grid.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace radiant {

namespace {
constexpr uint32_t kPrimes[3] = {1u, 2654435761u, 805459861u};
constexpr int kLaneBlock = 16;  // widest SIMD vector in floats; per-level arrays pad to it

size_t round_up(size_t x, size_t m) { return (x + m - 1) / m * m; }

// One feature of a level's output: the corners' values (stride F apart) weighted.
float interpolate(const float* feature, int F, const uint32_t* index, const float* weight,
                  int corners) {
    float acc = 0.0f;
    for (int c = 0; c < corners; ++c) acc += weight[c] * feature[size_t(index[c]) * F];
    return acc;
}
}  // namespace

float HashGridConfig::scale_for_finest(int base_resolution, int n_levels, float finest) {
    if (n_levels <= 1) return 1.0f;
    return std::exp((std::log(finest) - std::log(float(base_resolution))) / float(n_levels - 1));
}

HashGrid::HashGrid(const HashGridConfig& c, KernelImpl impl) : m_config(c), m_impl(impl) {
    RD_CHECK(c.n_dims == 2 || c.n_dims == 3);
    RD_CHECK(c.n_levels >= 1 && c.n_levels <= 64);
    RD_CHECK(c.n_features_per_level == 1 || c.n_features_per_level == 2 ||
             c.n_features_per_level == 4 || c.n_features_per_level == 8);
    RD_CHECK(c.log2_hashmap_size >= 2 && c.log2_hashmap_size <= 26);
    RD_CHECK(c.base_resolution >= 1 && c.per_level_scale >= 1.0f);
    const uint64_t table = uint64_t(1) << c.log2_hashmap_size;
    size_t offset = 0;
    for (int l = 0; l < c.n_levels; ++l) {
        HashGridLevel lv;
        lv.scale = c.base_resolution * std::pow(c.per_level_scale, float(l));
        lv.vertices = static_cast<uint32_t>(std::ceil(lv.scale)) + 1;
        uint64_t dense_size = 1;
        for (int d = 0; d < c.n_dims; ++d) dense_size *= lv.vertices;
        lv.dense = dense_size <= table;
        lv.n_entries = static_cast<uint32_t>(lv.dense ? dense_size : table);
        lv.param_offset = offset;
        offset += round_up(lv.n_entries, 8) * c.n_features_per_level;
        m_levels.push_back(lv);
    }
    m_n_params = offset;

    size_t padded = round_up(c.n_levels, kLaneBlock);
    m_lane_scale.assign(padded, 0.0f);
    m_lane_vertices.assign(padded, 2);
    m_lane_dense.assign(padded, 1);
    m_lane_offset.assign(padded, 0);
    m_lane_mask.assign(padded, 0);
    for (int l = 0; l < c.n_levels; ++l) {
        m_lane_scale[l] = m_levels[l].scale;
        m_lane_vertices[l] = m_levels[l].vertices;
        m_lane_dense[l] = m_levels[l].dense ? 1 : 0;
        m_lane_offset[l] = static_cast<uint32_t>(m_levels[l].param_offset / c.n_features_per_level);
        m_lane_mask[l] = static_cast<uint32_t>(table - 1);
    }
}

std::vector<int> HashGrid::balanced_level_order() const {
    std::vector<int> order;
    for (int lo = 0, hi = m_config.n_levels - 1; lo <= hi; ++lo, --hi) {
        order.push_back(lo);
        if (hi != lo) order.push_back(hi);
    }
    return order;
}

void HashGrid::init_params(float* params, Pcg32& rng) const {
    for (size_t i = 0; i < m_n_params; ++i) params[i] = (rng.next_float() * 2.0f - 1.0f) * 1e-4f;
}

void HashGrid::corners(const float* pos, int level, uint32_t* index, float* weight) const {
    const HashGridLevel& lv = m_levels[level];
    const int D = m_config.n_dims;
    uint32_t cell[3];
    float frac[3];
    for (int d = 0; d < D; ++d) {
        float x = std::clamp(pos[d], 0.0f, 1.0f) * lv.scale;
        float fl = std::floor(x);
        int i = std::min(static_cast<int>(fl), static_cast<int>(lv.vertices) - 2);
        cell[d] = static_cast<uint32_t>(i);
        frac[d] = x - float(i);
    }
    const uint32_t mask = (uint32_t(1) << m_config.log2_hashmap_size) - 1;
    for (int c = 0; c < (1 << D); ++c) {
        float w = 1.0f;
        uint32_t dense_index = 0, stride = 1, hash = 0;
        for (int d = 0; d < D; ++d) {
            uint32_t bit = (c >> d) & 1;
            uint32_t v = cell[d] + bit;
            w *= bit ? frac[d] : 1.0f - frac[d];
            dense_index += v * stride;
            stride *= lv.vertices;
            hash ^= v * kPrimes[d];
        }
        index[c] = lv.dense ? dense_index : (hash & mask);
        weight[c] = w;
    }
}

HashGridLanes make_lanes(const HashGridConfig& c, const std::vector<float>& scale,
                         const std::vector<uint32_t>& vertices, const std::vector<uint32_t>& dense,
                         const std::vector<uint32_t>& offset, const std::vector<uint32_t>& mask) {
    return HashGridLanes{c.n_dims,
                         static_cast<int>(scale.size()),
                         c.n_features_per_level,
                         scale.data(),
                         vertices.data(),
                         dense.data(),
                         offset.data(),
                         mask.data()};
}

void HashGrid::forward(const float* params, const float* positions, size_t n, float* out,
                       size_t out_stride) const {
    const int D = m_config.n_dims, F = m_config.n_features_per_level, L = m_config.n_levels;
    if (m_impl == KernelImpl::kSimd) {
        auto lanes = make_lanes(m_config, m_lane_scale, m_lane_vertices, m_lane_dense,
                                m_lane_offset, m_lane_mask);
        hash_grid_forward_simd(lanes, L, params, positions, n, out, out_stride);
        return;
    }
    uint32_t index[8];
    float weight[8];
    for (size_t i = 0; i < n; ++i) {
        const float* pos = positions + i * D;
        for (int l = 0; l < L; ++l) {
            corners(pos, l, index, weight);
            const float* table = params + m_levels[l].param_offset;
            for (int f = 0; f < F; ++f)
                out[i * out_stride + l * F + f] = interpolate(table + f, F, index, weight, 1 << D);
        }
    }
}

void HashGrid::forward_levels(const float* params, const float* positions, size_t n, float* out,
                              size_t out_stride, int level_begin, int level_end) const {
    const int D = m_config.n_dims, F = m_config.n_features_per_level;
    if (m_impl == KernelImpl::kSimd) {
        auto lanes = make_lanes(m_config, m_lane_scale, m_lane_vertices, m_lane_dense,
                                m_lane_offset, m_lane_mask);
        for (int l = level_begin; l < level_end; ++l)
            hash_grid_forward_level_simd(lanes, l, params, positions, n, out, out_stride);
        return;
    }
    uint32_t index[8];
    float weight[8];
    for (int l = level_begin; l < level_end; ++l) {
        const float* table = params + m_levels[l].param_offset;
        for (size_t i = 0; i < n; ++i) {
            corners(positions + i * D, l, index, weight);
            for (int f = 0; f < F; ++f)
                out[size_t(l * F + f) * out_stride + i] =
                    interpolate(table + f, F, index, weight, 1 << D);
        }
    }
}

void HashGrid::backward(const float* positions, size_t n, const float* d_enc, size_t d_stride,
                        float* grad, int level_begin, int level_end) const {
    const int D = m_config.n_dims, F = m_config.n_features_per_level;
    if (m_impl == KernelImpl::kSimd) {
        auto lanes = make_lanes(m_config, m_lane_scale, m_lane_vertices, m_lane_dense,
                                m_lane_offset, m_lane_mask);
        for (int l = level_begin; l < level_end; ++l)
            hash_grid_backward_simd(lanes, l, positions, n, d_enc, d_stride, grad);
        return;
    }
    uint32_t index[8];
    float weight[8];
    for (int l = level_begin; l < level_end; ++l) {
        float* table = grad + m_levels[l].param_offset;
        for (size_t i = 0; i < n; ++i) {
            corners(positions + i * D, l, index, weight);
            for (int f = 0; f < F; ++f) {
                float g = d_enc[size_t(l * F + f) * d_stride + i];
                for (int c = 0; c < (1 << D); ++c) table[index[c] * F + f] += weight[c] * g;
            }
        }
    }
}

}  // namespace radiant
