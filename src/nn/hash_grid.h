// Multiresolution hash encoding (Müller et al. 2022) for 2D and 3D inputs.
//
// Level l has scale s_l = base_resolution * per_level_scale^l cells per unit; an input
// x in [0, 1]^D lands at x * s_l. The level stores V_l = ceil(s_l) + 1 vertices per axis:
// densely (index x + y*V + z*V^2) when V_l^D fits in the table, otherwise hashed as
// (x * 1) ^ (y * 2654435761) ^ (z * 805459861) mod T. Each vertex holds F features; the
// output is the D-linear interpolation of the 2^D surrounding vertices, per level.
//
// Layouts: positions are row-major [n][D] in [0, 1]; the encoding is row-major
// [n][L*F] (feature l*F + f), which is what the fused MLP consumes. Gradients w.r.t. the
// encoding come back feature-major [L*F][n] so a level's backward streams them contiguously.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/rng.h"
#include "nn/simd.h"

namespace radiant {

struct HashGridConfig {
    int n_dims = 3;                // 2 or 3
    int n_levels = 16;             // L
    int n_features_per_level = 2;  // F: 1, 2, 4 or 8
    int log2_hashmap_size = 19;    // T = 2^log2_hashmap_size entries per level (at most)
    // The table sizes a model or an image fit may ask for (the commands' --log2-table and the
    // snapshot reader take these; the grid itself works down to 2^2 for tests).
    static constexpr int kMinLog2HashmapSize = 10, kMaxLog2HashmapSize = 24;
    int base_resolution = 16;      // scale of the coarsest level
    float per_level_scale = 2.0f;  // growth factor between levels

    // Sets per_level_scale so the finest level has `finest` cells per unit.
    static float scale_for_finest(int base_resolution, int n_levels, float finest);
};

struct HashGridLevel {
    float scale = 0;          // s_l: cells per unit input
    uint32_t vertices = 0;    // V_l per axis
    bool dense = false;       // dense indexing (no hash collisions)
    uint32_t n_entries = 0;   // table entries of this level (V_l^D or T)
    size_t param_offset = 0;  // offset of entry 0, feature 0 in the parameter span (floats)
};

class HashGrid {
  public:
    explicit HashGrid(const HashGridConfig& config, KernelImpl impl = KernelImpl::kSimd);

    const HashGridConfig& config() const { return m_config; }
    const std::vector<HashGridLevel>& levels() const { return m_levels; }
    int n_output_dims() const { return m_config.n_levels * m_config.n_features_per_level; }
    size_t n_params() const { return m_n_params; }

    // Uniform in [-1e-4, 1e-4] as in instant-ngp.
    void init_params(float* params, Pcg32& rng) const;

    // Encodes n positions: out[i * out_stride + l*F + f].
    void forward(const float* params, const float* positions, size_t n, float* out,
                 size_t out_stride) const;

    // The same encoding, levels [level_begin, level_end) only, level by level and written
    // feature-major: out[(l*F + f) * out_stride + i]. For long runs of samples (a training
    // step's): one level's table then stays in cache while every sample reads it.
    void forward_levels(const float* params, const float* positions, size_t n, float* out,
                        size_t out_stride, int level_begin, int level_end) const;

    // Adds dL/dparams for levels [level_begin, level_end) given d_enc feature-major
    // (d_enc[(l*F + f) * d_stride + i]). Each level touches only its own table, so levels
    // can run on different threads with deterministic results.
    void backward(const float* positions, size_t n, const float* d_enc, size_t d_stride,
                  float* grad, int level_begin, int level_end) const;

    // Levels ordered coarse, fine, next coarse, next fine, ...: split into contiguous
    // per-thread shares for the per-level backward, each share mixes cheap (cache-resident)
    // and costly levels, so threads finish together.
    std::vector<int> balanced_level_order() const;

    // The vertex indices (within the level) and weights of input `pos` at level l:
    // writes 2^D of each. Exposed for tests and the reference implementation.
    void corners(const float* pos, int level, uint32_t* index, float* weight) const;

  private:
    HashGridConfig m_config;
    KernelImpl m_impl;
    std::vector<HashGridLevel> m_levels;
    size_t m_n_params = 0;
    // Per-level parameters padded to a multiple of 16 levels for the SIMD kernels.
    std::vector<float> m_lane_scale;
    std::vector<uint32_t> m_lane_vertices, m_lane_dense, m_lane_offset, m_lane_mask;
};

// Highway kernels (hash_grid_kernels.cc).
struct HashGridLanes {
    int n_dims, n_levels_padded, n_features;
    const float* scale;
    const uint32_t* vertices;
    const uint32_t* dense;
    const uint32_t* offset;  // in entries
    const uint32_t* mask;    // T - 1 for hashed levels
};
void hash_grid_forward_simd(const HashGridLanes& lanes, int n_levels, const float* params,
                            const float* positions, size_t n, float* out, size_t out_stride);
void hash_grid_forward_level_simd(const HashGridLanes& lanes, int level, const float* params,
                                  const float* positions, size_t n, float* out, size_t out_stride);
void hash_grid_backward_simd(const HashGridLanes& lanes, int level, const float* positions,
                             size_t n, const float* d_enc, size_t d_stride, float* grad);

}  // namespace radiant
