// Small double-precision 3D geometry for camera poses: vectors, 3x3 rotations, quaternions,
// rigid and similarity transforms, and the least-squares similarity between two point sets.
// Poses are converted and aligned in double so that chains of transforms do not lose the
// sub-millimetre precision COLMAP gives; the float types in nerf/ are for rays.
#pragma once

#include <array>
#include <cmath>
#include <vector>

namespace radiant {

struct Vec3d {
    double x = 0, y = 0, z = 0;

    Vec3d operator+(const Vec3d& o) const { return {x + o.x, y + o.y, z + o.z}; }
    Vec3d operator-(const Vec3d& o) const { return {x - o.x, y - o.y, z - o.z}; }
    Vec3d operator*(double s) const { return {x * s, y * s, z * s}; }
    Vec3d operator/(double s) const { return {x / s, y / s, z / s}; }
    Vec3d& operator+=(const Vec3d& o) { return *this = *this + o; }
    double operator[](int i) const { return i == 0 ? x : i == 1 ? y : z; }
};

inline double dot(const Vec3d& a, const Vec3d& b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
inline Vec3d cross(const Vec3d& a, const Vec3d& b) {
    return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
inline double norm(const Vec3d& a) { return std::sqrt(dot(a, a)); }
inline Vec3d normalized(const Vec3d& a) { return a / norm(a); }

// Row-major 3x3 matrix.
struct Mat3d {
    std::array<double, 9> m{1, 0, 0, 0, 1, 0, 0, 0, 1};

    double& operator()(int r, int c) { return m[size_t(r * 3 + c)]; }
    double operator()(int r, int c) const { return m[size_t(r * 3 + c)]; }
    Vec3d operator*(const Vec3d& v) const {
        return {m[0] * v.x + m[1] * v.y + m[2] * v.z, m[3] * v.x + m[4] * v.y + m[5] * v.z,
                m[6] * v.x + m[7] * v.y + m[8] * v.z};
    }
    Mat3d operator*(const Mat3d& o) const;
    Mat3d transposed() const;
    Vec3d column(int c) const { return {m[size_t(c)], m[size_t(3 + c)], m[size_t(6 + c)]}; }
    void set_column(int c, const Vec3d& v) {
        m[size_t(c)] = v.x;
        m[size_t(3 + c)] = v.y;
        m[size_t(6 + c)] = v.z;
    }
    double determinant() const;
};

// Unit quaternion (w, x, y, z) -> rotation matrix (COLMAP's convention: qvec = (qw, qx, qy, qz)).
Mat3d quaternion_to_rotation(double w, double x, double y, double z);
// Rotation matrix -> unit quaternion (w, x, y, z) with w >= 0.
std::array<double, 4> rotation_to_quaternion(const Mat3d& r);
// The smallest rotation taking unit vector `from` onto unit vector `to`.
Mat3d rotation_between(const Vec3d& from, const Vec3d& to);
// Angle of the rotation a^T b, in degrees.
double rotation_angle_degrees(const Mat3d& a, const Mat3d& b);

// p -> scale * R p + t.
struct Similarity {
    double scale = 1;
    Mat3d rotation;
    Vec3d translation;

    Vec3d apply(const Vec3d& p) const { return rotation * p * scale + translation; }
    // Maps a camera-to-world pose (rotation and centre) into the new frame.
    Mat3d apply_rotation(const Mat3d& r) const { return rotation * r; }
    // This after `first`: p -> this(first(p)).
    Similarity after(const Similarity& first) const;
    // Row-major 4x4 matrix of the transform.
    std::array<double, 16> matrix() const;
};

// The similarity minimising sum |dst_i - S(src_i)|^2 (Umeyama / Horn). Needs >= 3 points that
// are not all on one line for a unique rotation.
Similarity align_similarity(const std::vector<Vec3d>& src, const std::vector<Vec3d>& dst);

// Eigen-decomposition of a symmetric N x N matrix (row-major) by cyclic Jacobi rotations:
// eigenvalues in ascending order, eigenvectors as the columns of `vectors` (row-major).
template <int N>
void symmetric_eigen(const std::array<double, N * N>& a, std::array<double, N>& values,
                     std::array<double, N * N>& vectors);

// The point closest, in the least-squares sense, to lines through origins[i] along unit
// directions[i]. `conditioning` receives the smallest eigenvalue of the normal matrix divided
// by the line count (0 when the lines are all parallel, up to 2/3 when they meet from all sides).
Vec3d closest_point_to_lines(const std::vector<Vec3d>& origins,
                             const std::vector<Vec3d>& directions, double* conditioning = nullptr);

}  // namespace radiant
