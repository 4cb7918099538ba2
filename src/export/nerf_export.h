// Taking a trained scene out: a triangle mesh (marching cubes on the density, vertex colours
// from the radiance field) and a coloured point cloud (where the training views' rays end).
// Both come out in the input dataset's world frame (the frame of its transforms.json), with
// Radiant's scale and offset undone, so they line up with the user's cameras.
#pragma once

#include <array>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/thread_pool.h"
#include "io/mesh.h"
#include "mesh/marching_cubes.h"
#include "nerf/model.h"

namespace radiant {

struct MeshExportOptions {
    int resolution = 256;  // lattice cells along the longest side of the box
    // Density of the surface (per unit-cube length). Default: where one minimal marching step
    // is 10% opaque (62 at the default step), the surface a render shows. instant-ngp's "Mesh
    // it!" uses 2.5, which on Radiant's younger fields also meshes the faint fog around objects.
    std::optional<float> threshold;
    std::optional<std::array<double, 6>> crop;  // x0 y0 z0 x1 y1 z1, world frame
    size_t simplify = 0;                        // target triangle count (0: keep all)
    double min_component = 0.01;  // drop pieces with fewer triangles than this share of the largest
    bool occupied_only = true;    // density counts only in occupied cells, as when rendering
    // Drop pieces no training camera sees (walls of cavities inside solid objects: the field
    // needs no density behind an opaque surface, so it often leaves them hollow).
    bool remove_hidden = true;
    // Fill enclosed hollows (the field is free to leave the inside of an opaque object empty),
    // so a solid object comes out as one closed shell.
    bool fill_cavities = true;
};

struct MeshExportResult {
    Mesh mesh;                    // world frame, normals and colours filled
    std::array<double, 6> box{};  // the meshed box, world frame
    IsoSurfaceStats stats;
    size_t components_removed = 0;                        // small pieces
    size_t hidden_removed = 0;                            // pieces no training camera sees
    size_t triangles_extracted = 0;                       // before clean-up and simplification
    float threshold = 0;                                  // the density used
    std::vector<std::pair<std::string, double>> seconds;  // per phase, in order
};

// The default surface density for a model (see MeshExportOptions::threshold).
float default_mesh_threshold(const NerfModel& model);

// Throws Error (naming `source`) for a non-finite threshold, a resolution out of 16..4096, an
// empty crop box or one outside the scene, a snapshot with no occupied cells, or a surface with
// no triangles.
// `views`: the training cameras (a snapshot header's "views"), for remove_hidden; may be empty.
MeshExportResult export_nerf_mesh(const NerfModel& model, const nlohmann::json& views,
                                  const MeshExportOptions& options, ThreadPool& pool,
                                  const std::string& source);

// World <-> the unit-cube frame the model works in.
std::array<double, 3> unit_to_world(const SceneTransform& s, const std::array<double, 3>& p);
std::array<double, 3> world_to_unit(const SceneTransform& s, const std::array<double, 3>& p);

struct PointCloud {
    std::vector<float> positions;  // [n][3], world frame
    std::vector<uint8_t> colors;   // [n][3] sRGB
};

// About `count` points where rays from the snapshot's training views (its header's "views")
// terminate, one per rendered pixel that is at least `min_opacity` opaque, coloured with the
// pixel's colour. Throws Error when the views are missing or nothing is opaque.
PointCloud export_nerf_points(const NerfModel& model, const nlohmann::json& views, size_t count,
                              float min_opacity, ThreadPool& pool, const std::string& source);

}  // namespace radiant
