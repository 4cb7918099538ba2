// The optional bf16 path of the fused MLP (AMX or AVX512-BF16), against the fp32 path. Skips on
// CPUs with neither (the fp32 path then runs everywhere instead).
#include <gtest/gtest.h>

#include <cmath>

#include "core/rng.h"
#include "nn/amx.h"
#include "nn/mlp.h"

namespace radiant {
namespace {

#define REQUIRE_BF16()                                                                        \
    do {                                                                                      \
        if (!amx::available()) GTEST_SKIP() << "no AMX or AVX512-BF16 on this CPU; skipping"; \
    } while (0)

TEST(Bf16, RoundTripAndRounding) {
    EXPECT_EQ(amx::bf16_to_float(amx::float_to_bf16(1.0f)), 1.0f);
    EXPECT_EQ(amx::bf16_to_float(amx::float_to_bf16(-2.5f)), -2.5f);
    // 1 + 2^-8 is exactly half-way between bf16 neighbours 1 and 1 + 2^-7: rounds to even.
    EXPECT_EQ(amx::bf16_to_float(amx::float_to_bf16(1.00390625f)), 1.0f);
    EXPECT_NEAR(amx::bf16_to_float(amx::float_to_bf16(3.14159f)), 3.14159f, 3.14159f / 256);
    EXPECT_TRUE(std::isnan(amx::bf16_to_float(amx::float_to_bf16(NAN))));
}

// Each backend the CPU has, against a double-precision product of the same bf16 values; shapes
// as the MLP uses them (a 16-row tail, K = a tile of 256 samples for weight gradients).
void check_matmul(void (*mm)(size_t, size_t, size_t, const uint16_t*, size_t, const uint16_t*,
                             float*, size_t, bool),
                  size_t M, size_t N, size_t K, bool accumulate) {
    Pcg32 rng(uint64_t(M * 131 + N * 7 + K));
    std::vector<uint16_t> a(M * K), b_vnni(K * N);
    std::vector<float> af(M * K), bf(K * N);
    for (size_t i = 0; i < M * K; ++i) {
        a[i] = amx::float_to_bf16(rng.next_float() - 0.5f);
        af[i] = amx::bf16_to_float(a[i]);
    }
    for (size_t k = 0; k < K; ++k)
        for (size_t n = 0; n < N; ++n) {
            uint16_t v = amx::float_to_bf16(rng.next_float() - 0.5f);
            bf[k * N + n] = amx::bf16_to_float(v);
            b_vnni[((k / 2) * N + n) * 2 + k % 2] = v;
        }
    std::vector<float> c(M * N, 1.0f);
    mm(M, N, K, a.data(), K, b_vnni.data(), c.data(), N, accumulate);
    for (size_t m = 0; m < M; ++m)
        for (size_t n = 0; n < N; ++n) {
            double ref = accumulate ? 1.0 : 0.0;
            for (size_t k = 0; k < K; ++k) ref += double(af[m * K + k]) * bf[k * N + n];
            ASSERT_NEAR(c[m * N + n], ref, 1e-4 * std::sqrt(double(K)))
                << M << "x" << N << "x" << K << " at " << m << "," << n;
        }
}

void check_backend(void (*mm)(size_t, size_t, size_t, const uint16_t*, size_t, const uint16_t*,
                              float*, size_t, bool)) {
    check_matmul(mm, 48, 80, 64, true);    // every column-panel width: 64 + 16
    check_matmul(mm, 256, 64, 32, false);  // hidden layer forward
    check_matmul(mm, 112, 16, 64, false);  // output layer, 112 = 6 * 18 + 4 rows
    check_matmul(mm, 64, 32, 256, true);   // weight gradient
    check_matmul(mm, 32, 96, 64, false);   // 64 + 32 columns
}

TEST(Amx, MatmulMatchesReferenceOnBf16Inputs) {
    if (amx::backend() != amx::Bf16Backend::kAmx)
        GTEST_SKIP() << "no AMX-BF16 on this CPU; skipping";
    check_backend(amx::matmul_amx);
}

TEST(Avx512Bf16, MatmulMatchesReferenceOnBf16Inputs) {
    if (amx::backend() == amx::Bf16Backend::kNone)
        GTEST_SKIP() << "no AVX512-BF16 on this CPU; skipping";
    check_backend(amx::matmul_avx512);
}

// With weights and inputs that bf16 represents exactly, the two paths differ only by the
// rounding of hidden activations and deltas: a tight bound checks the implementation. With
// arbitrary fp32 weights the divergence is larger (ReLU masks flip near zero): a loose bound.
class Bf16Mlp : public ::testing::TestWithParam<bool> {};

TEST_P(Bf16Mlp, TracksFp32ForwardAndBackward) {
    REQUIRE_BF16();
    const bool representable = GetParam();
    const double tol_fwd = representable ? 1e-5 : 1e-4, tol_bwd = representable ? 1e-3 : 1e-2;
    auto round = [&](float x) {
        return representable ? amx::bf16_to_float(amx::float_to_bf16(x)) : x;
    };
    MlpConfig c;
    c.n_input = 32;
    c.n_output = 3;
    c.n_neurons = 64;
    c.n_hidden_layers = 2;
    MlpConfig cb = c;
    cb.precision = MlpPrecision::kBf16;
    FusedMlp fp32(c), bf16(cb);
    ASSERT_TRUE(bf16.uses_bf16());
    ASSERT_FALSE(fp32.uses_bf16());
    const size_t n = 100;  // not a multiple of 32: exercises padding rows
    std::vector<float> params(fp32.n_params());
    Pcg32 rng(2);
    fp32.init_params(params.data(), rng);
    for (auto& p : params) p = round(p);
    std::vector<float> p32(fp32.packed_size()), p16(bf16.packed_size());
    fp32.pack(params.data(), p32.data());
    bf16.pack(params.data(), p16.data());
    std::vector<float> input(n * 32), d_out(n * 3);
    for (auto& x : input) x = round(rng.next_float() - 0.5f);
    for (auto& x : d_out) x = round(rng.next_float() - 0.5f);
    auto w32 = fp32.make_workspace(128), w16 = bf16.make_workspace(128);
    const float* y32 = fp32.forward(p32.data(), input.data(), 32, n, w32);
    const float* y16 = bf16.forward(p16.data(), input.data(), 32, n, w16);
    double err = 0, ref = 0;
    for (size_t i = 0; i < n; ++i)
        for (int o = 0; o < 3; ++o) {
            double d = y16[i * 16 + o] - y32[i * 16 + o];
            err += d * d;
            ref += double(y32[i * 16 + o]) * y32[i * 16 + o];
        }
    EXPECT_LT(err / ref, tol_fwd) << "bf16 forward relative error";
    std::vector<float> g32(fp32.n_params(), 0), g16(fp32.n_params(), 0), dx32(n * 32), dx16(n * 32);
    fp32.backward(params.data(), p32.data(), input.data(), 32, n, d_out.data(), 3, w32, g32.data(),
                  dx32.data());
    bf16.backward(params.data(), p16.data(), input.data(), 32, n, d_out.data(), 3, w16, g16.data(),
                  dx16.data());
    auto rel = [](const std::vector<float>& a, const std::vector<float>& b) {
        double e = 0, r = 0;
        for (size_t i = 0; i < a.size(); ++i)
            e += double(a[i] - b[i]) * (a[i] - b[i]), r += double(b[i]) * b[i];
        return e / r;
    };
    EXPECT_LT(rel(g16, g32), tol_bwd) << "weight gradients";
    EXPECT_LT(rel(dx16, dx32), tol_bwd) << "input gradients";
}

INSTANTIATE_TEST_SUITE_P(Weights, Bf16Mlp, ::testing::Values(true, false));

}  // namespace
}  // namespace radiant
