#include "fit/test_pattern.h"

#include <algorithm>
#include <cmath>

namespace radiant {

ImageF make_test_pattern(int width, int height) {
    ImageF img(width, height, 3);
    const float s = float(std::min(width, height));
    const float kPi = 3.14159265358979f;
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            // Normalised coordinates, square pixels, [0, 1] on the short side.
            float u = (x + 0.5f) / s, v = (y + 0.5f) / s;
            float r = 0.2f + 0.6f * u / (width / s);
            float g = 0.25f + 0.5f * v / (height / s);
            float b = 0.5f + 0.3f * std::sin(2 * kPi * (u + v));
            // Checkerboard (period s/16) in the top-left quadrant.
            if (u < 0.5f && v < 0.5f) {
                bool odd = (int(u * 32) + int(v * 32)) & 1;
                float c = odd ? 0.9f : 0.1f;
                r = 0.5f * r + 0.5f * c;
                g = 0.5f * g + 0.5f * c;
                b = 0.5f * b + 0.5f * (1.0f - c);
            }
            // Discs with hard edges in the top-right quadrant.
            for (int k = 0; k < 3; ++k) {
                float cx = 0.62f + 0.12f * k, cy = 0.15f + 0.12f * k, rad = 0.05f + 0.02f * k;
                if ((u - cx) * (u - cx) + (v - cy) * (v - cy) < rad * rad) {
                    r = k == 0 ? 0.95f : 0.1f;
                    g = k == 1 ? 0.9f : 0.15f;
                    b = k == 2 ? 0.95f : 0.2f;
                }
            }
            // Fine diagonal stripes (period ~ s/40) bottom-left.
            if (u < 0.5f && v >= 0.5f) {
                float t = 0.5f + 0.5f * std::sin(2 * kPi * 40.0f * (u * 0.8f + v * 0.6f));
                r = 0.6f * r + 0.4f * t;
                g = 0.6f * g + 0.4f * (1.0f - t);
            }
            // Zone plate bottom-right, frequency rising to ~s/12 at the corner.
            if (u >= 0.5f && v >= 0.5f) {
                float du = u - 0.75f, dv = v - 0.75f;
                float t = 0.5f + 0.5f * std::cos(2 * kPi * 200.0f * (du * du + dv * dv));
                b = 0.4f * b + 0.6f * t;
                r = 0.7f * r + 0.3f * t;
            }
            img.at(x, y, 0) = std::clamp(r, 0.0f, 1.0f);
            img.at(x, y, 1) = std::clamp(g, 0.0f, 1.0f);
            img.at(x, y, 2) = std::clamp(b, 0.0f, 1.0f);
        }
    }
    return img;
}

}  // namespace radiant
