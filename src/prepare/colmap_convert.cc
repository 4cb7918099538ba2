#include "prepare/colmap_convert.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include "core/error.h"

namespace radiant {

namespace fs = std::filesystem;

ConvertedScene convert_colmap_model(const ColmapModel& model, const std::string& image_folder,
                                    const std::string& source) {
    if (model.images.empty()) throw Error(source, "the COLMAP model has no registered images");
    std::vector<const ColmapImage*> images;
    for (const auto& im : model.images) images.push_back(&im);
    std::sort(images.begin(), images.end(), [](auto* a, auto* b) { return a->name < b->name; });

    std::map<uint32_t, CameraIntrinsics> cameras;
    for (const auto& c : model.cameras) cameras[c.id] = colmap_intrinsics(c, source);

    std::vector<Mat3d> rotations(images.size());
    std::vector<Vec3d> centres(images.size());
    for (size_t i = 0; i < images.size(); ++i)
        colmap_camera_to_world(*images[i], rotations[i], centres[i]);
    std::vector<Vec3d> points;
    points.reserve(model.points.size());
    for (const auto& p : model.points) points.push_back(p.xyz);

    ConvertedScene out;
    out.normalization = normalize_poses(rotations, centres, points, true);
    out.mean_reprojection_error = model.mean_reprojection_error();
    out.points = points.size();
    const Similarity& s = out.normalization.to_scene;

    Dataset& ds = out.dataset;
    ds.aabb_scale = out.normalization.aabb_scale;
    ds.scale = float(kUnitCubeScale);
    ds.offset = {0.5f, 0.5f, 0.5f};
    ds.applied_transform = s.matrix();
    for (size_t i = 0; i < images.size(); ++i) {
        Frame f;
        f.image_path = (fs::path(image_folder) / images[i]->name).lexically_normal().string();
        f.camera = cameras.at(images[i]->camera_id);
        const Mat3d r = s.apply_rotation(rotations[i]);
        const Vec3d c = s.apply(centres[i]);
        for (int row = 0; row < 3; ++row) {
            for (int col = 0; col < 3; ++col)
                f.camera_to_world[size_t(row * 4 + col)] = float(r(row, col));
            f.camera_to_world[size_t(row * 4 + 3)] = float(c[row]);
        }
        f.camera_to_world[15] = 1;
        ds.frames.push_back(std::move(f));
    }
    return out;
}

}  // namespace radiant
