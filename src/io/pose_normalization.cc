#include "io/pose_normalization.h"

#include <algorithm>
#include <cmath>

namespace radiant {

namespace {

// Per-axis median: a centre that a few stray points cannot drag away.
Vec3d median_point(std::vector<Vec3d> p) {
    Vec3d m;
    const size_t k = p.size() / 2;
    auto axis = [&](auto get) {
        std::nth_element(p.begin(), p.begin() + long(k), p.end(),
                         [&](const Vec3d& a, const Vec3d& b) { return get(a) < get(b); });
        return get(p[k]);
    };
    m.x = axis([](const Vec3d& v) { return v.x; });
    m.y = axis([](const Vec3d& v) { return v.y; });
    m.z = axis([](const Vec3d& v) { return v.z; });
    return m;
}

double max_abs_coordinate(const Vec3d& v) {
    return std::max({std::abs(v.x), std::abs(v.y), std::abs(v.z)});
}

float power_of_two_at_least(double v) {
    float a = 1;
    while (a < v && a < 128) a *= 2;
    return a;
}

}  // namespace

PoseNormalization normalize_poses(const std::vector<Mat3d>& rotations,
                                  const std::vector<Vec3d>& centres,
                                  const std::vector<Vec3d>& points, bool reorient) {
    PoseNormalization out;
    const size_t n = std::min(rotations.size(), centres.size());
    if (n == 0) return out;

    Mat3d rotate;
    if (reorient) {
        Vec3d up;
        for (size_t i = 0; i < n; ++i) up += rotations[i].column(1);
        if (norm(up) > 1e-9) rotate = rotation_between(normalized(up), {0, 0, 1});
    }

    // Centre: where the optical axes (-z of each camera) pass closest, unless they are nearly
    // parallel (forward-facing captures), where the sparse points' median is steadier.
    std::vector<Vec3d> axes(n);
    for (size_t i = 0; i < n; ++i) axes[i] = rotations[i].column(2) * -1.0;
    double conditioning = 0;
    Vec3d centre = closest_point_to_lines(centres, axes, &conditioning);
    Vec3d camera_mean;
    for (size_t i = 0; i < n; ++i) camera_mean += centres[i];
    camera_mean = camera_mean / double(n);
    // 0.05: the axes span less than ~13 degrees around their mean direction.
    if (n < 2 || !(conditioning >= 0.05) || !std::isfinite(centre.x + centre.y + centre.z)) {
        out.centre_from_points = true;
        centre = points.empty() ? camera_mean : median_point(points);
    }
    out.centre = centre;

    double mean_distance = 0;
    for (size_t i = 0; i < n; ++i) mean_distance += norm(centres[i] - centre);
    mean_distance /= double(n);
    const double scale = mean_distance > 1e-12 ? kNormalizedCameraDistance / mean_distance : 1.0;

    out.to_scene.scale = scale;
    out.to_scene.rotation = rotate;
    out.to_scene.translation = rotate * centre * -scale;

    // aabb_scale: the unit cube scaled by it must hold the cameras and most of the points
    // (the 90th percentile of their distance, in the max norm: the box is a cube). Without
    // points, twice the cameras' extent, so what lies behind the subject is inside too.
    double camera_extent = 0;
    for (size_t i = 0; i < n; ++i)
        camera_extent = std::max(camera_extent, max_abs_coordinate(out.to_scene.apply(centres[i])));
    double extent = 2 * camera_extent;
    if (!points.empty()) {
        std::vector<double> e(points.size());
        for (size_t i = 0; i < points.size(); ++i)
            e[i] = max_abs_coordinate(out.to_scene.apply(points[i]));
        const size_t k = std::min(e.size() - 1, size_t(0.9 * double(e.size())));
        std::nth_element(e.begin(), e.begin() + long(k), e.end());
        extent = std::max(camera_extent, e[k]);
    }
    out.aabb_scale = power_of_two_at_least(2 * kUnitCubeScale * extent);
    return out;
}

}  // namespace radiant
