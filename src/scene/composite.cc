#include "scene/composite.h"

#include <cmath>

namespace radiant {

CompositeResult composite_forward(const float* sigma, const float* rgb, const float* dt, size_t n,
                                  const float background[3], float min_transmittance) {
    CompositeResult r;
    Transmittance T;
    size_t i = 0;
    for (; i < n && T.visible(min_transmittance); ++i) {
        const float w = T.absorb(sigma[i], dt[i]);
        for (int k = 0; k < 3; ++k) r.rgb[k] += w * rgb[3 * i + k];
    }
    for (int k = 0; k < 3; ++k) r.rgb[k] += T.value * background[k];
    r.transmittance = T.value;
    r.samples_used = i;
    return r;
}

size_t samples_in_front(const float* sigma, const float* dt, size_t n, float min_transmittance) {
    Transmittance T;
    size_t i = 0;
    for (; i < n && T.visible(min_transmittance); ++i) T.absorb(sigma[i], dt[i]);
    return i;
}

void composite_backward(const float* sigma, const float* rgb, const float* dt, size_t n,
                        const float background[3], const CompositeResult& forward,
                        const float d_color[3], float* d_sigma, float* d_rgb, float* d_background,
                        float /*min_transmittance*/) {
    // dC/dsigma_k = dt_k (T_{k+1} c_k - S_k), S_k = sum_{i>k} w_i c_i + T_n bg = C - sum_{i<=k} w_i
    // c_i.
    Transmittance T;
    float prefix[3] = {0, 0, 0};  // sum_{i<=k} w_i c_i
    for (size_t i = 0; i < n; ++i) {
        if (i >= forward.samples_used) {
            d_sigma[i] = 0.0f;
            d_rgb[3 * i] = d_rgb[3 * i + 1] = d_rgb[3 * i + 2] = 0.0f;
            continue;
        }
        const float w = T.absorb(sigma[i], dt[i]);
        const float T_next = T.value;
        float g = 0.0f;
        for (int k = 0; k < 3; ++k) {
            prefix[k] += w * rgb[3 * i + k];
            const float suffix = forward.rgb[k] - prefix[k];
            g += d_color[k] * (T_next * rgb[3 * i + k] - suffix);
            d_rgb[3 * i + k] = d_color[k] * w;
        }
        d_sigma[i] = is_far_sample(dt[i]) ? 0.0f : dt[i] * g;
    }
    if (d_background)
        for (int k = 0; k < 3; ++k) d_background[k] = d_color[k] * forward.transmittance;
    (void)background;
}

void scale_near_camera_gradients(const float* t, size_t n, float distance, float* d_sigma,
                                 float* d_rgb) {
    if (distance <= 0.0f) return;
    const float inv = 1.0f / distance;
    for (size_t i = 0; i < n; ++i) {
        const float q = t[i] * inv;
        if (q >= 1.0f) continue;
        const float k = q * q;
        d_sigma[i] *= k;
        for (int c = 0; c < 3; ++c) d_rgb[3 * i + c] *= k;
    }
}

}  // namespace radiant
