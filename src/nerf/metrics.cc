#include "nerf/metrics.h"

#include <cmath>

#include "core/error.h"

namespace radiant {

double psnr_against_view(const ImageF& rendered, const ImageSet& set, size_t view,
                         const float background[3]) {
    const StagedImage& im = set.images[view];
    RD_CHECK(rendered.width == im.width && rendered.height == im.height && rendered.channels == 3);
    double sse = 0;
    for (int y = 0; y < im.height; ++y)
        for (int x = 0; x < im.width; ++x) {
            const uint8_t* p = set.pixel(view, x, y);
            const double a = p[3] / 255.0;
            for (int k = 0; k < 3; ++k) {
                const double d = rendered.at(x, y, k) - (p[k] / 255.0 + (1.0 - a) * background[k]);
                sse += d * d;
            }
        }
    const double mse = sse / (double(im.width) * im.height * 3);
    return mse > 0 ? -10.0 * std::log10(mse) : 99.0;
}

}  // namespace radiant
