#include "scene/contraction.h"

#include <algorithm>
#include <cmath>

namespace radiant {

namespace {
// The axis of the largest |u_i| (the max norm's), lowest index on ties.
int max_axis(const float u[3]) {
    int k = 0;
    for (int i = 1; i < 3; ++i)
        if (std::abs(u[i]) > std::abs(u[k])) k = i;
    return k;
}
}  // namespace

Vec3 SceneContraction::contract(const Vec3& p) const {
    const float u[3] = {(p.x - center.x) / radius, (p.y - center.y) / radius,
                        (p.z - center.z) / radius};
    const float n = std::abs(u[max_axis(u)]);
    if (n <= 1.0f) return {u[0], u[1], u[2]};
    const float s = (2.0f - 1.0f / n) / n;
    return {u[0] * s, u[1] * s, u[2] * s};
}

Vec3 SceneContraction::uncontract(const Vec3& c) const {
    const float v[3] = {c.x, c.y, c.z};
    const float m = std::abs(v[max_axis(v)]);
    float s = 1.0f;
    if (m > 1.0f) s = 1.0f / ((2.0f - m) * m);  // n = 1 / (2 - m), u = v n / m
    return {center.x + radius * v[0] * s, center.y + radius * v[1] * s,
            center.z + radius * v[2] * s};
}

void SceneContraction::jacobian(const Vec3& p, float out[9]) const {
    const float u[3] = {(p.x - center.x) / radius, (p.y - center.y) / radius,
                        (p.z - center.z) / radius};
    const int k = max_axis(u);
    const float n = std::abs(u[k]);
    std::fill(out, out + 9, 0.0f);
    if (n <= 1.0f) {
        for (int i = 0; i < 3; ++i) out[4 * i] = 1.0f / radius;
        return;
    }
    // f(u) = g(n) u with g(n) = 2/n - 1/n^2: df/du = g I + u (g'(n) dn/du)^T, dn/du = sign e_k.
    const float g = 2.0f / n - 1.0f / (n * n), dg = -2.0f / (n * n) + 2.0f / (n * n * n);
    const float sign = u[k] < 0 ? -1.0f : 1.0f;
    for (int i = 0; i < 3; ++i) {
        out[4 * i] = g;
        out[3 * i + k] += u[i] * dg * sign;
    }
    for (int i = 0; i < 9; ++i) out[i] /= radius;
}

}  // namespace radiant
