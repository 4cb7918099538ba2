#include <gtest/gtest.h>

#include <cmath>

#include "core/rng.h"
#include "gradcheck.h"
#include "nn/hash_grid.h"

namespace radiant {
namespace {

HashGridConfig nerf_config() {
    HashGridConfig c;
    c.n_dims = 3;
    c.n_levels = 16;
    c.n_features_per_level = 2;
    c.log2_hashmap_size = 19;
    c.base_resolution = 16;
    c.per_level_scale = HashGridConfig::scale_for_finest(16, 16, 2048);
    return c;
}

TEST(HashGrid, LevelStructureKnownAnswers) {
    HashGrid grid(nerf_config());
    const auto& lv = grid.levels();
    ASSERT_EQ(lv.size(), 16u);
    EXPECT_NEAR(nerf_config().per_level_scale, 1.38191f, 1e-4f);  // 128^(1/15)
    EXPECT_FLOAT_EQ(lv[0].scale, 16.0f);
    EXPECT_EQ(lv[0].vertices, 17u);
    EXPECT_TRUE(lv[0].dense);
    EXPECT_EQ(lv[0].n_entries, 17u * 17 * 17);
    EXPECT_EQ(lv[0].param_offset, 0u);
    EXPECT_EQ(lv[1].param_offset, 4920u * 2) << "4913 entries rounded up to 8, 2 features";
    EXPECT_EQ(lv[1].vertices, 24u);  // ceil(22.11) + 1
    EXPECT_TRUE(lv[4].dense);        // 16 * 1.3819^4 = 58.4 -> 60^3 = 216000 <= 2^19
    EXPECT_FALSE(lv[5].dense);       // 80.7 -> 82^3 > 2^19
    EXPECT_EQ(lv[5].n_entries, 1u << 19);
    EXPECT_NEAR(lv[15].scale, 2048.0f, 0.5f);
    size_t expected = 0;
    for (const auto& l : lv) expected += (size_t(l.n_entries) + 7) / 8 * 8 * 2;
    EXPECT_EQ(grid.n_params(), expected);
    EXPECT_EQ(grid.n_output_dims(), 32);
}

TEST(HashGrid, ImageConfigLevels) {
    HashGridConfig c;
    c.n_dims = 2;
    c.log2_hashmap_size = 20;
    c.per_level_scale = HashGridConfig::scale_for_finest(16, 16, 1920);
    HashGrid grid(c);
    EXPECT_NEAR(grid.levels()[15].scale, 1920.0f, 0.5f);
    int dense = 0;
    for (const auto& l : grid.levels()) dense += l.dense;
    EXPECT_EQ(dense, 14);  // 1024^2 = 2^20 fits; the two finest levels (1393, 1920) hash
}

TEST(HashGrid, CornersKnownAnswer) {
    HashGridConfig c;
    c.n_dims = 2;
    c.n_levels = 2;
    c.per_level_scale = 2.0f;  // scales 16, 32
    c.log2_hashmap_size = 8;   // level 0 dense (17^2 = 289 > 256? no: hashed), see below
    HashGrid grid(c);
    EXPECT_FALSE(grid.levels()[0].dense);  // 289 > 256
    const float pos[2] = {0.5f, 0.25f};    // lands exactly on vertex (8, 4) at scale 16
    uint32_t idx[4];
    float w[4];
    grid.corners(pos, 0, idx, w);
    EXPECT_FLOAT_EQ(w[0], 1.0f);
    EXPECT_FLOAT_EQ(w[1] + w[2] + w[3], 0.0f);
    EXPECT_EQ(idx[0], (8u ^ (4u * 2654435761u)) & 255u);

    HashGridConfig d = c;
    d.log2_hashmap_size = 12;
    HashGrid dense_grid(d);
    ASSERT_TRUE(dense_grid.levels()[0].dense);
    const float q[2] = {0.51f, 1.0f};  // x = 8.16, y = 16 -> clamped cell 15, frac 1
    dense_grid.corners(q, 0, idx, w);
    EXPECT_EQ(idx[0], 8u + 15u * 17u);
    EXPECT_EQ(idx[3], 9u + 16u * 17u);
    EXPECT_NEAR(w[3], 0.16f, 1e-4f);
    EXPECT_NEAR(w[0] + w[1] + w[2] + w[3], 1.0f, 1e-6f);
}

std::vector<float> random_positions(size_t n, int dims, uint64_t seed) {
    Pcg32 rng(seed);
    std::vector<float> p(n * dims);
    for (auto& x : p) x = rng.next_float();
    // Include the box corners and faces, where cells clamp.
    for (int d = 0; d < dims; ++d) {
        p[d] = 0.0f;
        p[dims + d] = 1.0f;
    }
    return p;
}

class HashGridDims : public ::testing::TestWithParam<std::tuple<int, int>> {};

TEST_P(HashGridDims, SimdMatchesScalar) {
    const int dims = std::get<0>(GetParam()), features = std::get<1>(GetParam());
    HashGridConfig c;
    c.n_dims = dims;
    c.n_levels = 12;  // not a multiple of the vector width: exercises lane padding
    c.n_features_per_level = features;
    c.log2_hashmap_size = 14;
    c.per_level_scale = 1.5f;
    HashGrid simd(c, KernelImpl::kSimd), scalar(c, KernelImpl::kScalar);
    std::vector<float> params(simd.n_params());
    Pcg32 rng(1);
    for (auto& p : params) p = rng.next_float() * 2 - 1;
    const size_t n = 203;
    auto pos = random_positions(n, dims, 2);
    const int out_dims = simd.n_output_dims();
    std::vector<float> a(n * out_dims), b(n * out_dims);
    simd.forward(params.data(), pos.data(), n, a.data(), out_dims);
    scalar.forward(params.data(), pos.data(), n, b.data(), out_dims);
    for (size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(a[i], b[i], 1e-5f) << i;

    // Level by level, feature-major: the same values, SIMD and scalar alike.
    for (const HashGrid* grid : {&simd, &scalar}) {
        std::vector<float> fm(out_dims * n, -7.0f);
        for (int l = c.n_levels - 1; l >= 0; --l)
            grid->forward_levels(params.data(), pos.data(), n, fm.data(), n, l, l + 1);
        for (size_t i = 0; i < n; ++i)
            for (int k = 0; k < out_dims; ++k)
                ASSERT_NEAR(fm[k * n + i], b[i * out_dims + k], 1e-5f) << i << " " << k;
    }

    std::vector<float> d_enc(out_dims * n);
    for (auto& x : d_enc) x = rng.next_float() - 0.5f;
    std::vector<float> ga(params.size(), 0), gb(params.size(), 0);
    simd.backward(pos.data(), n, d_enc.data(), n, ga.data(), 0, c.n_levels);
    scalar.backward(pos.data(), n, d_enc.data(), n, gb.data(), 0, c.n_levels);
    for (size_t i = 0; i < ga.size(); ++i) ASSERT_NEAR(ga[i], gb[i], 1e-5f) << i;
}

TEST_P(HashGridDims, GradientMatchesFiniteDifferences) {
    const int dims = std::get<0>(GetParam()), features = std::get<1>(GetParam());
    HashGridConfig c;
    c.n_dims = dims;
    c.n_levels = 4;
    c.n_features_per_level = features;
    c.log2_hashmap_size = 8;  // small: the finer levels hash and collide
    c.per_level_scale = 2.0f;
    c.base_resolution = 4;
    HashGrid grid(c);
    std::vector<float> params(grid.n_params());
    Pcg32 rng(5);
    for (auto& p : params) p = rng.next_float() * 2 - 1;
    const size_t n = 17;
    auto pos = random_positions(n, dims, 6);
    const int out_dims = grid.n_output_dims();
    std::vector<float> w(n * out_dims);
    for (auto& x : w) x = rng.next_float() - 0.5f;
    std::vector<float> enc(n * out_dims);
    auto loss = [&]() {
        grid.forward(params.data(), pos.data(), n, enc.data(), out_dims);
        double l = 0;
        for (size_t i = 0; i < enc.size(); ++i) l += double(w[i]) * enc[i];
        return l;
    };
    // d_enc feature-major: d_enc[k * n + i] = w[i * out_dims + k]
    std::vector<float> d_enc(out_dims * n);
    for (size_t i = 0; i < n; ++i)
        for (int k = 0; k < out_dims; ++k) d_enc[k * n + i] = w[i * out_dims + k];
    std::vector<float> grad(params.size(), 0);
    grid.backward(pos.data(), n, d_enc.data(), n, grad.data(), 0, c.n_levels);
    EXPECT_LT(test::gradient_nmse(params, grad, loss, 1e-2f, test::every_index(params.size(), 3)),
              1e-6);
}

INSTANTIATE_TEST_SUITE_P(DimsAndFeatures, HashGridDims,
                         ::testing::Combine(::testing::Values(2, 3),
                                            ::testing::Values(1, 2, 4, 8)));

TEST(HashGrid, BackwardByLevelRangesEqualsWhole) {
    HashGrid grid(nerf_config());
    const size_t n = 64;
    auto pos = random_positions(n, 3, 9);
    std::vector<float> d_enc(32 * n, 0.25f);
    std::vector<float> whole(grid.n_params(), 0), split(grid.n_params(), 0);
    grid.backward(pos.data(), n, d_enc.data(), n, whole.data(), 0, 16);
    for (int l = 15; l >= 0; --l)
        grid.backward(pos.data(), n, d_enc.data(), n, split.data(), l, l + 1);
    EXPECT_EQ(whole, split);
}

}  // namespace
}  // namespace radiant
