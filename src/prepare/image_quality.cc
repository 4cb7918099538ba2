#include "prepare/image_quality.h"

#include <cmath>

#include "core/error.h"

namespace radiant {

GrayImage to_gray(const RawImage& im) {
    GrayImage g;
    g.width = im.width;
    g.height = im.height;
    g.values.resize(size_t(im.width) * size_t(im.height));
    const int c = im.channels;
    const float unit = im.bit_depth == 16 ? 255.0f / 65535.0f : 1.0f;
    for (size_t i = 0; i < g.values.size(); ++i) {
        const size_t s = i * size_t(c);
        auto at = [&](size_t k) {
            return im.bit_depth == 16 ? float(im.words[s + k]) : float(im.bytes[s + k]);
        };
        g.values[i] = (c >= 3 ? 0.299f * at(0) + 0.587f * at(1) + 0.114f * at(2) : at(0)) * unit;
    }
    return g;
}

double laplacian_variance(const GrayImage& g) {
    if (g.width < 3 || g.height < 3) return 0;
    double sum = 0, sum2 = 0;
    const size_t w = size_t(g.width);
    for (int y = 1; y + 1 < g.height; ++y) {
        const float* row = g.values.data() + size_t(y) * w;
        double rs = 0, rs2 = 0;  // per-row partial sums keep the double adds short
        for (size_t x = 1; x + 1 < w; ++x) {
            const double l =
                double(row[x - 1]) + row[x + 1] + row[x - w] + row[x + w] - 4.0 * row[x];
            rs += l;
            rs2 += l * l;
        }
        sum += rs;
        sum2 += rs2;
    }
    const double n = double(g.width - 2) * double(g.height - 2);
    const double mean = sum / n;
    return std::max(0.0, sum2 / n - mean * mean);
}

std::vector<float> thumbnail(const GrayImage& g, int size) {
    RD_CHECK(size > 0 && g.width > 0 && g.height > 0);
    std::vector<double> acc(size_t(size) * size_t(size), 0.0);
    std::vector<int> count(acc.size(), 0);
    for (int y = 0; y < g.height; ++y) {
        const int ty = int(int64_t(y) * size / g.height);
        for (int x = 0; x < g.width; ++x) {
            const size_t t = size_t(ty) * size_t(size) + size_t(int64_t(x) * size / g.width);
            acc[t] += g.values[size_t(y) * size_t(g.width) + size_t(x)];
            ++count[t];
        }
    }
    std::vector<float> out(acc.size(), 0.0f);
    for (size_t i = 0; i < acc.size(); ++i) out[i] = count[i] ? float(acc[i] / count[i]) : 0.0f;
    return out;
}

double thumbnail_difference(const std::vector<float>& a, const std::vector<float>& b) {
    RD_CHECK(a.size() == b.size() && !a.empty());
    double d = 0;
    for (size_t i = 0; i < a.size(); ++i) d += std::abs(double(a[i]) - double(b[i]));
    return d / double(a.size());
}

}  // namespace radiant
