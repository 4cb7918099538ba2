#include "core/geometry.h"

#include <algorithm>
#include <cmath>

namespace radiant {

Mat3d Mat3d::operator*(const Mat3d& o) const {
    Mat3d r;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            double s = 0;
            for (int k = 0; k < 3; ++k) s += (*this)(i, k) * o(k, j);
            r(i, j) = s;
        }
    return r;
}

Mat3d Mat3d::transposed() const {
    Mat3d r;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) r(i, j) = (*this)(j, i);
    return r;
}

double Mat3d::determinant() const {
    const auto& a = m;
    return a[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (a[3] * a[8] - a[5] * a[6]) +
           a[2] * (a[3] * a[7] - a[4] * a[6]);
}

Mat3d quaternion_to_rotation(double w, double x, double y, double z) {
    const double n = std::sqrt(w * w + x * x + y * y + z * z);
    w /= n, x /= n, y /= n, z /= n;
    Mat3d r;
    r.m = {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
           2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
           2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)};
    return r;
}

std::array<double, 4> rotation_to_quaternion(const Mat3d& r) {
    // Shepperd's method: pick the largest of the four squared components for stability.
    const double t = r(0, 0) + r(1, 1) + r(2, 2);
    std::array<double, 4> q;
    if (t > r(0, 0) && t > r(1, 1) && t > r(2, 2)) {
        const double s = std::sqrt(1 + t) * 2;
        q = {0.25 * s, (r(2, 1) - r(1, 2)) / s, (r(0, 2) - r(2, 0)) / s, (r(1, 0) - r(0, 1)) / s};
    } else if (r(0, 0) > r(1, 1) && r(0, 0) > r(2, 2)) {
        const double s = std::sqrt(1 + r(0, 0) - r(1, 1) - r(2, 2)) * 2;
        q = {(r(2, 1) - r(1, 2)) / s, 0.25 * s, (r(0, 1) + r(1, 0)) / s, (r(0, 2) + r(2, 0)) / s};
    } else if (r(1, 1) > r(2, 2)) {
        const double s = std::sqrt(1 + r(1, 1) - r(0, 0) - r(2, 2)) * 2;
        q = {(r(0, 2) - r(2, 0)) / s, (r(0, 1) + r(1, 0)) / s, 0.25 * s, (r(1, 2) + r(2, 1)) / s};
    } else {
        const double s = std::sqrt(1 + r(2, 2) - r(0, 0) - r(1, 1)) * 2;
        q = {(r(1, 0) - r(0, 1)) / s, (r(0, 2) + r(2, 0)) / s, (r(1, 2) + r(2, 1)) / s, 0.25 * s};
    }
    const double n = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    const double sign = q[0] < 0 ? -1.0 : 1.0;
    for (double& v : q) v *= sign / n;
    return q;
}

Mat3d rotation_between(const Vec3d& from, const Vec3d& to) {
    const Vec3d a = normalized(from), b = normalized(to);
    const Vec3d v = cross(a, b);
    const double c = dot(a, b), s = norm(v);
    if (s < 1e-12) {
        if (c > 0) return Mat3d{};
        // Opposite vectors: a half turn about any axis perpendicular to a.
        Vec3d axis = std::abs(a.x) < 0.9 ? cross(a, {1, 0, 0}) : cross(a, {0, 1, 0});
        axis = normalized(axis);
        return quaternion_to_rotation(0, axis.x, axis.y, axis.z);
    }
    // Rodrigues: R = I + [v]x + [v]x^2 (1 - c) / s^2.
    Mat3d k;
    k.m = {0, -v.z, v.y, v.z, 0, -v.x, -v.y, v.x, 0};
    const Mat3d k2 = k * k;
    Mat3d r;
    for (size_t i = 0; i < 9; ++i) r.m[i] += k.m[i] + k2.m[i] * (1 - c) / (s * s);
    return r;
}

double rotation_angle_degrees(const Mat3d& a, const Mat3d& b) {
    // Through the quaternion of a^T b: 2 atan2(|xyz|, w) keeps small angles precise, where
    // acos of the trace loses half the digits.
    const auto q = rotation_to_quaternion(a.transposed() * b);
    return 2 * std::atan2(std::sqrt(q[1] * q[1] + q[2] * q[2] + q[3] * q[3]), std::abs(q[0])) *
           180.0 / 3.14159265358979323846;
}

Similarity Similarity::after(const Similarity& first) const {
    Similarity s;
    s.scale = scale * first.scale;
    s.rotation = rotation * first.rotation;
    s.translation = apply(first.translation);
    return s;
}

std::array<double, 16> Similarity::matrix() const {
    std::array<double, 16> out{};
    for (int r = 0; r < 3; ++r) {
        for (int c = 0; c < 3; ++c) out[size_t(r * 4 + c)] = scale * rotation(r, c);
        out[size_t(r * 4 + 3)] = translation[r];
    }
    out[15] = 1;
    return out;
}

template <int N>
void symmetric_eigen(const std::array<double, N * N>& input, std::array<double, N>& values,
                     std::array<double, N * N>& vectors) {
    std::array<double, N* N> a = input;
    vectors.fill(0);
    for (int i = 0; i < N; ++i) vectors[size_t(i * N + i)] = 1;
    for (int sweep = 0; sweep < 64; ++sweep) {
        double off = 0;
        for (int p = 0; p < N; ++p)
            for (int q = p + 1; q < N; ++q) off += a[size_t(p * N + q)] * a[size_t(p * N + q)];
        if (off < 1e-30) break;
        for (int p = 0; p < N; ++p)
            for (int q = p + 1; q < N; ++q) {
                const double apq = a[size_t(p * N + q)];
                if (std::abs(apq) < 1e-300) continue;
                const double theta = (a[size_t(q * N + q)] - a[size_t(p * N + p)]) / (2 * apq);
                const double t =
                    (theta >= 0 ? 1 : -1) / (std::abs(theta) + std::sqrt(theta * theta + 1));
                const double c = 1 / std::sqrt(t * t + 1), s = t * c;
                for (int k = 0; k < N; ++k) {  // A <- A J (columns p, q)
                    const double akp = a[size_t(k * N + p)], akq = a[size_t(k * N + q)];
                    a[size_t(k * N + p)] = c * akp - s * akq;
                    a[size_t(k * N + q)] = s * akp + c * akq;
                }
                for (int k = 0; k < N; ++k) {  // A <- J^T A (rows p, q)
                    const double apk = a[size_t(p * N + k)], aqk = a[size_t(q * N + k)];
                    a[size_t(p * N + k)] = c * apk - s * aqk;
                    a[size_t(q * N + k)] = s * apk + c * aqk;
                }
                for (int k = 0; k < N; ++k) {  // V <- V J
                    const double vkp = vectors[size_t(k * N + p)], vkq = vectors[size_t(k * N + q)];
                    vectors[size_t(k * N + p)] = c * vkp - s * vkq;
                    vectors[size_t(k * N + q)] = s * vkp + c * vkq;
                }
            }
    }
    // Sort ascending, moving eigenvector columns along.
    std::array<int, N> order;
    for (int i = 0; i < N; ++i) order[size_t(i)] = i;
    std::sort(order.begin(), order.end(),
              [&](int i, int j) { return a[size_t(i * N + i)] < a[size_t(j * N + j)]; });
    const std::array<double, N* N> v = vectors;
    for (int c = 0; c < N; ++c) {
        values[size_t(c)] = a[size_t(order[size_t(c)] * N + order[size_t(c)])];
        for (int r = 0; r < N; ++r)
            vectors[size_t(r * N + c)] = v[size_t(r * N + order[size_t(c)])];
    }
}

template void symmetric_eigen<3>(const std::array<double, 9>&, std::array<double, 3>&,
                                 std::array<double, 9>&);
template void symmetric_eigen<4>(const std::array<double, 16>&, std::array<double, 4>&,
                                 std::array<double, 16>&);

Similarity align_similarity(const std::vector<Vec3d>& src, const std::vector<Vec3d>& dst) {
    const size_t n = std::min(src.size(), dst.size());
    Similarity out;
    if (n == 0) return out;
    Vec3d ms, md;
    for (size_t i = 0; i < n; ++i) ms += src[i], md += dst[i];
    ms = ms / double(n), md = md / double(n);
    // Horn's quaternion method: the rotation is the top eigenvector of a 4x4 symmetric matrix
    // built from the cross-covariance, which is always a proper rotation (no reflection case).
    double S[3][3] = {};
    double src_var = 0;
    for (size_t i = 0; i < n; ++i) {
        const Vec3d a = src[i] - ms, b = dst[i] - md;
        for (int j = 0; j < 3; ++j)
            for (int k = 0; k < 3; ++k) S[j][k] += a[j] * b[k];
        src_var += dot(a, a);
    }
    const double xx = S[0][0], xy = S[0][1], xz = S[0][2], yx = S[1][0], yy = S[1][1], yz = S[1][2],
                 zx = S[2][0], zy = S[2][1], zz = S[2][2];
    const std::array<double, 16> N4 = {xx + yy + zz, yz - zy,      zx - xz,       xy - yx,
                                       yz - zy,      xx - yy - zz, xy + yx,       zx + xz,
                                       zx - xz,      xy + yx,      -xx + yy - zz, yz + zy,
                                       xy - yx,      zx + xz,      yz + zy,       -xx - yy + zz};
    std::array<double, 4> values;
    std::array<double, 16> vectors;
    symmetric_eigen<4>(N4, values, vectors);
    out.rotation = quaternion_to_rotation(vectors[3], vectors[7], vectors[11], vectors[15]);
    double num = 0;
    for (size_t i = 0; i < n; ++i) num += dot(dst[i] - md, out.rotation * (src[i] - ms));
    out.scale = src_var > 0 ? num / src_var : 1.0;
    out.translation = md - out.rotation * ms * out.scale;
    return out;
}

Vec3d closest_point_to_lines(const std::vector<Vec3d>& origins,
                             const std::vector<Vec3d>& directions, double* conditioning) {
    std::array<double, 9> a{};
    Vec3d b;
    const size_t n = std::min(origins.size(), directions.size());
    for (size_t i = 0; i < n; ++i) {
        // A zero (or non-finite) direction defines no line: it would turn the whole sum to NaN.
        const double length = norm(directions[i]);
        if (!(length > 0) || !std::isfinite(length)) continue;
        const Vec3d d = directions[i] / length;
        double p[9];  // I - d d^T projects onto the plane normal to the line
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c) p[r * 3 + c] = (r == c ? 1.0 : 0.0) - d[r] * d[c];
        for (int k = 0; k < 9; ++k) a[size_t(k)] += p[k];
        const Vec3d o = origins[i];
        b += Vec3d{p[0] * o.x + p[1] * o.y + p[2] * o.z, p[3] * o.x + p[4] * o.y + p[5] * o.z,
                   p[6] * o.x + p[7] * o.y + p[8] * o.z};
    }
    std::array<double, 3> values;
    std::array<double, 9> vectors;
    symmetric_eigen<3>(a, values, vectors);
    if (conditioning) *conditioning = n ? values[0] / double(n) : 0.0;
    if (values[0] <= 1e-12 * std::max(values[2], 1e-300)) return Vec3d{};
    // Solve A x = b through the eigen-decomposition: x = V diag(1/lambda) V^T b.
    Vec3d x;
    for (int k = 0; k < 3; ++k) {
        const Vec3d v{vectors[size_t(k)], vectors[size_t(3 + k)], vectors[size_t(6 + k)]};
        x += v * (dot(v, b) / values[size_t(k)]);
    }
    return x;
}

}  // namespace radiant
