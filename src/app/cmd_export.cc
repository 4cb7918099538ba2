// `radiant export-mesh` and `radiant export-points`: a trained scene as a mesh or point cloud,
// in the input dataset's world frame.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <sstream>

#include "app/cli_util.h"
#include "app/commands.h"
#include "core/error.h"
#include "core/thread_pool.h"
#include "core/timer.h"
#include "export/nerf_export.h"
#include "io/mesh_io.h"
#include "nerf/model_io.h"

namespace radiant {

namespace {

struct ExportMeshOptions {
    std::string snapshot, out;
    MeshExportOptions mesh;
    std::string crop;
    float threshold = 0;
    bool threshold_given = false;
    int threads = 0;
};

std::array<double, 6> parse_crop(const std::string& text) {
    const auto v = parse_number_list(text, 6);
    if (!v)
        throw Error("--crop",
                    fmt::format("'{}' is not six finite numbers x0,y0,z0,x1,y1,z1", text));
    std::array<double, 6> c{};
    std::copy(v->begin(), v->end(), c.begin());
    return c;
}

int run_export_mesh(ExportMeshOptions& o) {
    mesh_format_for_path(o.out);  // an unknown extension fails before any work
    check_output_path(o.out, "--out");
    if (!o.crop.empty()) o.mesh.crop = parse_crop(o.crop);
    if (o.threshold_given) o.mesh.threshold = o.threshold;
    Timer timer;
    LoadedModel loaded = load_model_snapshot(o.snapshot);
    ThreadPool pool(o.threads);
    const MeshExportResult r =
        export_nerf_mesh(*loaded.model, loaded.file.header()["views"], o.mesh, pool, o.snapshot);
    save_mesh(o.out, r.mesh);
    std::printf(
        "mesh: %zu vertices, %zu triangles (%zu extracted, %zu small and %zu hidden pieces "
        "removed%s) in %.1f s\n",
        r.mesh.vertex_count(), r.mesh.triangle_count(), r.triangles_extracted, r.components_removed,
        r.hidden_removed,
        o.mesh.simplify ? fmt::format(", simplified to {}", o.mesh.simplify).c_str() : "",
        timer.seconds());
    std::printf(
        "  box %.4g,%.4g,%.4g to %.4g,%.4g,%.4g (world frame), %d cells on the longest side, "
        "density threshold %g; %zu of the lattice's blocks evaluated (%zu density values, %zu in "
        "filled hollows)\n",
        r.box[0], r.box[1], r.box[2], r.box[3], r.box[4], r.box[5], o.mesh.resolution, r.threshold,
        r.stats.blocks_evaluated, r.stats.values_evaluated, r.stats.values_filled);
    std::string phases;
    for (const auto& [name, seconds] : r.seconds)
        phases += fmt::format("{}{} {:.1f} s", phases.empty() ? "" : ", ", name, seconds);
    std::printf("  time: %s\n", phases.c_str());
    std::printf("wrote %s\n", o.out.c_str());
    return 0;
}

struct ExportPointsOptions {
    std::string snapshot, out;
    size_t count = 200000;
    float min_opacity = 0.9f;
    int threads = 0;
};

int run_export_points(const ExportPointsOptions& o) {
    if (mesh_format_for_path(o.out) != MeshFormat::kPly)
        throw Error(o.out, "point clouds are written as .ply");
    check_output_path(o.out, "--out");
    Timer timer;
    LoadedModel loaded = load_model_snapshot(o.snapshot);
    ThreadPool pool(o.threads);
    const PointCloud pc = export_nerf_points(*loaded.model, loaded.file.header()["views"], o.count,
                                             o.min_opacity, pool, o.snapshot);
    Mesh m;  // a mesh without faces is a point cloud in PLY
    m.positions = pc.positions;
    m.colors = pc.colors;
    save_mesh(o.out, m);
    std::printf("points: %zu in %.1f s (world frame)\nwrote %s\n", m.vertex_count(),
                timer.seconds(), o.out.c_str());
    return 0;
}

}  // namespace

Command add_export_mesh_command(CLI::App& app) {
    auto o = std::make_shared<ExportMeshOptions>();
    CLI::App* cmd = app.add_subcommand("export-mesh",
                                       "Extract a triangle mesh from a snapshot (marching cubes on "
                                       "the density, vertex colours from the radiance "
                                       "field), in the world frame of the scene's transforms.json. "
                                       "Writes binary PLY, OBJ or glTF binary (.glb).");
    cmd->add_option("SNAPSHOT", o->snapshot, ".radiant snapshot from `radiant train`")->required();
    cmd->add_option("--out", o->out, "mesh file: .ply, .obj or .glb")->required();
    cmd->add_option("--resolution", o->mesh.resolution,
                    "marching-cubes cells along the longest side of the box")
        ->capture_default_str();
    CLI::Option* threshold =
        cmd->add_option("--threshold", o->threshold,
                        "density of the surface (default: where one marching step is 10% opaque, "
                        "62 for the default "
                        "step; instant-ngp uses 2.5, which also meshes faint fog; lower: fatter)");
    cmd->add_option("--crop", o->crop,
                    "x0,y0,z0,x1,y1,z1: mesh only this box (world frame; default: the occupied "
                    "part of the scene's central cube)");
    cmd->add_option("--simplify", o->mesh.simplify,
                    "simplify to about this many triangles (0: keep all)");
    cmd->add_option("--min-component", o->mesh.min_component,
                    "drop pieces smaller than this share of the largest (floaters; 0 keeps all)")
        ->capture_default_str();
    cmd->add_flag(
        "!--keep-cavities", o->mesh.fill_cavities,
        "mesh the walls of hollows inside objects too (by default enclosed hollows are filled)");
    cmd->add_flag("!--keep-hidden", o->mesh.remove_hidden,
                  "keep pieces no training camera sees (by default the walls of cavities inside "
                  "objects are dropped)");
    cmd->add_option("--threads", o->threads, "worker threads (0: all cores)")
        ->check(CLI::Range(0, 1024));
    return {cmd, [o, threshold] {
                o->threshold_given = threshold->count() > 0;
                return run_export_mesh(*o);
            }};
}

Command add_export_points_command(CLI::App& app) {
    auto o = std::make_shared<ExportPointsOptions>();
    CLI::App* cmd = app.add_subcommand("export-points",
                                       "Write a coloured point cloud (.ply) where the training "
                                       "views' rays terminate, in the world frame of the "
                                       "scene's transforms.json.");
    cmd->add_option("SNAPSHOT", o->snapshot, ".radiant snapshot from `radiant train`")->required();
    cmd->add_option("--out", o->out, "point cloud file (.ply)")->required();
    cmd->add_option("--count", o->count, "about this many points")
        ->check(CLI::Range(size_t(1), size_t(100000000)))
        ->capture_default_str();
    cmd->add_option("--min-opacity", o->min_opacity, "keep rays at least this opaque")
        ->check(CLI::Range(0.0f, 1.0f))
        ->capture_default_str();
    cmd->add_option("--threads", o->threads, "worker threads (0: all cores)")
        ->check(CLI::Range(0, 1024));
    return {cmd, [o] { return run_export_points(*o); }};
}

}  // namespace radiant
