// Mesh files: PLY, OBJ and GLB round trips (our reader, and assimp as an independent one where
// installed), point clouds, colour space round trip, malformed files, simplification.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <functional>

#include "core/thread_pool.h"
#include "io/mesh_io.h"
#include "mesh/marching_cubes.h"
#include "mesh/mesh_ops.h"
#include "test_util.h"

namespace radiant {
namespace {

using test::TempDir;

Mesh sphere_mesh(int cells = 24) {
    ThreadPool pool(2);
    Lattice L;
    L.origin = {-1, -1, -1};
    L.spacing = 2.0 / cells;
    L.vertices = {cells + 1, cells + 1, cells + 1};
    Mesh m = extract_isosurface(
        L, {{int(0.85 * cells), cells / 2, cells / 2}},
        [](const float* p, size_t n, float* out, int) {
            for (size_t i = 0; i < n; ++i)
                out[i] = 0.7f - std::sqrt(p[3 * i] * p[3 * i] + p[3 * i + 1] * p[3 * i + 1] +
                                          p[3 * i + 2] * p[3 * i + 2]);
        },
        {}, pool);
    compute_vertex_normals(m);
    m.colors.resize(m.positions.size());
    for (size_t i = 0; i < m.colors.size(); ++i) m.colors[i] = uint8_t(i * 37 % 256);
    return m;
}

void expect_same(const Mesh& a, const Mesh& b, bool exact) {
    ASSERT_EQ(a.vertex_count(), b.vertex_count());
    EXPECT_EQ(a.indices, b.indices);
    for (size_t i = 0; i < a.positions.size(); ++i) {
        if (exact)
            EXPECT_EQ(a.positions[i], b.positions[i]);
        else
            EXPECT_NEAR(a.positions[i], b.positions[i], 1e-6f);
    }
    ASSERT_EQ(a.normals.size(), b.normals.size());
    for (size_t i = 0; i < a.normals.size(); ++i) EXPECT_NEAR(a.normals[i], b.normals[i], 1e-6f);
    EXPECT_EQ(a.colors, b.colors);
}

TEST(MeshIo, RoundTripsInEveryFormat) {
    TempDir dir;
    const Mesh m = sphere_mesh();
    ASSERT_GT(m.triangle_count(), 100u);
    for (const char* name : {"m.ply", "m.obj", "m.glb", "M.PLY"}) {
        save_mesh(dir / name, m);
        expect_same(m, load_mesh(dir / name), std::string(name) != "m.obj");
    }
}

TEST(MeshIo, GlbColoursAreLinearAndComeBackExactly) {
    // Every 8-bit sRGB value survives sRGB -> linear float -> sRGB.
    Mesh m;
    for (int i = 0; i < 256; ++i) {
        m.positions.insert(m.positions.end(), {float(i), 0, 0});
        m.colors.insert(m.colors.end(), {uint8_t(i), uint8_t(255 - i), uint8_t(i / 2)});
    }
    m.indices = {0, 1, 2};
    TempDir dir;
    save_mesh(dir / "c.glb", m);
    EXPECT_EQ(load_mesh(dir / "c.glb").colors, m.colors);
}

TEST(MeshIo, PointCloudsArePlyWithoutFaces) {
    Mesh pc;
    pc.positions = {1, 2, 3, 4, 5, 6};
    pc.colors = {10, 20, 30, 40, 50, 60};
    TempDir dir;
    save_mesh(dir / "p.ply", pc);
    const Mesh back = load_mesh(dir / "p.ply");
    EXPECT_EQ(back.positions, pc.positions);
    EXPECT_EQ(back.colors, pc.colors);
    EXPECT_TRUE(back.indices.empty());
}

TEST(MeshIo, AsciiPlyAndObjPolygonsAreRead) {
    TempDir dir;
    test::write_text(dir / "a.ply",
                     "ply\nformat ascii 1.0\nelement vertex 4\nproperty float x\nproperty float "
                     "y\nproperty float z\n"
                     "element face 1\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n1 "
                     "0 0\n1 1 0\n0 1 0\n4 0 1 2 3\n");
    Mesh a = load_mesh(dir / "a.ply");
    EXPECT_EQ(a.vertex_count(), 4u);
    EXPECT_EQ(a.indices, (std::vector<uint32_t>{0, 1, 2, 0, 2, 3}));
    test::write_text(dir / "q.obj",
                     "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvn 0 0 1\nf 1/1/1 2/2/1 3/3/1 -1//1\n");
    Mesh q = load_mesh(dir / "q.obj");
    EXPECT_EQ(q.indices, (std::vector<uint32_t>{0, 1, 2, 0, 2, 3}));
    EXPECT_EQ(q.normals[2], 1.0f);
}

TEST(MeshIo, MalformedFilesAreNamed) {
    TempDir dir;
    EXPECT_RADIANT_ERROR(mesh_format_for_path(dir / "m.stl"), "m.stl", "unknown mesh extension");
    test::write_text(dir / "t.ply",
                     "ply\nformat binary_little_endian 1.0\nelement vertex 1000000000\nproperty "
                     "float x\nend_header\n");
    EXPECT_RADIANT_ERROR(load_mesh(dir / "t.ply"), "t.ply", "more than the file holds");
    test::write_text(dir / "b.ply", "ply\nformat binary_big_endian 1.0\nend_header\n");
    EXPECT_RADIANT_ERROR(load_mesh(dir / "b.ply"), "b.ply", "not supported");
    test::write_text(dir / "f.obj", "v 0 0 0\nf 1 2 3\n");
    EXPECT_RADIANT_ERROR(load_mesh(dir / "f.obj"), "f.obj", "out of range");
    test::write_text(dir / "g.glb", "glTF....");
    EXPECT_RADIANT_ERROR(load_mesh(dir / "g.glb"), "g.glb", "binary glTF");
    // A GLB whose accessor claims more than its buffer.
    const Mesh m = sphere_mesh(8);
    std::string glb = encode_mesh(m, MeshFormat::kGlb);
    const std::string count = "\"count\":" + std::to_string(m.vertex_count());
    const size_t at = glb.find(count);
    ASSERT_NE(at, std::string::npos);
    glb.replace(at, count.size(), "\"count\":" + std::string(count.size() - 8, '9'));
    test::write_text(dir / "h.glb", glb);
    EXPECT_RADIANT_ERROR(load_mesh(dir / "h.glb"), "h.glb", "reaches past its buffer");
}

TEST(MeshIo, AnIndependentReaderAgrees) {
    if (std::system("command -v assimp > /dev/null 2>&1") != 0)
        GTEST_SKIP() << "assimp (assimp-utils) not installed; skipping";
    TempDir dir;
    const Mesh m = sphere_mesh();
    for (const char* name : {"m.ply", "m.obj", "m.glb"}) {
        save_mesh(dir / name, m);
        const std::string cmd =
            "assimp info " + (dir / name) + " > " + (dir / "info.txt") + " 2>&1";
        ASSERT_EQ(std::system(cmd.c_str()), 0) << read_file(dir / "info.txt");
        const std::string info = read_file(dir / "info.txt");
        EXPECT_NE(info.find("Faces:              " + std::to_string(m.triangle_count())),
                  std::string::npos)
            << name << "\n"
            << info;
        EXPECT_NE(info.find("Vertices:           " + std::to_string(m.vertex_count())),
                  std::string::npos)
            << name << "\n"
            << info;
    }
}

TEST(MeshOps, SimplifyReachesTheTargetAndStaysClosed) {
    Mesh m = sphere_mesh(48);
    const size_t before = m.triangle_count();
    simplify_mesh(m, before / 8);
    EXPECT_LE(m.triangle_count(), before / 8 + before / 50);
    EXPECT_GT(m.triangle_count(), before / 16);
    const MeshTopology t = mesh_topology(m);
    EXPECT_EQ(t.boundary_edges, 0u);
    EXPECT_EQ(t.euler, 2);
    EXPECT_EQ(t.used_vertices, m.vertex_count());  // compacted
    for (size_t i = 0; i < m.vertex_count(); ++i) {
        const float* p = &m.positions[3 * i];
        EXPECT_NEAR(std::sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]), 0.7f, 0.03f);
    }
}

}  // namespace
}  // namespace radiant
