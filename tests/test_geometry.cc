#include <gtest/gtest.h>

#include "core/geometry.h"
#include "core/rng.h"

namespace radiant {
namespace {

Mat3d random_rotation(Pcg32& rng) {
    return quaternion_to_rotation(rng.next_float() - 0.5, rng.next_float() - 0.5,
                                  rng.next_float() - 0.5, rng.next_float() - 0.5);
}

TEST(Geometry, QuaternionRoundTripAndOrthonormal) {
    Pcg32 rng(3, 0);
    for (int i = 0; i < 50; ++i) {
        const Mat3d r = random_rotation(rng);
        EXPECT_NEAR(r.determinant(), 1.0, 1e-12);
        const Mat3d rtr = r.transposed() * r;
        for (int a = 0; a < 3; ++a)
            for (int b = 0; b < 3; ++b) EXPECT_NEAR(rtr(a, b), a == b ? 1.0 : 0.0, 1e-12);
        const auto q = rotation_to_quaternion(r);
        const Mat3d back = quaternion_to_rotation(q[0], q[1], q[2], q[3]);
        EXPECT_LT(rotation_angle_degrees(r, back), 1e-6);
        EXPECT_GE(q[0], 0.0);
    }
}

TEST(Geometry, QuaternionKnownAnswer) {
    // 90 degrees about z: x -> y.
    const double s = std::sqrt(0.5);
    const Vec3d v = quaternion_to_rotation(s, 0, 0, s) * Vec3d{1, 0, 0};
    EXPECT_NEAR(v.x, 0, 1e-12);
    EXPECT_NEAR(v.y, 1, 1e-12);
    EXPECT_NEAR(v.z, 0, 1e-12);
}

TEST(Geometry, RotationBetweenVectors) {
    Pcg32 rng(5, 0);
    for (int i = 0; i < 50; ++i) {
        const Vec3d a =
            normalized({rng.next_float() - 0.5, rng.next_float() - 0.5, rng.next_float() - 0.5});
        const Vec3d b =
            normalized({rng.next_float() - 0.5, rng.next_float() - 0.5, rng.next_float() - 0.5});
        const Vec3d r = rotation_between(a, b) * a;
        EXPECT_NEAR(norm(r - b), 0, 1e-12);
    }
    const Vec3d flip = rotation_between({0, 0, 1}, {0, 0, -1}) * Vec3d{0, 0, 1};
    EXPECT_NEAR(flip.z, -1, 1e-12);
}

TEST(Geometry, SymmetricEigenKnownAnswer) {
    const std::array<double, 9> a = {2, 1, 0, 1, 2, 0, 0, 0, 5};
    std::array<double, 3> values;
    std::array<double, 9> vectors;
    symmetric_eigen<3>(a, values, vectors);
    EXPECT_NEAR(values[0], 1, 1e-12);
    EXPECT_NEAR(values[1], 3, 1e-12);
    EXPECT_NEAR(values[2], 5, 1e-12);
    // A v = lambda v for each column.
    for (int c = 0; c < 3; ++c)
        for (int r = 0; r < 3; ++r) {
            double av = 0;
            for (int k = 0; k < 3; ++k) av += a[size_t(r * 3 + k)] * vectors[size_t(k * 3 + c)];
            EXPECT_NEAR(av, values[size_t(c)] * vectors[size_t(r * 3 + c)], 1e-10);
        }
}

TEST(Geometry, AlignSimilarityRecoversAKnownTransform) {
    Pcg32 rng(7, 0);
    Similarity truth;
    truth.scale = 2.75;
    truth.rotation = random_rotation(rng);
    truth.translation = {1.5, -3, 0.25};
    std::vector<Vec3d> src, dst;
    for (int i = 0; i < 20; ++i) {
        src.push_back(
            {rng.next_float() * 4.0 - 2, rng.next_float() * 4.0 - 2, rng.next_float() * 4.0 - 2});
        dst.push_back(truth.apply(src.back()));
    }
    const Similarity s = align_similarity(src, dst);
    EXPECT_NEAR(s.scale, truth.scale, 1e-9);
    EXPECT_LT(rotation_angle_degrees(s.rotation, truth.rotation), 1e-6);
    EXPECT_NEAR(norm(s.translation - truth.translation), 0, 1e-9);
    // Composition and the 4x4 matrix agree with apply().
    const Similarity twice = s.after(truth);
    const auto m = twice.matrix();
    const Vec3d p{0.3, -0.7, 1.1}, q = s.apply(truth.apply(p));
    for (int r = 0; r < 3; ++r)
        EXPECT_NEAR(m[size_t(r * 4)] * p.x + m[size_t(r * 4 + 1)] * p.y +
                        m[size_t(r * 4 + 2)] * p.z + m[size_t(r * 4 + 3)],
                    q[r], 1e-9);
}

TEST(Geometry, ClosestPointToLines) {
    // Lines through (1, 2, 3) from many directions meet there; parallel lines are degenerate.
    const Vec3d target{1, 2, 3};
    std::vector<Vec3d> origins, dirs;
    Pcg32 rng(9, 0);
    for (int i = 0; i < 10; ++i) {
        const Vec3d d =
            normalized({rng.next_float() - 0.5, rng.next_float() - 0.5, rng.next_float() - 0.5});
        origins.push_back(target - d * (2.0 + i));
        dirs.push_back(d);
    }
    double conditioning = 0;
    const Vec3d p = closest_point_to_lines(origins, dirs, &conditioning);
    EXPECT_NEAR(norm(p - target), 0, 1e-9);
    EXPECT_GT(conditioning, 0.1);
    std::vector<Vec3d> same(10, Vec3d{0, 0, 1});
    closest_point_to_lines(origins, same, &conditioning);
    EXPECT_NEAR(conditioning, 0, 1e-12);
}

}  // namespace
}  // namespace radiant
