// The NeRF field (instant-ngp's NerfNetwork): position -> 3D hash grid -> density MLP ->
// [log-density, 15 geometry features]; [those 16 values, SH degree 4 of the view direction]
// -> colour MLP -> sigmoid RGB. Density = exp(log-density).
//
// Positions are in the unit-cube frame; the encoding sees them mapped from the scene box
// [0.5 - aabb_scale/2, 0.5 + aabb_scale/2]^3 to [0, 1]^3, or, for an unbounded scene, from all
// of space contracted (scene/contraction.h) to [0, 1]^3. Parameters: hash tables, then the
// density MLP, then the colour MLP, in one flat buffer.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/aligned.h"
#include "core/rng.h"
#include "nn/hash_grid.h"
#include "nn/mlp.h"
#include "nn/sh_encoding.h"
#include "scene/sample_batch.h"

namespace radiant {

struct FieldConfig {
    HashGridConfig grid;  // n_dims must be 3
    int density_neurons = 64;
    int density_hidden_layers = 1;
    int geometry_features = 16;  // density MLP outputs (the first is log-density)
    int color_neurons = 64;
    int color_hidden_layers = 2;
    float aabb_scale = 1.0f;
    SceneContraction contraction;  // enabled: the encoding covers contracted space
    MlpPrecision precision = MlpPrecision::kFp32;

    // instant-ngp's defaults: 16 levels x 2 features, table 2^19, base 16, finest 2048 * aabb.
    static FieldConfig instant_ngp(float aabb_scale, int log2_hashmap_size = 19);

    // Re-shapes the encoding to `levels` x `features` (levels * features % 16 == 0), keeping
    // the base and finest resolutions: 8 x 4 is instant-ngp's newer base.json, whose levels
    // double in resolution and whose coarse three fit densely in the table.
    void set_encoding(int levels, int features);
    // Encodes contracted space, with inner radius `radius` (unit-cube frame) around the cube's
    // centre: the finest level keeps instant-ngp's 2048 cells per unit over the inner region.
    void set_contraction(float radius);
    // Cells of the finest level across the encoded domain.
    float finest_resolution() const;
};

class NerfField {
  public:
    explicit NerfField(const FieldConfig& config, KernelImpl impl = KernelImpl::kSimd);

    const FieldConfig& config() const { return m_config; }
    const HashGrid& grid() const { return m_grid; }
    const FusedMlp& density_mlp() const { return m_density; }
    const FusedMlp& color_mlp() const { return m_color; }
    size_t n_params() const { return m_color_offset + m_color.n_params(); }
    size_t density_offset() const { return m_density_offset; }
    size_t color_offset() const { return m_color_offset; }
    size_t packed_size() const { return m_density.packed_size() + m_color.packed_size(); }

    void init_params(float* params, Pcg32& rng) const;
    void pack(const float* params, float* packed) const;

    struct Workspace {
        FusedMlp::Workspace density, color;
        AlignedVector<float> enc_pos;  // [tile][3] positions mapped for the encoding
        AlignedVector<float> enc;      // [tile][L*F], forward()'s own encoding
        TileInput enc_in;              // the encoding the last forward read, where it lies
        // [padded tile][geometry + 16]: the density MLP writes its outputs into the first
        // columns, the view encodings fill the rest, and the colour MLP reads it.
        AlignedVector<float> color_in;
        AlignedVector<float> d_color_in;
        size_t max_tile = 0;
    };
    Workspace make_workspace(size_t max_tile) const;

    // sigma[i] (density, 1/unit-cube length) and rgb[3i..3i+2] for n <= max_tile samples.
    void forward(const float* params, const float* packed, const float* positions,
                 const float* directions, size_t n, Workspace& ws, float* sigma, float* rgb) const;
    // forward() from an encoding computed beforehand (HashGrid::forward_levels over a longer
    // run of samples): enc is feature-major, enc[k * enc_stride + i] for the tile's i < n; and
    // from view directions encoded beforehand, once per ray (encode_directions): sample i's is
    // row sample_ray[i] of view [rays][view_dims()]. backward() then follows as after forward().
    void forward_encoded(const float* packed, const float* enc, size_t enc_stride,
                         const float* view, const uint32_t* sample_ray, size_t n, Workspace& ws,
                         float* sigma, float* rgb) const;
    // The colour MLP's view-direction inputs of n unit directions [n][3]: out [n][view_dims()].
    void encode_directions(const float* directions, size_t n, float* out) const;
    static constexpr size_t view_dims() { return kShCoefficients; }
    // Density only (occupancy-grid updates). With `geometry` ([n][geometry_features], may be
    // null) also the density MLP's outputs, so that color() can finish the samples that matter.
    void density(const float* params, const float* packed, const float* positions, size_t n,
                 Workspace& ws, float* sigma, float* geometry = nullptr) const;
    // density() from an encoding computed beforehand, laid out as for forward_encoded().
    void density_encoded(const float* packed, const float* enc, size_t enc_stride, size_t n,
                         Workspace& ws, float* sigma, float* geometry = nullptr) const;
    // The colour of n <= max_tile samples from their geometry features (density()) and view
    // directions: forward() split in two, so a renderer skips the colour MLP where the
    // compositing weight is negligible. Same values as forward().
    void color(const float* packed, const float* geometry, const float* directions, size_t n,
               Workspace& ws, float* rgb) const;
    // Backward of the tile last passed to forward(): adds MLP weight gradients to mlp_grad
    // (the parameters from density_offset() on, i.e. mlp_grad[0] is the first density-MLP
    // weight) and writes dL/d(encoding) [n][L*F] in d_enc's layout (feature-major, as
    // HashGrid::backward reads it, to scatter into the tables level by level).
    void backward(const float* params, const float* packed, const float* d_sigma,
                  const float* d_rgb, size_t n, Workspace& ws, float* mlp_grad,
                  TileGradient d_enc) const;

    // Positions as the encoding sees them ([0, 1]^3 over the scene box).
    EncodingFrame encoding_frame() const { return {m_config.aabb_scale, m_config.contraction}; }
    void map_positions(const float* positions, size_t n, float* out) const {
        encoding_frame().map(positions, n, out);
    }

  private:
    // The density MLP of density().
    void density_mlp(const float* packed, TileInput enc, size_t n, Workspace& ws, float* sigma,
                     float* geometry) const;
    // The density MLP of forward(), from the encoding ws.enc_in, into sigma and the colour
    // MLP's input; then the colour MLP once the view encodings are in place.
    void forward_density(const float* packed, size_t n, Workspace& ws, float* sigma) const;
    void forward_color(const float* packed, size_t n, Workspace& ws, float* rgb) const;

    FieldConfig m_config;
    HashGrid m_grid;
    FusedMlp m_density, m_color;
    size_t m_density_offset, m_color_offset;
};

}  // namespace radiant
