// Inputs the libFuzzer harnesses (fuzz/, scripts/fuzz.sh) found, or that were written to pin
// down what they found: each crashed, hung, had undefined behaviour or let a json exception
// escape. Kept as files under fuzz/regressions/<harness>/ (in the harness's own input format,
// so build-fuzz/fuzz/fuzz_<harness> FILE replays one); each must now give a one-line
// radiant::Error naming the file and the problem, or load correctly where the input is valid.
#include <gtest/gtest.h>

#include <string>

#include "../fuzz/colmap_seed.h"
#include "io/mesh_io.h"
#include "prepare/colmap_convert.h"
#include "prepare/colmap_model.h"
#include "scene/camera_path.h"
#include "test_util.h"

namespace radiant {
namespace {

std::string regression_input(const std::string& harness, const std::string& name) {
    return read_file(std::string(RADIANT_SOURCE_DIR) + "/fuzz/regressions/" + harness + "/" + name);
}

// The mesh harness's input: a selector byte (% 3: PLY, OBJ, GLB), then the file.
Mesh decode_mesh_input(const std::string& name) {
    const std::string input = regression_input("mesh", name);
    static const MeshFormat kFormats[3] = {MeshFormat::kPly, MeshFormat::kObj, MeshFormat::kGlb};
    static const char* const kExt[3] = {".ply", ".obj", ".glb"};
    const int k = uint8_t(input.at(0)) % 3;
    return decode_mesh(input.substr(1), kFormats[k], name + kExt[k]);
}

// A vertex element with 'ny' (or 'green') but no 'nx' ('red') wrote normals (colours) that
// were never allocated: a heap overflow.
TEST(FuzzRegressions, PlyNormalComponentWithoutNxIsRead) {
    const Mesh m = decode_mesh_input("ply_ny_without_nx");
    ASSERT_EQ(m.vertex_count(), 1u);
    ASSERT_EQ(m.normals.size(), 3u);
    EXPECT_EQ(m.positions[0], 1.0f);
    EXPECT_EQ(m.normals[0], 0.0f);
    EXPECT_EQ(m.normals[1], 2.0f);
    EXPECT_EQ(m.normals[2], 0.0f);
    EXPECT_NO_THROW(encode_mesh(m, MeshFormat::kPly));  // what the writers take
}

// A second 'vertex' element resized the positions but not the normals.
TEST(FuzzRegressions, PlyTwoVertexElements) {
    EXPECT_RADIANT_ERROR(decode_mesh_input("ply_two_vertex_elements"),
                         "ply_two_vertex_elements.ply", "more than one 'vertex' element");
}

// NaN where a colour, a list length or a face index goes: float-to-integer conversions of NaN
// (undefined behaviour) slipped past comparisons that NaN fails both ways.
TEST(FuzzRegressions, PlyNaNColour) {
    EXPECT_RADIANT_ERROR(decode_mesh_input("ply_nan_colour"), "ply_nan_colour.ply",
                         "'red' is not a number");
}
TEST(FuzzRegressions, PlyNaNListLength) {
    EXPECT_RADIANT_ERROR(decode_mesh_input("ply_nan_list_count"), "ply_nan_list_count.ply",
                         "PLY list with a bad length");
}
TEST(FuzzRegressions, PlyNaNFaceIndex) {
    EXPECT_RADIANT_ERROR(decode_mesh_input("ply_nan_index"), "ply_nan_index.ply",
                         "PLY face index out of range");
}

// An element with entries but no properties: the file-size check skipped it, so 'vertex
// 100000000000' allocated 1.2 TB of positions and 'thing 18446744073709551615' looped forever.
TEST(FuzzRegressions, PlyVertexElementWithoutProperties) {
    EXPECT_RADIANT_ERROR(decode_mesh_input("ply_vertex_without_properties"),
                         "ply_vertex_without_properties.ply",
                         "'vertex' has 100000000000 entries but no properties");
}
TEST(FuzzRegressions, PlyHugeElementWithoutProperties) {
    EXPECT_RADIANT_ERROR(decode_mesh_input("ply_empty_element_huge_count"),
                         "ply_empty_element_huge_count.ply",
                         "'thing' has 18446744073709551615 entries but no properties");
}

// glTF numbers that must be non-negative integers given as floats (1e300: undefined behaviour
// in nlohmann's get<size_t>/get<int>), and a NaN float index.
TEST(FuzzRegressions, GlbFloatCount) {
    EXPECT_RADIANT_ERROR(decode_mesh_input("glb_float_count"), "glb_float_count.glb",
                         "glTF 'count' must be a non-negative integer");
}
TEST(FuzzRegressions, GlbFloatMode) {
    EXPECT_RADIANT_ERROR(decode_mesh_input("glb_float_mode"), "glb_float_mode.glb",
                         "glTF 'mode' must be a non-negative integer");
}
TEST(FuzzRegressions, GlbFloatIndicesAccessor) {
    EXPECT_RADIANT_ERROR(decode_mesh_input("glb_float_indices_accessor"),
                         "glb_float_indices_accessor.glb",
                         "glTF 'indices' must be a non-negative integer");
}
TEST(FuzzRegressions, GlbNaNFloatIndex) {
    EXPECT_RADIANT_ERROR(decode_mesh_input("glb_nan_float_index"), "glb_nan_float_index.glb",
                         "glTF index nan is not a vertex number");
}

// "format": 48 made j.value("format", "") throw nlohmann's type_error out of the loader.
TEST(FuzzRegressions, CameraPathFormatIsANumber) {
    const std::string path =
        std::string(RADIANT_SOURCE_DIR) + "/fuzz/regressions/camera_path/format_is_a_number.json";
    EXPECT_RADIANT_ERROR(load_camera_path(path), "format_is_a_number.json", "not a camera path");
}

// COLMAP parameters finite as doubles but not as floats (f = 1e300, cy = 1e39) became inf
// focal lengths and principal points.
TEST(FuzzRegressions, ColmapFocalBeyondFloatRange) {
    test::TempDir dir;
    write_colmap_model(fuzz::colmap_seed_model(), dir.path().string(), false);
    // The harness's input: a selector byte (0: text cameras), then cameras.txt.
    test::write_text(dir / "cameras.txt",
                     regression_input("colmap", "cameras_focal_beyond_float.txt").substr(1));
    const ColmapModel model = read_colmap_model(dir.path().string());
    ASSERT_EQ(model.cameras.size(), 2u);
    EXPECT_RADIANT_ERROR(colmap_intrinsics(model.cameras[0], "sparse/0"), "sparse/0",
                         "camera 1 has a parameter beyond float range");
    EXPECT_RADIANT_ERROR(colmap_intrinsics(model.cameras[1], "sparse/0"), "sparse/0",
                         "camera 2 has a parameter beyond float range");
    EXPECT_RADIANT_ERROR(convert_colmap_model(model, "images", "sparse/0"), "sparse/0",
                         "beyond float range");
}

}  // namespace
}  // namespace radiant
