// Image metrics: known answers for PSNR and SSIM.
#include <gtest/gtest.h>

#include <cmath>

#include "core/rng.h"
#include "core/thread_pool.h"
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

// SSIM straight from its definition: every 11x11 window weighted by the 2D Gaussian.
double ssim_by_windows(const ImageF& a, const ImageF& b) {
    const int r = 11;
    double g[r], sum = 0;
    for (int i = 0; i < r; ++i) sum += g[i] = std::exp(-0.5 * std::pow((i - 5) / 1.5, 2));
    for (double& v : g) v /= sum;
    double total = 0;
    for (int c = 0; c < 3; ++c) {
        double s = 0;
        for (int y0 = 0; y0 + r <= a.height; ++y0)
            for (int x0 = 0; x0 + r <= a.width; ++x0) {
                double mx = 0, my = 0, xx = 0, yy = 0, xy = 0;
                for (int j = 0; j < r; ++j)
                    for (int i = 0; i < r; ++i) {
                        const double k = g[i] * g[j], u = a.at(x0 + i, y0 + j, c),
                                     v = b.at(x0 + i, y0 + j, c);
                        mx += k * u, my += k * v, xx += k * u * u, yy += k * v * v, xy += k * u * v;
                    }
                const double vx = xx - mx * mx, vy = yy - my * my, cxy = xy - mx * my;
                s += ((2 * mx * my + 1e-4) * (2 * cxy + 9e-4)) /
                     ((mx * mx + my * my + 1e-4) * (vx + vy + 9e-4));
            }
        total += s / double((a.width - r + 1) * (a.height - r + 1));
    }
    return total / 3;
}

TEST(Metrics, SsimMatchesTheWindowDefinitionWithAndWithoutThreads) {
    ImageF a(37, 23, 3), b(37, 23, 3);
    Pcg32 rng(7, 0);
    for (size_t i = 0; i < a.pixels.size(); ++i) {
        a.pixels[i] = rng.next_float();
        b.pixels[i] =
            0.7f * a.pixels[i] + 0.3f * rng.next_float();  // related, so SSIM is mid-range
    }
    const double want = ssim_by_windows(a, b);
    EXPECT_GT(want, 0.3);
    EXPECT_LT(want, 0.95);
    EXPECT_NEAR(ssim(a, b), want, 1e-12);
    ThreadPool pool(3);
    EXPECT_EQ(ssim(a, b, &pool), ssim(a, b));  // row sums are added in order: thread-independent
}

}  // namespace
}  // namespace radiant
