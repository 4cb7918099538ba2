#include "nerf/metrics.h"

#include <cmath>
#include <vector>

#include "core/error.h"

namespace radiant {

ImageF view_on_background(const ImageSet& set, size_t view, const float background[3]) {
    const StagedImage& im = set.images[view];
    ImageF out(im.width, im.height, 3);
    for (int y = 0; y < im.height; ++y)
        for (int x = 0; x < im.width; ++x) {
            const uint8_t* p = set.pixel(view, x, y);
            const float a = p[3] / 255.0f;
            for (int k = 0; k < 3; ++k) out.at(x, y, k) = p[k] / 255.0f + (1.0f - a) * background[k];
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

namespace {
// "Valid" separable filtering of one plane with a normalised 1D kernel.
std::vector<double> filter_valid(const std::vector<double>& in, int w, int h, const std::vector<double>& k) {
    const int r = int(k.size()), ow = w - r + 1, oh = h - r + 1;
    std::vector<double> tmp(size_t(ow) * h), out(size_t(ow) * oh);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < ow; ++x) {
            double s = 0;
            for (int i = 0; i < r; ++i) s += k[i] * in[size_t(y) * w + x + i];
            tmp[size_t(y) * ow + x] = s;
        }
    for (int y = 0; y < oh; ++y)
        for (int x = 0; x < ow; ++x) {
            double s = 0;
            for (int i = 0; i < r; ++i) s += k[i] * tmp[size_t(y + i) * ow + x];
            out[size_t(y) * ow + x] = s;
        }
    return out;
}
}  // namespace

double ssim(const ImageF& a, const ImageF& b) {
    RD_CHECK(a.width == b.width && a.height == b.height && a.channels == 3 && b.channels == 3);
    constexpr int kSize = 11;
    constexpr double kSigma = 1.5, C1 = 0.01 * 0.01, C2 = 0.03 * 0.03;
    if (a.width < kSize || a.height < kSize) return psnr(a, b) >= 99.0 ? 1.0 : 0.0;
    std::vector<double> kernel(kSize);
    double sum = 0;
    for (int i = 0; i < kSize; ++i) sum += kernel[i] = std::exp(-0.5 * std::pow((i - kSize / 2) / kSigma, 2));
    for (double& v : kernel) v /= sum;
    const int w = a.width, h = a.height;
    const size_t n = size_t(w) * h;
    double total = 0;
    for (int c = 0; c < 3; ++c) {
        std::vector<double> x(n), y(n), xx(n), yy(n), xy(n);
        for (size_t i = 0; i < n; ++i) {
            x[i] = a.pixels[3 * i + c], y[i] = b.pixels[3 * i + c];
            xx[i] = x[i] * x[i], yy[i] = y[i] * y[i], xy[i] = x[i] * y[i];
        }
        const auto mx = filter_valid(x, w, h, kernel), my = filter_valid(y, w, h, kernel);
        const auto sxx = filter_valid(xx, w, h, kernel), syy = filter_valid(yy, w, h, kernel),
                   sxy = filter_valid(xy, w, h, kernel);
        double s = 0;
        for (size_t i = 0; i < mx.size(); ++i) {
            const double vx = sxx[i] - mx[i] * mx[i], vy = syy[i] - my[i] * my[i], cxy = sxy[i] - mx[i] * my[i];
            s += ((2 * mx[i] * my[i] + C1) * (2 * cxy + C2)) /
                 ((mx[i] * mx[i] + my[i] * my[i] + C1) * (vx + vy + C2));
        }
        total += s / double(mx.size());
    }
    return total / 3.0;
}

}  // namespace radiant
