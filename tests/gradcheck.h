// Finite-difference gradient checks: central differences, compared by normalised mean
// squared error (ggml's test-backend-ops style) so one kink does not fail a whole check.
#pragma once

#include <cmath>
#include <functional>
#include <vector>

namespace radiant::test {

// Returns NMSE = |analytic - numeric|^2 / |numeric|^2 over the checked coordinates.
// `loss(x)` must be a scalar function of the perturbed vector.
inline double gradient_nmse(std::vector<float>& x, const std::vector<float>& analytic,
                            const std::function<double()>& loss, float eps,
                            const std::vector<size_t>& indices) {
    double err = 0, ref = 0;
    for (size_t i : indices) {
        float saved = x[i];
        x[i] = saved + eps;
        double up = loss();
        x[i] = saved - eps;
        double down = loss();
        x[i] = saved;
        double numeric = (up - down) / (2.0 * eps);
        err += (analytic[i] - numeric) * (analytic[i] - numeric);
        ref += numeric * numeric;
    }
    return ref > 0 ? err / ref : err;
}

inline std::vector<size_t> every_index(size_t n, size_t stride = 1) {
    std::vector<size_t> v;
    for (size_t i = 0; i < n; i += stride) v.push_back(i);
    return v;
}

}  // namespace radiant::test
