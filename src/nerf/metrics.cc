#include "nerf/metrics.h"

#include <cmath>
#include <vector>

#include "core/error.h"
#include "core/thread_pool.h"

namespace radiant {

ImageF view_on_background(const ImageSet& set, size_t view, const float background[3]) {
    const StagedImage& im = set.images[view];
    ImageF out(im.width, im.height, 3);
    for (int y = 0; y < im.height; ++y)
        for (int x = 0; x < im.width; ++x) {
            const uint8_t* p = set.pixel(view, x, y);
            const float a = p[3] / 255.0f;
            for (int k = 0; k < 3; ++k)
                out.at(x, y, k) = p[k] / 255.0f + (1.0f - a) * background[k];
        }
    return out;
}

double psnr(const ImageF& a, const ImageF& b) {
    RD_CHECK(a.width == b.width && a.height == b.height && a.channels == 3 && b.channels == 3);
    double sse = 0;
    for (size_t i = 0; i < a.pixels.size(); ++i) {
        const double d = double(a.pixels[i]) - double(b.pixels[i]);
        sse += d * d;
    }
    const double mse = sse / double(a.pixels.size());
    return mse > 0 ? -10.0 * std::log10(mse) : 99.0;
}

double psnr_against_view(const ImageF& rendered, const ImageSet& set, size_t view,
                         const float background[3]) {
    return psnr(rendered, view_on_background(set, view, background));
}

double ssim(const ImageF& a, const ImageF& b, ThreadPool* pool) {
    RD_CHECK(a.width == b.width && a.height == b.height && a.channels == 3 && b.channels == 3);
    constexpr int kSize = 11;
    constexpr double kSigma = 1.5, C1 = 0.01 * 0.01, C2 = 0.03 * 0.03;
    if (a.width < kSize || a.height < kSize) return psnr(a, b) >= 99.0 ? 1.0 : 0.0;
    double kernel[kSize], sum = 0;
    for (int i = 0; i < kSize; ++i)
        sum += kernel[i] = std::exp(-0.5 * std::pow((i - kSize / 2) / kSigma, 2));
    for (double& v : kernel) v /= sum;
    const int w = a.width, h = a.height, ow = w - kSize + 1, oh = h - kSize + 1;
    // Rows are independent in each pass, so both run over the pool; the per-row sums are added
    // in row order afterwards, which keeps the result the same for any thread count.
    auto for_rows = [&](int n, const auto& f) {
        if (pool)
            pool->parallel_for(size_t(n), [&](size_t y, int) { f(int(y)); });
        else
            for (int y = 0; y < n; ++y) f(y);
    };
    // Horizontal pass: for every input row the five window sums (x, y, xx, yy, xy) of each
    // valid column, interleaved per pixel.
    std::vector<double> horiz(size_t(h) * size_t(ow) * 5), row_sum(static_cast<size_t>(oh));
    double total = 0;
    for (int c = 0; c < 3; ++c) {
        for_rows(h, [&](int y) {
            const float* pa = &a.pixels[size_t(y) * w * 3 + c];
            const float* pb = &b.pixels[size_t(y) * w * 3 + c];
            double* out = &horiz[size_t(y) * ow * 5];
            for (int x = 0; x < ow; ++x) {
                double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
                for (int i = 0; i < kSize; ++i) {
                    const double vx = pa[3 * (x + i)], vy = pb[3 * (x + i)], k = kernel[i];
                    sx += k * vx, sy += k * vy, sxx += k * (vx * vx), syy += k * (vy * vy),
                        sxy += k * (vx * vy);
                }
                double* o = out + 5 * x;
                o[0] = sx, o[1] = sy, o[2] = sxx, o[3] = syy, o[4] = sxy;
            }
        });
        // Vertical pass and the SSIM map, one output row at a time.
        for_rows(oh, [&](int y) {
            double s = 0;
            for (int x = 0; x < ow; ++x) {
                double m[5] = {0, 0, 0, 0, 0};
                for (int i = 0; i < kSize; ++i) {
                    const double* v = &horiz[(size_t(y + i) * ow + x) * 5];
                    for (int q = 0; q < 5; ++q) m[q] += kernel[i] * v[q];
                }
                const double mx = m[0], my = m[1];
                const double vx = m[2] - mx * mx, vy = m[3] - my * my, cxy = m[4] - mx * my;
                s += ((2 * mx * my + C1) * (2 * cxy + C2)) /
                     ((mx * mx + my * my + C1) * (vx + vy + C2));
            }
            row_sum[size_t(y)] = s;
        });
        double s = 0;
        for (double r : row_sum) s += r;
        total += s / (double(ow) * double(oh));
    }
    return total / 3.0;
}

}  // namespace radiant
