// Meshes and point clouds from a trained NeRF: the demo scene's exported mesh and points lie on
// its analytic surfaces, in the dataset's world frame; bad options are refused.
#include <gtest/gtest.h>

#include <filesystem>

#include "cli_test_util.h"
#include "core/thread_pool.h"
#include "demo/demo_scene.h"
#include "export/nerf_export.h"
#include "io/mesh_io.h"
#include "io/staging.h"
#include "io/transforms.h"
#include "mesh/mesh_ops.h"
#include "mesh/rasterize.h"
#include "nerf/model_io.h"
#include "test_util.h"
#include "train/training_session.h"

namespace radiant {
namespace {

namespace fs = std::filesystem;

// One demo model for the whole suite: 128x128 views, a few hundred steps.
class MeshExport : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        dir = new test::TempDir;
        pool = new ThreadPool(2);
        DemoSceneOptions o;
        o.width = o.height = 128;
        o.train_views = 48;
        o.test_views = 1;
        o.supersampling = 2;
        const DemoScene scene = write_demo_scene(*dir / "scene", o);
        const Dataset train = load_transforms(scene.train_json);
        images = new ImageSet(stage_images(train, {1}, *pool));
        ImageSet none;
        NerfModelConfig mc = NerfModelConfig::for_dataset(train, 16);
        auto model = std::make_unique<NerfModel>(mc);
        NerfTrainConfig tc;
        tc.target_samples = 1 << 14;
        model->init_params(tc.seed);
        TrainingPlan plan;
        plan.steps = 600;
        plan.val_every = 0;
        plan.checkpoint_every = 0;
        plan.snapshot_path = *dir / "demo.radiant";
        session = new TrainingSession(*images, none, std::move(model), tc, plan, {}, *pool);
        while (session->status() == TrainingSession::Status::kRunning) session->step();
        session->save();
    }
    static void TearDownTestSuite() {
        delete session;
        delete images;
        delete pool;
        delete dir;
    }
    static nlohmann::json views() {
        return load_model_snapshot(*dir / "demo.radiant").file.header()["views"];
    }
    static test::TempDir* dir;
    static ThreadPool* pool;
    static ImageSet* images;
    static TrainingSession* session;
};
test::TempDir* MeshExport::dir = nullptr;
ThreadPool* MeshExport::pool = nullptr;
ImageSet* MeshExport::images = nullptr;
TrainingSession* MeshExport::session = nullptr;

double share_near_surface(const std::vector<float>& positions, float within) {
    size_t near = 0;
    for (size_t i = 0; i < positions.size() / 3; ++i)
        near += demo_scene_distance(positions[3 * i], positions[3 * i + 1], positions[3 * i + 2]) <
                within;
    return double(near) / double(std::max<size_t>(positions.size() / 3, 1));
}

TEST_F(MeshExport, DemoMeshLiesOnTheAnalyticSurfacesInWorldCoordinates) {
    MeshExportOptions o;
    o.resolution = 96;
    // Above the ground disc: the cameras all look from above, so below it nothing constrains
    // the density (and the mesh there is whatever the field made up).
    o.crop = std::array<double, 6>{-1.5, -1.5, -0.03, 1.5, 1.5, 1.5};
    const MeshExportResult r = export_nerf_mesh(session->model(), views(), o, *pool, "demo");
    const Mesh& m = r.mesh;
    ASSERT_GT(m.triangle_count(), 1000u);
    // World units: the objects are 0.44 to 1 across, a training pixel covers 0.022 at their
    // distance and a lattice cell 0.03. What a camera sees must lie on the true surfaces; a
    // young field (600 steps) may also keep loose structure inside the objects, hidden
    // behind their surfaces, which the distance of every vertex would count.
    std::vector<RasterCamera> cams;
    for (const StagedImage& im : images->images) cams.push_back({im.camera, im.camera_to_world});
    const std::vector<uint8_t> seen = visible_triangles(m, cams, *pool);
    std::vector<float> visible;
    for (size_t t = 0; t < m.triangle_count(); ++t)
        if (seen[t])
            for (int k = 0; k < 3; ++k)
                visible.insert(visible.end(), &m.positions[3 * m.indices[3 * t + size_t(k)]],
                               &m.positions[3 * m.indices[3 * t + size_t(k)]] + 3);
    const double share = share_near_surface(visible, 0.05f),
                 all = share_near_surface(m.positions, 0.3f);
    std::printf(
        "demo mesh: %zu vertices, %zu triangles (%.0f%% seen); %.1f%% of the seen ones within 0.05 "
        "of the true "
        "surfaces, %.1f%% of all within 0.3\n",
        m.vertex_count(), m.triangle_count(),
        100.0 * double(visible.size() / 9) / double(m.triangle_count()), 100 * share, 100 * all);
    EXPECT_GT(share, 0.9);
    EXPECT_GT(all, 0.98);
    // The disc (radius 1.2 at z = 0) spans the mesh's x and y extent: world coordinates.
    float lo = 1e9f, hi = -1e9f;
    for (size_t i = 0; i < m.vertex_count(); ++i)
        lo = std::min(lo, m.positions[3 * i]), hi = std::max(hi, m.positions[3 * i]);
    EXPECT_NEAR(lo, -1.2f, 0.1f);
    EXPECT_NEAR(hi, 1.2f, 0.1f);
    ASSERT_EQ(m.colors.size(), m.positions.size());
    ASSERT_EQ(m.normals.size(), m.positions.size());
    // Small floaters were removed, and what is left is closed (capped where the box cuts it).
    EXPECT_GT(r.components_removed + r.hidden_removed, 0u);
    const MeshTopology t = mesh_topology(m);
    EXPECT_EQ(t.boundary_edges, 0u);
    EXPECT_EQ(t.nonmanifold_edges, 0u);
    // Normals point away from the big sphere's centre on its top.
    size_t checked = 0, outward = 0;
    for (size_t i = 0; i < m.vertex_count(); ++i) {
        const float* p = &m.positions[3 * i];
        const float d[3] = {p[0] + 0.45f, p[1] + 0.3f, p[2] - 0.45f};
        if (d[2] < 0.3f ||
            std::abs(std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) - 0.45f) > 0.04f)
            continue;
        ++checked;
        outward +=
            d[0] * m.normals[3 * i] + d[1] * m.normals[3 * i + 1] + d[2] * m.normals[3 * i + 2] > 0;
    }
    EXPECT_GT(checked, 20u);
    EXPECT_GT(double(outward), 0.9 * double(checked));
}

TEST_F(MeshExport, CropAndSimplify) {
    MeshExportOptions o;
    o.resolution = 64;
    o.crop = std::array<double, 6>{-1.0, -0.8, 0.05,
                                   0.1,  0.2,  1.0};  // around the big sphere, above the disc
    o.simplify = 2000;
    const MeshExportResult r = export_nerf_mesh(session->model(), views(), o, *pool, "demo");
    EXPECT_LE(r.mesh.triangle_count(), 2100u);
    for (size_t i = 0; i < r.mesh.vertex_count(); ++i) {
        EXPECT_GE(r.mesh.positions[3 * i + 2], 0.05f - 1e-3f);
        EXPECT_LE(r.mesh.positions[3 * i], 0.1f + 1e-3f);
    }
    // Only the big sphere's cap, the box's cap and their insides: on a surface or inside one.
    size_t inside_or_on = 0;
    for (size_t i = 0; i < r.mesh.vertex_count(); ++i) {
        const float* p = &r.mesh.positions[3 * i];
        const float d[3] = {p[0] + 0.45f, p[1] + 0.3f, p[2] - 0.45f};
        inside_or_on += std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) < 0.5f ||
                        demo_scene_distance(p[0], p[1], p[2]) < 0.05f;
    }
    EXPECT_GT(double(inside_or_on), 0.95 * double(r.mesh.vertex_count()));
}

TEST_F(MeshExport, PointsLieOnTheSurfaces) {
    LoadedModel loaded = load_model_snapshot(*dir / "demo.radiant");
    const PointCloud pc = export_nerf_points(*loaded.model, loaded.file.header()["views"], 20000,
                                             0.9f, *pool, "demo");
    EXPECT_GT(pc.positions.size() / 3, 10000u);
    EXPECT_LE(pc.positions.size() / 3, 20000u);
    EXPECT_GT(share_near_surface(pc.positions, 0.05f), 0.9);
}

TEST_F(MeshExport, WorldAndUnitFramesRoundTrip) {
    const SceneTransform s{0.25f, {0.1f, 0.2f, 0.7f}};
    const auto u = world_to_unit(s, {1.0, -2.0, 3.0});
    EXPECT_NEAR(u[0], 0.35, 1e-7);
    EXPECT_NEAR(u[2], 1.45, 1e-7);
    const auto w = unit_to_world(s, u);
    EXPECT_NEAR(w[0], 1.0, 1e-6);
    EXPECT_NEAR(w[1], -2.0, 1e-6);
    EXPECT_NEAR(w[2], 3.0, 1e-6);
}

TEST_F(MeshExport, CliWritesEveryFormatAndRefusesBadInput) {
    const std::string snap = *dir / "demo.radiant";
    for (const char* name : {"m.ply", "m.obj", "m.glb"}) {
        const test::RunResult r = test::run_radiant(
            *dir, "export-mesh " + snap + " --resolution 48 --out " + (*dir / name));
        ASSERT_EQ(r.exit_code, 0) << r.err;
        EXPECT_GT(load_mesh(*dir / name).triangle_count(), 100u);
    }
    const test::RunResult p = test::run_radiant(
        *dir, "export-points " + snap + " --count 5000 --out " + (*dir / "p.ply"));
    ASSERT_EQ(p.exit_code, 0) << p.err;
    EXPECT_GT(load_mesh(*dir / "p.ply").vertex_count(), 2000u);

    const std::string out = *dir / "never.ply";
    auto bad = [&](const std::string& args, const std::string& needle) {
        test::expect_bad_input(*dir, args, needle);
        EXPECT_FALSE(fs::exists(out)) << args;
    };
    bad("export-mesh " + snap + " --out " + out + " --threshold nan", "--threshold");
    bad("export-mesh " + snap + " --out " + out + " --resolution 8", "--resolution");
    bad("export-mesh " + snap + " --out " + out + " --crop 0,0,0,0,1,1", "empty box");
    bad("export-mesh " + snap + " --out " + out + " --crop 50,50,50,60,60,60", "outside the scene");
    bad("export-mesh " + snap + " --out " + out + " --crop 1,2,3", "six finite numbers");
    bad("export-mesh " + snap + " --out " + (*dir / "never.stl"), "unknown mesh extension");
    bad("export-points " + snap + " --out " + (*dir / "never.obj"), "written as .ply");
    bad("export-mesh " + (*dir / "missing.radiant") + " --out " + out, "missing.radiant");
    // A model that never trained has no occupied cells.
    NerfModel blank(session->model().config());
    blank.init_params(1);
    save_model_snapshot(*dir / "blank.radiant", blank, nlohmann::json::array(), {});
    bad("export-mesh " + (*dir / "blank.radiant") + " --out " + out, "no occupied cells");
    bad("export-points " + (*dir / "blank.radiant") + " --out " + out, "no training views");
}

}  // namespace
}  // namespace radiant
