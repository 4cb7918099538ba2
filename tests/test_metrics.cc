// Image metrics: known answers for PSNR and SSIM.
#include <gtest/gtest.h>

#include <cmath>

#include "core/rng.h"
#include "nerf/metrics.h"

namespace radiant {
namespace {

ImageF constant(int w, int h, float v) {
    ImageF img(w, h, 3);
    for (float& p : img.pixels) p = v;
    return img;
}

TEST(Metrics, PsnrKnownAnswers) {
    EXPECT_NEAR(psnr(constant(8, 8, 0.5f), constant(8, 8, 0.6f)), 20.0, 1e-4);  // mse 0.01
    EXPECT_EQ(psnr(constant(8, 8, 0.5f), constant(8, 8, 0.5f)), 99.0);
}

TEST(Metrics, SsimKnownAnswers) {
    // Constant images: only the luminance term remains, (2ab + C1) / (a^2 + b^2 + C1).
    const double C1 = 1e-4;
    const double want = (2 * 0.5 * 0.6 + C1) / (0.25 + 0.36 + C1);
    EXPECT_NEAR(ssim(constant(20, 16, 0.5f), constant(20, 16, 0.6f)), want, 1e-6);
    ImageF noise(32, 32, 3);
    Pcg32 rng(1, 0);
    for (float& p : noise.pixels) p = rng.next_float();
    EXPECT_NEAR(ssim(noise, noise), 1.0, 1e-9);
    // Independent noise images are structurally unrelated.
    ImageF other(32, 32, 3);
    for (float& p : other.pixels) p = rng.next_float();
    EXPECT_LT(ssim(noise, other), 0.1);
    // Symmetric.
    EXPECT_NEAR(ssim(noise, other), ssim(other, noise), 1e-12);
}

}  // namespace
}  // namespace radiant
