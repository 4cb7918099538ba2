#include <gtest/gtest.h>

#include <cmath>

#include "core/rng.h"
#include "gradcheck.h"
#include "nerf/field.h"

namespace radiant {
namespace {

FieldConfig tiny_config() {
    FieldConfig c;
    c.grid.n_dims = 3;
    c.grid.n_levels = 8;
    c.grid.n_features_per_level = 2;
    c.grid.log2_hashmap_size = 10;
    c.grid.base_resolution = 4;
    c.grid.per_level_scale = 1.5f;
    c.density_neurons = 16;
    c.color_neurons = 16;
    c.color_hidden_layers = 1;
    c.aabb_scale = 2.0f;
    return c;
}

TEST(NerfField, InstantNgpDefaultsStructure) {
    FieldConfig c = FieldConfig::instant_ngp(1.0f);
    NerfField f(c);
    EXPECT_EQ(f.grid().n_output_dims(), 32);
    EXPECT_EQ(f.density_mlp().n_params(), 32u * 64 + 64u * 16);
    EXPECT_EQ(f.color_mlp().n_params(), 32u * 64 + 64u * 64 + 64u * 3);
    EXPECT_EQ(f.n_params(),
              f.grid().n_params() + f.density_mlp().n_params() + f.color_mlp().n_params());
    EXPECT_NEAR(f.grid().levels().back().scale, 2048.0f, 1.0f);
}

TEST(NerfField, GradientMatchesFiniteDifferences) {
    NerfField field(tiny_config());
    std::vector<float> params(field.n_params()), packed(field.packed_size());
    Pcg32 rng(11);
    field.init_params(params.data(), rng);
    for (size_t i = 0; i < field.density_offset(); ++i)
        params[i] = (rng.next_float() - 0.5f) * 0.5f;
    const size_t n = 7;
    std::vector<float> pos(3 * n), dir(3 * n), ws_sigma(n), ws_rgb(3 * n);
    for (size_t i = 0; i < n; ++i) {
        for (int k = 0; k < 3; ++k)
            pos[3 * i + k] = rng.next_float() * 1.6f - 0.3f;  // some outside [0,1]
        float d[3] = {rng.next_float() - 0.5f, rng.next_float() - 0.5f, rng.next_float() - 0.5f};
        float len = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        for (int k = 0; k < 3; ++k) dir[3 * i + k] = d[k] / len;
        ws_sigma[i] = rng.next_float() - 0.5f;
        for (int k = 0; k < 3; ++k) ws_rgb[3 * i + k] = rng.next_float() - 0.5f;
    }
    auto ws = field.make_workspace(16);
    std::vector<float> sigma(n), rgb(3 * n);
    auto loss = [&]() {
        field.pack(params.data(), packed.data());
        field.forward(params.data(), packed.data(), pos.data(), dir.data(), n, ws, sigma.data(),
                      rgb.data());
        double l = 0;
        for (size_t i = 0; i < n; ++i) {
            l += double(ws_sigma[i]) * sigma[i];
            for (int k = 0; k < 3; ++k) l += double(ws_rgb[3 * i + k]) * rgb[3 * i + k];
        }
        return l;
    };
    loss();
    std::vector<float> grad(field.n_params(), 0.0f);
    const int E = field.grid().n_output_dims();
    std::vector<float> d_enc_fm(E * n);  // feature-major, as the hash backward reads it
    field.backward(params.data(), packed.data(), ws_sigma.data(), ws_rgb.data(), n, ws,
                   grad.data() + field.density_offset(), TileGradient{d_enc_fm.data(), 1, n});
    std::vector<float> mapped(3 * n);
    field.map_positions(pos.data(), n, mapped.data());
    field.grid().backward(mapped.data(), n, d_enc_fm.data(), n, grad.data(), 0,
                          field.config().grid.n_levels);

    // Check each block: hash tables (only touched entries matter), density MLP, colour MLP.
    std::vector<size_t> hash_idx, mlp_idx;
    for (size_t i = 0; i < field.density_offset(); ++i)
        if (grad[i] != 0.0f) hash_idx.push_back(i);
    for (size_t i = field.density_offset(); i < field.n_params(); i += 3) mlp_idx.push_back(i);
    ASSERT_GT(hash_idx.size(), 50u);
    EXPECT_LT(test::gradient_nmse(params, grad, loss, 2e-3f, hash_idx), 1e-3);
    EXPECT_LT(test::gradient_nmse(params, grad, loss, 2e-3f, mlp_idx), 1e-3);
}

TEST(NerfField, DensityMatchesForward) {
    NerfField field(tiny_config());
    std::vector<float> params(field.n_params()), packed(field.packed_size());
    Pcg32 rng(5);
    field.init_params(params.data(), rng);
    field.pack(params.data(), packed.data());
    const size_t n = 9;
    std::vector<float> pos(3 * n), dir(3 * n, 0.0f), a(n), b(n), rgb(3 * n);
    for (auto& p : pos) p = rng.next_float();
    for (size_t i = 0; i < n; ++i) dir[3 * i + 2] = 1.0f;
    auto ws = field.make_workspace(16);
    field.forward(params.data(), packed.data(), pos.data(), dir.data(), n, ws, a.data(),
                  rgb.data());
    field.density(params.data(), packed.data(), pos.data(), n, ws, b.data());
    for (size_t i = 0; i < n; ++i) {
        EXPECT_FLOAT_EQ(a[i], b[i]);
        EXPECT_GT(a[i], 0.0f);
        for (int k = 0; k < 3; ++k) EXPECT_TRUE(rgb[3 * i + k] > 0.0f && rgb[3 * i + k] < 1.0f);
    }
}

}  // namespace
}  // namespace radiant
