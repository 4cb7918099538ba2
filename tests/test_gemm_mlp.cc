#include <gtest/gtest.h>

#include <cmath>

#include "core/rng.h"
#include "gradcheck.h"
#include "nn/gemm.h"
#include "nn/mlp.h"

namespace radiant {
namespace {

std::vector<float> randoms(size_t n, uint64_t seed, float scale = 1.0f) {
    Pcg32 rng(seed);
    std::vector<float> v(n);
    for (auto& x : v) x = (rng.next_float() * 2 - 1) * scale;
    return v;
}

// SIMD GEMM agrees with the reference on every shape the MLP uses, incl. strides and masks.
TEST(Gemm, SimdMatchesReference) {
    struct Shape {
        size_t M, N, K;
        bool transposed_a;
        bool accumulate, relu, mask;
    };
    const Shape shapes[] = {
        {128, 64, 32, false, false, true, false}, {128, 16, 64, false, false, false, false},
        {64, 64, 128, true, true, false, false},  {32, 16, 128, true, true, false, false},
        {128, 64, 3, false, false, false, true},  {7, 32, 5, false, true, true, true},
        {1, 128, 64, false, false, false, false}, {130, 48, 16, true, false, false, false}};
    for (const Shape& s : shapes) {
        auto a = randoms(s.M * s.K, 1), b = randoms(s.K * s.N, 2), mask = randoms(s.M * s.N, 3);
        auto c_simd = randoms(s.M * s.N, 4), c_ref = c_simd;
        GemmArgs g;
        g.M = s.M;
        g.N = s.N;
        g.K = s.K;
        g.A = a.data();
        g.a_row_stride = s.transposed_a ? 1 : s.K;
        g.a_col_stride = s.transposed_a ? s.M : 1;
        g.B = b.data();
        g.ldb = s.N;
        g.ldc = s.N;
        g.accumulate = s.accumulate;
        g.relu = s.relu;
        if (s.mask) {
            g.relu_mask = mask.data();
            g.ld_mask = s.N;
        }
        g.C = c_simd.data();
        gemm(g, KernelImpl::kSimd);
        g.C = c_ref.data();
        gemm(g, KernelImpl::kScalar);
        for (size_t i = 0; i < c_ref.size(); ++i)
            ASSERT_NEAR(c_simd[i], c_ref[i], 1e-4f * (1.0f + std::abs(c_ref[i])))
                << "M=" << s.M << " N=" << s.N << " K=" << s.K << " i=" << i;
    }
}

TEST(FusedMlp, StructureAndParameterOffsets) {
    MlpConfig c;
    c.n_input = 32;
    c.n_output = 3;
    c.n_neurons = 64;
    c.n_hidden_layers = 2;
    FusedMlp mlp(c);
    EXPECT_EQ(mlp.n_layers(), 3);
    EXPECT_EQ(mlp.n_params(), 32u * 64 + 64u * 64 + 64u * 3);
    EXPECT_EQ(mlp.layer_param_offset(1), 32u * 64);
    EXPECT_EQ(mlp.layer_param_offset(2), 32u * 64 + 64u * 64);
    EXPECT_EQ(mlp.output_stride(), 16);
    EXPECT_EQ(mlp.packed_size(), 32u * 64 + 64u * 64 + 64u * 16);
    EXPECT_DOUBLE_EQ(mlp.flops_per_sample(true), 2.0 * 3 * (32 * 64 + 64 * 64 + 64 * 3));
}

// Loss = sum_i sum_o w[i][o] * y[i][o]; checks dL/dparams and dL/dinput against central
// differences for each output activation, SIMD and scalar.
class MlpGradient : public ::testing::TestWithParam<std::tuple<Activation, KernelImpl>> {};

TEST_P(MlpGradient, MatchesFiniteDifferences) {
    const Activation act = std::get<0>(GetParam());
    const KernelImpl impl = std::get<1>(GetParam());
    MlpConfig c;
    c.n_input = 16;
    c.n_output = 3;
    c.n_neurons = 16;
    c.n_hidden_layers = 2;
    c.output_activation = act;
    FusedMlp mlp(c, impl);
    const size_t n = 9;
    std::vector<float> params(mlp.n_params());
    Pcg32 rng(7);
    mlp.init_params(params.data(), rng);
    std::vector<float> input = randoms(n * 16, 8);
    std::vector<float> weights = randoms(n * 3, 9);
    auto ws = mlp.make_workspace(n);
    std::vector<float> packed(mlp.packed_size());

    auto loss = [&]() {
        mlp.pack(params.data(), packed.data());
        const float* y = mlp.forward(packed.data(), input.data(), 16, n, ws);
        double l = 0;
        for (size_t i = 0; i < n; ++i)
            for (int o = 0; o < 3; ++o)
                l += double(weights[i * 3 + o]) * y[i * mlp.output_stride() + o];
        return l;
    };
    loss();
    std::vector<float> grads(mlp.n_params(), 0.0f);
    std::vector<float> d_input(n * 16);
    mlp.backward(params.data(), packed.data(), input.data(), 16, n, weights.data(), 3, ws,
                 grads.data(), d_input.data());

    double nmse_p =
        test::gradient_nmse(params, grads, loss, 1e-3f, test::every_index(params.size()));
    double nmse_x =
        test::gradient_nmse(input, d_input, loss, 1e-3f, test::every_index(input.size()));
    EXPECT_LT(nmse_p, 1e-4) << activation_name(act);
    EXPECT_LT(nmse_x, 1e-4) << activation_name(act);
}

INSTANTIATE_TEST_SUITE_P(
    Activations, MlpGradient,
    ::testing::Combine(::testing::Values(Activation::kNone, Activation::kReLU, Activation::kSigmoid,
                                         Activation::kExp),
                       ::testing::Values(KernelImpl::kSimd, KernelImpl::kScalar)));

TEST(FusedMlp, SimdMatchesScalarForwardAndBackward) {
    MlpConfig c;
    c.n_input = 32;
    c.n_output = 16;
    c.n_neurons = 64;
    c.n_hidden_layers = 3;
    c.output_activation = Activation::kSigmoid;
    FusedMlp simd(c, KernelImpl::kSimd), scalar(c, KernelImpl::kScalar);
    const size_t n = 100;
    std::vector<float> params(simd.n_params());
    Pcg32 rng(3);
    simd.init_params(params.data(), rng);
    std::vector<float> packed(simd.packed_size());
    simd.pack(params.data(), packed.data());
    auto input = randoms(n * 32, 4);
    auto d_out = randoms(n * 16, 5);
    auto ws1 = simd.make_workspace(128), ws2 = scalar.make_workspace(128);
    const float* y1 = simd.forward(packed.data(), input.data(), 32, n, ws1);
    const float* y2 = scalar.forward(packed.data(), input.data(), 32, n, ws2);
    for (size_t i = 0; i < n * 16; ++i) ASSERT_NEAR(y1[i], y2[i], 1e-5f);
    std::vector<float> g1(simd.n_params(), 0), g2(simd.n_params(), 0), dx1(n * 32), dx2(n * 32);
    simd.backward(params.data(), packed.data(), input.data(), 32, n, d_out.data(), 16, ws1,
                  g1.data(), dx1.data());
    scalar.backward(params.data(), packed.data(), input.data(), 32, n, d_out.data(), 16, ws2,
                    g2.data(), dx2.data());
    for (size_t i = 0; i < g1.size(); ++i) ASSERT_NEAR(g1[i], g2[i], 1e-4f * (1 + std::abs(g2[i])));
    for (size_t i = 0; i < dx1.size(); ++i) ASSERT_NEAR(dx1[i], dx2[i], 1e-5f);
}

TEST(FusedMlp, WidthsSixteenToOneTwentyEight) {
    for (int width : {16, 32, 64, 128}) {
        MlpConfig c;
        c.n_input = 32;
        c.n_neurons = width;
        c.n_output = 4;
        FusedMlp mlp(c);
        std::vector<float> params(mlp.n_params()), packed(mlp.packed_size());
        Pcg32 rng(1);
        mlp.init_params(params.data(), rng);
        mlp.pack(params.data(), packed.data());
        auto input = randoms(64 * 32, 2);
        auto ws = mlp.make_workspace(64);
        const float* y = mlp.forward(packed.data(), input.data(), 32, 64, ws);
        double energy = 0;
        for (int i = 0; i < 64 * mlp.output_stride(); ++i) energy += std::abs(y[i]);
        EXPECT_GT(energy, 0.0) << "width " << width;
    }
}

// The hash grid's feature-major encoding is read and its gradient written where they lie: the
// same bits as through a row-major copy, forward and backward, fp32 and (where the CPU has it)
// bf16; outputs written into a wider buffer (the next network's input) are the same values.
TEST(FusedMlp, FeatureMajorInputGivesTheSameBitsAsRowMajor) {
    for (MlpPrecision precision : {MlpPrecision::kFp32, MlpPrecision::kBf16}) {
        MlpConfig c;
        c.n_input = 32;
        c.n_output = 16;
        c.n_neurons = 64;
        c.n_hidden_layers = 1;
        c.precision = precision;
        FusedMlp mlp(c);
        const size_t n = 77, run = 90;  // a tile of a longer feature-major run
        std::vector<float> params(mlp.n_params()), packed(mlp.packed_size());
        Pcg32 rng(7);
        mlp.init_params(params.data(), rng);
        mlp.pack(params.data(), packed.data());
        auto rows = randoms(n * 32, 8), d_out = randoms(n * 16, 9);
        std::vector<float> columns(32 * run, 0.0f);
        for (size_t i = 0; i < n; ++i)
            for (size_t k = 0; k < 32; ++k) columns[k * run + i] = rows[i * 32 + k];
        auto ws_rows = mlp.make_workspace(96), ws_cols = mlp.make_workspace(96);
        const float* y_rows = mlp.forward(packed.data(), rows.data(), 32, n, ws_rows);
        std::vector<float> wide(FusedMlp::padded_rows(n) * 48, -1.0f);
        const float* y_cols = mlp.forward(packed.data(), TileInput{columns.data(), 1, run}, n,
                                          ws_cols, wide.data(), 48);
        ASSERT_EQ(y_cols, wide.data());
        for (size_t i = 0; i < n; ++i)
            for (size_t k = 0; k < 16; ++k)
                ASSERT_EQ(y_rows[i * mlp.output_stride() + k], wide[i * 48 + k]) << i << " " << k;
        EXPECT_EQ(wide[32], -1.0f);  // columns past the outputs are left alone
        std::vector<float> g_rows(mlp.n_params(), 0.5f), g_cols = g_rows;
        std::vector<float> dx_rows(n * 32), dx_cols(32 * run, 0.0f);
        mlp.backward(params.data(), packed.data(), rows.data(), 32, n, d_out.data(), 16, ws_rows,
                     g_rows.data(), dx_rows.data());
        mlp.backward(params.data(), packed.data(), TileInput{columns.data(), 1, run}, n,
                     d_out.data(), 16, ws_cols, g_cols.data(),
                     TileGradient{dx_cols.data(), 1, run});
        for (size_t j = 0; j < g_rows.size(); ++j) ASSERT_EQ(g_rows[j], g_cols[j]) << j;
        for (size_t i = 0; i < n; ++i)
            for (size_t k = 0; k < 32; ++k)
                ASSERT_EQ(dx_rows[i * 32 + k], dx_cols[k * run + i]) << i << " " << k;
    }
}

}  // namespace
}  // namespace radiant
