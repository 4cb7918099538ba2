#include "nerf/field.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/error.h"
#include "nn/sh_encoding.h"

namespace radiant {

namespace {
constexpr float kMaxLogDensity = 15.0f;  // exp clamp: keeps densities and gradients finite

MlpConfig density_config(const FieldConfig& c) {
    MlpConfig m;
    m.n_input = c.grid.n_levels * c.grid.n_features_per_level;
    m.n_output = c.geometry_features;
    m.n_neurons = c.density_neurons;
    m.n_hidden_layers = c.density_hidden_layers;
    m.output_activation = Activation::kNone;
    m.precision = c.precision;
    return m;
}

MlpConfig color_config(const FieldConfig& c) {
    MlpConfig m;
    m.n_input = c.geometry_features + kShCoefficients;
    m.n_output = 3;
    m.n_neurons = c.color_neurons;
    m.n_hidden_layers = c.color_hidden_layers;
    m.output_activation = Activation::kSigmoid;
    m.precision = c.precision;
    return m;
}
}  // namespace

FieldConfig FieldConfig::instant_ngp(float aabb_scale, int log2_hashmap_size) {
    FieldConfig c;
    c.grid.n_dims = 3;
    c.grid.n_levels = 16;
    c.grid.n_features_per_level = 2;
    c.grid.log2_hashmap_size = log2_hashmap_size;
    c.grid.base_resolution = 16;
    c.grid.per_level_scale = HashGridConfig::scale_for_finest(16, 16, 2048.0f * aabb_scale);
    c.aabb_scale = aabb_scale;
    return c;
}

void FieldConfig::set_encoding(int levels, int features) {
    RD_CHECK(levels >= 2 && (levels * features) % 16 == 0);
    grid.n_levels = levels;
    grid.n_features_per_level = features;
    grid.per_level_scale =
        HashGridConfig::scale_for_finest(grid.base_resolution, levels, finest_resolution());
}

void FieldConfig::set_contraction(float radius) {
    RD_CHECK(radius > 0);
    contraction.radius = radius;
    grid.per_level_scale =
        HashGridConfig::scale_for_finest(grid.base_resolution, grid.n_levels, finest_resolution());
}

float FieldConfig::finest_resolution() const {
    // Contracted space spans 4 inner radii ([-2, 2]) per axis.
    return 2048.0f * (contraction.enabled() ? 4.0f * contraction.radius : aabb_scale);
}

NerfField::NerfField(const FieldConfig& c, KernelImpl impl)
    : m_config(c),
      m_grid(c.grid, impl),
      m_density(density_config(c), impl),
      m_color(color_config(c), impl) {
    RD_CHECK(c.grid.n_dims == 3 && c.geometry_features == 16);
    m_density_offset = m_grid.n_params();
    m_color_offset = m_density_offset + m_density.n_params();
}

void NerfField::init_params(float* params, Pcg32& rng) const {
    m_grid.init_params(params, rng);
    m_density.init_params(params + m_density_offset, rng);
    m_color.init_params(params + m_color_offset, rng);
}

void NerfField::pack(const float* params, float* packed) const {
    m_density.pack(params + m_density_offset, packed);
    m_color.pack(params + m_color_offset, packed + m_density.packed_size());
}

NerfField::Workspace NerfField::make_workspace(size_t max_tile) const {
    Workspace ws;
    ws.max_tile = max_tile;
    ws.density = m_density.make_workspace(max_tile);
    ws.color = m_color.make_workspace(max_tile);
    ws.enc_pos.assign(max_tile * 3, 0.0f);
    ws.enc.assign(max_tile * m_grid.n_output_dims(), 0.0f);
    const size_t color_in = m_config.geometry_features + kShCoefficients;
    ws.color_in.assign(FusedMlp::padded_rows(max_tile) * color_in, 0.0f);
    ws.d_color_in.assign(max_tile * color_in, 0.0f);
    return ws;
}

void NerfField::density(const float* params, const float* packed, const float* positions, size_t n,
                        Workspace& ws, float* sigma, float* geometry) const {
    map_positions(positions, n, ws.enc_pos.data());
    const size_t E = size_t(m_grid.n_output_dims());
    m_grid.forward(params, ws.enc_pos.data(), n, ws.enc.data(), E);
    density_mlp(packed, TileInput{ws.enc.data(), E}, n, ws, sigma, geometry);
}

void NerfField::density_encoded(const float* packed, const float* enc, size_t enc_stride, size_t n,
                                Workspace& ws, float* sigma, float* geometry) const {
    density_mlp(packed, TileInput{enc, 1, enc_stride}, n, ws, sigma, geometry);
}

void NerfField::density_mlp(const float* packed, TileInput enc, size_t n, Workspace& ws,
                            float* sigma, float* geometry) const {
    const float* h = m_density.forward(packed, enc, n, ws.density);
    const size_t hs = m_density.output_stride(), G = m_config.geometry_features;
    for (size_t i = 0; i < n; ++i) sigma[i] = std::exp(std::min(h[i * hs], kMaxLogDensity));
    if (geometry)
        for (size_t i = 0; i < n; ++i) std::memcpy(&geometry[i * G], &h[i * hs], sizeof(float) * G);
}

void NerfField::color(const float* packed, const float* geometry, const float* directions, size_t n,
                      Workspace& ws, float* rgb) const {
    const size_t G = m_config.geometry_features, cin = G + kShCoefficients;
    for (size_t i = 0; i < n; ++i)
        std::memcpy(&ws.color_in[i * cin], &geometry[i * G], sizeof(float) * G);
    sh_encode(directions, n, ws.color_in.data() + G, cin);
    const float* c =
        m_color.forward(packed + m_density.packed_size(), ws.color_in.data(), cin, n, ws.color);
    const size_t cs = m_color.output_stride();
    for (size_t i = 0; i < n; ++i)
        for (int k = 0; k < 3; ++k) rgb[3 * i + k] = c[i * cs + k];
}

void NerfField::forward(const float* params, const float* packed, const float* positions,
                        const float* directions, size_t n, Workspace& ws, float* sigma,
                        float* rgb) const {
    map_positions(positions, n, ws.enc_pos.data());
    const size_t E = size_t(m_grid.n_output_dims());
    m_grid.forward(params, ws.enc_pos.data(), n, ws.enc.data(), E);
    ws.enc_in = TileInput{ws.enc.data(), E};
    forward_density(packed, n, ws, sigma);
    const size_t G = m_config.geometry_features, cin = G + kShCoefficients;
    sh_encode(directions, n, ws.color_in.data() + G, cin);
    forward_color(packed, n, ws, rgb);
}

void NerfField::forward_encoded(const float* packed, const float* enc, size_t enc_stride,
                                const float* view, const uint32_t* sample_ray, size_t n,
                                Workspace& ws, float* sigma, float* rgb) const {
    ws.enc_in = TileInput{enc, 1, enc_stride};  // read where the hash grid wrote it
    forward_density(packed, n, ws, sigma);
    const size_t G = m_config.geometry_features, cin = G + kShCoefficients;
    for (size_t i = 0; i < n; ++i)
        std::memcpy(&ws.color_in[i * cin + G], &view[size_t(sample_ray[i]) * kShCoefficients],
                    sizeof(float) * kShCoefficients);
    forward_color(packed, n, ws, rgb);
}

void NerfField::encode_directions(const float* directions, size_t n, float* out) const {
    sh_encode(directions, n, out, kShCoefficients);
}

void NerfField::forward_density(const float* packed, size_t n, Workspace& ws, float* sigma) const {
    const size_t cin = m_config.geometry_features + kShCoefficients;
    const float* h = m_density.forward(packed, ws.enc_in, n, ws.density, ws.color_in.data(), cin);
    for (size_t i = 0; i < n; ++i) sigma[i] = std::exp(std::min(h[i * cin], kMaxLogDensity));
}

void NerfField::forward_color(const float* packed, size_t n, Workspace& ws, float* rgb) const {
    const size_t cin = m_config.geometry_features + kShCoefficients;
    const float* c =
        m_color.forward(packed + m_density.packed_size(), ws.color_in.data(), cin, n, ws.color);
    const size_t cs = m_color.output_stride();
    for (size_t i = 0; i < n; ++i)
        for (int k = 0; k < 3; ++k) rgb[3 * i + k] = c[i * cs + k];
}

void NerfField::backward(const float* params, const float* packed, const float* d_sigma,
                         const float* d_rgb, size_t n, Workspace& ws, float* mlp_grad,
                         TileGradient d_enc) const {
    const size_t G = m_config.geometry_features, cin = G + kShCoefficients;
    const float* color_packed = packed + m_density.packed_size();
    m_color.backward(params + m_color_offset, color_packed, ws.color_in.data(), cin, n, d_rgb, 3,
                     ws.color, mlp_grad + (m_color_offset - m_density_offset),
                     ws.d_color_in.data());
    // dL/d(density MLP outputs), in place in the colour input's gradient: its first G columns,
    // plus the density path on output 0 (d exp(x)/dx = exp(x), clamped like the forward).
    for (size_t i = 0; i < n; ++i) {
        const float raw = ws.color_in[i * cin];
        ws.d_color_in[i * cin] +=
            d_sigma[i] * std::exp(std::clamp(raw, -kMaxLogDensity, kMaxLogDensity));
    }
    m_density.backward(params + m_density_offset, packed, ws.enc_in, n, ws.d_color_in.data(), cin,
                       ws.density, mlp_grad, d_enc);
}

}  // namespace radiant
