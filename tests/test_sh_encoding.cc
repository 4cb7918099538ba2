#include <gtest/gtest.h>

#include <cmath>

#include "core/rng.h"
#include "gradcheck.h"
#include "nn/sh_encoding.h"

namespace radiant {
namespace {

std::vector<float> unit_dirs(size_t n, uint64_t seed) {
    Pcg32 rng(seed);
    std::vector<float> d(n * 3);
    for (size_t i = 0; i < n; ++i) {
        float x = rng.next_float() * 2 - 1, y = rng.next_float() * 2 - 1,
              z = rng.next_float() * 2 - 1;
        float len = std::sqrt(x * x + y * y + z * z) + 1e-6f;
        d[3 * i] = x / len;
        d[3 * i + 1] = y / len;
        d[3 * i + 2] = z / len;
    }
    return d;
}

TEST(ShEncoding, KnownValuesAlongZ) {
    const float dir[3] = {0, 0, 1};
    float out[16];
    sh_encode(dir, 1, out, 16, KernelImpl::kScalar);
    EXPECT_NEAR(out[0], 0.2820948f, 1e-6f);   // 1 / (2 sqrt(pi))
    EXPECT_NEAR(out[2], 0.4886025f, 1e-6f);   // sqrt(3 / (4 pi)) z
    EXPECT_NEAR(out[6], 0.6307831f, 1e-6f);   // sqrt(5 / (16 pi)) (3z^2 - 1)
    EXPECT_NEAR(out[12], 0.7463527f, 1e-6f);  // sqrt(7 / (16 pi)) (5z^3 - 3z)
    for (int k : {1, 3, 4, 5, 7, 8, 9, 10, 11, 13, 14, 15}) EXPECT_NEAR(out[k], 0.0f, 1e-7f) << k;
}

TEST(ShEncoding, SimdMatchesScalar) {
    const size_t n = 37;
    auto dirs = unit_dirs(n, 1);
    std::vector<float> a(n * 20, -1), b(n * 20, -1);
    sh_encode(dirs.data(), n, a.data(), 20, KernelImpl::kSimd);
    sh_encode(dirs.data(), n, b.data(), 20, KernelImpl::kScalar);
    for (size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(a[i], b[i], 1e-6f);
    EXPECT_EQ(a[16], -1.0f) << "stride padding untouched";
    std::vector<float> g(n * 20);
    Pcg32 rng(2);
    for (auto& x : g) x = rng.next_float() - 0.5f;
    std::vector<float> da(n * 3), db(n * 3);
    sh_encode_backward(dirs.data(), n, g.data(), 20, da.data(), KernelImpl::kSimd);
    sh_encode_backward(dirs.data(), n, g.data(), 20, db.data(), KernelImpl::kScalar);
    for (size_t i = 0; i < da.size(); ++i) ASSERT_NEAR(da[i], db[i], 1e-5f);
}

TEST(ShEncoding, GradientMatchesFiniteDifferences) {
    const size_t n = 11;
    auto dirs = unit_dirs(n, 3);
    std::vector<float> w(n * 16);
    Pcg32 rng(4);
    for (auto& x : w) x = rng.next_float() - 0.5f;
    std::vector<float> out(n * 16);
    auto loss = [&]() {
        sh_encode(dirs.data(), n, out.data(), 16, KernelImpl::kScalar);
        double l = 0;
        for (size_t i = 0; i < out.size(); ++i) l += double(w[i]) * out[i];
        return l;
    };
    std::vector<float> grad(n * 3);
    sh_encode_backward(dirs.data(), n, w.data(), 16, grad.data(), KernelImpl::kScalar);
    EXPECT_LT(test::gradient_nmse(dirs, grad, loss, 1e-3f, test::every_index(dirs.size())), 1e-6);
}

}  // namespace
}  // namespace radiant
