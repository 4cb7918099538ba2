#include "prepare/pose_compare.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include "core/error.h"

namespace radiant {

namespace {

void pose_of(const Frame& f, Mat3d& r, Vec3d& c) {
    const auto& m = f.camera_to_world;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) r(i, j) = m[size_t(i * 4 + j)];
    c = {m[3], m[7], m[11]};
}

}  // namespace

PoseComparison compare_poses(const Dataset& estimated, const Dataset& reference) {
    std::map<std::string, const Frame*> ref;
    for (const Frame& f : reference.frames)
        ref[std::filesystem::path(f.image_path).filename().string()] = &f;
    std::vector<Mat3d> re, rr;
    std::vector<Vec3d> ce, cr;
    for (const Frame& f : estimated.frames) {
        auto it = ref.find(std::filesystem::path(f.image_path).filename().string());
        if (it == ref.end()) continue;
        Mat3d a, b;
        Vec3d ca, cb;
        pose_of(f, a, ca);
        pose_of(*it->second, b, cb);
        re.push_back(a), rr.push_back(b), ce.push_back(ca), cr.push_back(cb);
    }
    PoseComparison out;
    out.matched = re.size();
    if (out.matched < 3)
        throw Error(estimated.json_path,
                    "fewer than 3 frames share an image name with " + reference.json_path);
    out.estimated_to_reference = align_similarity(ce, cr);
    const Similarity& s = out.estimated_to_reference;
    Vec3d mean;
    for (const Vec3d& c : cr) mean += c;
    mean = mean / double(cr.size());
    double spread2 = 0;
    for (const Vec3d& c : cr) spread2 += dot(c - mean, c - mean);
    out.reference_spread = std::sqrt(spread2 / double(cr.size()));
    for (size_t i = 0; i < re.size(); ++i) {
        // Camera rotations need no column normalisation: the reference may be scaled, but
        // rotation columns of both are unit (transforms store pure rotations).
        const double angle = rotation_angle_degrees(s.apply_rotation(re[i]), rr[i]);
        const double d = norm(s.apply(ce[i]) - cr[i]) / std::max(out.reference_spread, 1e-300);
        out.mean_rotation_error_deg += angle;
        out.max_rotation_error_deg = std::max(out.max_rotation_error_deg, angle);
        out.mean_centre_error += d;
        out.max_centre_error = std::max(out.max_centre_error, d);
    }
    out.mean_rotation_error_deg /= double(re.size());
    out.mean_centre_error /= double(re.size());
    return out;
}

}  // namespace radiant
