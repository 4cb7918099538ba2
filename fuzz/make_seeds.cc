// Writes the seed corpora of the fuzz harnesses (fuzz/corpus/<harness>/) with the project's own
// writers wherever one exists (encode_png, encode_jpeg, save_transforms, write_demo_scene,
// save_model_snapshot, write_colmap_model, encode_mesh, save_camera_path), plus libpng / libjpeg
// directly for what those writers never produce (palettes, low bit depths, interlacing,
// progressive and arithmetic JPEG, CMYK) and a few hand-written files in the other dialects.
//
//   make_fuzz_seeds OUT_DIR [SHARED_DATA]
//
// SHARED_DATA (the real scenes, ../shared/data) adds lego's and fox's transforms.json cut to
// three frames. Every seed is small (images 16 px, a model of a few thousand parameters).
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

// After <cstdio>: jpeglib.h needs size_t and FILE.
#include <jpeglib.h>
#include <png.h>

#include "colmap_seed.h"
#include "core/error.h"
#include "core/system.h"
#include "demo/demo_scene.h"
#include "io/image.h"
#include "io/mesh_io.h"
#include "io/snapshot.h"
#include "io/transforms.h"
#include "io/transforms_writer.h"
#include "nerf/model.h"
#include "nerf/model_io.h"
#include "scene/camera_path.h"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace radiant;

namespace {

fs::path g_out;

void put(const std::string& harness, const std::string& name, const std::string& bytes) {
    const fs::path dir = g_out / harness;
    fs::create_directories(dir);
    write_file_atomic((dir / name).string(), bytes);
    std::printf("  %-16s %-28s %7zu bytes\n", harness.c_str(), name.c_str(), bytes.size());
}

// ---- images ----

ImageF gradient(int w, int h, int c) {
    ImageF im(w, h, c);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            for (int k = 0; k < c; ++k)
                im.at(x, y, k) = float((x * 37 + y * 11 + k * 53) % 97) / 96.0f;
    return im;
}

struct PngOptions {
    int width = 16, height = 16;
    int color_type = PNG_COLOR_TYPE_PALETTE;
    int bit_depth = 8;
    bool interlaced = false;
    bool trns = false;
    bool text = false;
};

void append_png(png_structp png, png_bytep data, png_size_t n) {
    static_cast<std::string*>(png_get_io_ptr(png))->append(reinterpret_cast<const char*>(data), n);
}

// What encode_png cannot write: palettes, 1/2/4-bit samples, tRNS, Adam7, text chunks.
std::string raw_png(const PngOptions& o) {
    std::string out;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
    png_infop info = png_create_info_struct(png);
    if (setjmp(png_jmpbuf(png))) {
        std::fprintf(stderr, "libpng failed\n");
        std::exit(1);
    }
    png_set_write_fn(png, &out, append_png, nullptr);
    png_set_IHDR(png, info, png_uint_32(o.width), png_uint_32(o.height), o.bit_depth, o.color_type,
                 o.interlaced ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    const int colors = 1 << std::min(o.bit_depth, 8);
    std::vector<png_color> palette;
    std::vector<png_byte> alpha;
    if (o.color_type == PNG_COLOR_TYPE_PALETTE) {
        for (int i = 0; i < std::min(colors, 16); ++i)
            palette.push_back({png_byte(i * 16), png_byte(255 - i * 16), png_byte(i * 7)});
        png_set_PLTE(png, info, palette.data(), int(palette.size()));
        if (o.trns) {
            for (size_t i = 0; i < palette.size(); ++i) alpha.push_back(png_byte(i * 17));
            png_set_tRNS(png, info, alpha.data(), int(alpha.size()), nullptr);
        }
    } else if (o.trns) {
        png_color_16 key{};
        key.gray = 1, key.red = 2, key.green = 3, key.blue = 4;
        png_set_tRNS(png, info, nullptr, 0, &key);
    }
    if (o.text) {
        png_text t{};
        t.compression = PNG_TEXT_COMPRESSION_NONE;
        t.key = const_cast<char*>("Comment");
        t.text = const_cast<char*>("radiant fuzz seed");
        png_set_text(png, info, &t, 1);
    }
    png_write_info(png, info);
    const int channels = o.color_type == PNG_COLOR_TYPE_RGB          ? 3
                         : o.color_type == PNG_COLOR_TYPE_RGBA       ? 4
                         : o.color_type == PNG_COLOR_TYPE_GRAY_ALPHA ? 2
                                                                     : 1;
    const size_t row_bytes = (size_t(o.width) * channels * o.bit_depth + 7) / 8;
    std::vector<std::vector<png_byte>> rows(size_t(o.height), std::vector<png_byte>(row_bytes));
    std::vector<png_bytep> ptrs;
    const int max_index = o.color_type == PNG_COLOR_TYPE_PALETTE ? int(palette.size()) : 256;
    for (int y = 0; y < o.height; ++y) {
        for (size_t i = 0; i < row_bytes; ++i) {
            if (o.color_type == PNG_COLOR_TYPE_PALETTE) {
                // Indices below the palette size in every packed field.
                png_byte b = 0;
                for (int bit = 0; bit < 8; bit += o.bit_depth)
                    b = png_byte(b | ((int(i + y + bit) % max_index) & ((1 << o.bit_depth) - 1))
                                         << bit);
                rows[size_t(y)][i] = b;
            } else {
                rows[size_t(y)][i] = png_byte((i * 29 + size_t(y) * 13) & 0xFF);
            }
        }
        ptrs.push_back(rows[size_t(y)].data());
    }
    png_write_image(png, ptrs.data());
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    return out;
}

struct JpegOptions {
    int width = 16, height = 16;
    int components = 3;
    J_COLOR_SPACE space = JCS_RGB;
    bool progressive = false;
    bool arithmetic = false;
    bool restart = false;
    bool exif = false;
    bool subsample = true;  // 4:2:0
};

// What encode_jpeg cannot write: progressive, arithmetic, restart markers, CMYK, APP1.
std::string raw_jpeg(const JpegOptions& o) {
    jpeg_compress_struct cinfo;
    jpeg_error_mgr err;
    cinfo.err = jpeg_std_error(&err);
    jpeg_create_compress(&cinfo);
    unsigned char* buffer = nullptr;
    unsigned long size = 0;
    jpeg_mem_dest(&cinfo, &buffer, &size);
    cinfo.image_width = JDIMENSION(o.width);
    cinfo.image_height = JDIMENSION(o.height);
    cinfo.input_components = o.components;
    cinfo.in_color_space = o.space;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, 75, TRUE);
    if (o.progressive) jpeg_simple_progression(&cinfo);
    if (o.arithmetic) cinfo.arith_code = TRUE;
    if (o.restart) cinfo.restart_interval = 1;
    if (!o.subsample && o.components == 3)
        for (int c = 0; c < 3; ++c)
            cinfo.comp_info[c].h_samp_factor = cinfo.comp_info[c].v_samp_factor = 1;
    jpeg_start_compress(&cinfo, TRUE);
    if (o.exif) {
        const char exif[] = "Exif\0\0MM\0*\0\0\0\x08\0\0";
        jpeg_write_marker(&cinfo, JPEG_APP0 + 1, reinterpret_cast<const JOCTET*>(exif),
                          sizeof(exif) - 1);
    }
    std::vector<unsigned char> row(size_t(o.width) * size_t(o.components));
    while (cinfo.next_scanline < cinfo.image_height) {
        for (size_t i = 0; i < row.size(); ++i)
            row[i] = (unsigned char)((i * 23 + cinfo.next_scanline * 41) & 0xFF);
        JSAMPROW r = row.data();
        jpeg_write_scanlines(&cinfo, &r, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    std::string out(reinterpret_cast<const char*>(buffer), size);
    std::free(buffer);
    return out;
}

void image_seeds() {
    std::vector<std::pair<std::string, std::string>> png = {
        {"gray8.png", encode_png(gradient(16, 16, 1), 8, "seed")},
        {"gray_alpha8.png", encode_png(gradient(9, 7, 2), 8, "seed")},
        {"rgb8.png", encode_png(gradient(16, 16, 3), 8, "seed")},
        {"rgba8.png", encode_png(gradient(12, 5, 4), 8, "seed")},
        {"gray16.png", encode_png(gradient(8, 8, 1), 16, "seed")},
        {"rgb16.png", encode_png(gradient(8, 6, 3), 16, "seed")},
        {"rgba16.png", encode_png(gradient(5, 5, 4), 16, "seed")},
        {"palette8_trns.png", raw_png({16, 16, PNG_COLOR_TYPE_PALETTE, 8, false, true, false})},
        {"palette4.png", raw_png({13, 9, PNG_COLOR_TYPE_PALETTE, 4, false, false, true})},
        {"palette1_interlaced.png",
         raw_png({17, 11, PNG_COLOR_TYPE_PALETTE, 1, true, false, false})},
        {"gray1.png", raw_png({19, 3, PNG_COLOR_TYPE_GRAY, 1, false, false, false})},
        {"gray2_trns.png", raw_png({10, 10, PNG_COLOR_TYPE_GRAY, 2, false, true, false})},
        {"gray4_interlaced.png", raw_png({15, 15, PNG_COLOR_TYPE_GRAY, 4, true, false, false})},
        {"rgb8_interlaced_trns.png", raw_png({16, 16, PNG_COLOR_TYPE_RGB, 8, true, true, true})},
        {"rgba16_interlaced.png", raw_png({9, 9, PNG_COLOR_TYPE_RGBA, 16, true, false, false})},
        {"gray_alpha16.png", raw_png({6, 6, PNG_COLOR_TYPE_GRAY_ALPHA, 16, false, false, false})},
    };
    std::vector<std::pair<std::string, std::string>> jpeg = {
        {"gray.jpg", encode_jpeg(gradient(16, 16, 1), 90)},
        {"rgb.jpg", encode_jpeg(gradient(16, 16, 3), 90)},
        {"rgb_odd_size.jpg", encode_jpeg(gradient(13, 7, 3), 50)},
        {"progressive.jpg", raw_jpeg({16, 16, 3, JCS_RGB, true, false, false, false, true})},
        {"progressive_gray.jpg",
         raw_jpeg({11, 9, 1, JCS_GRAYSCALE, true, false, false, false, true})},
        {"arithmetic.jpg", raw_jpeg({16, 8, 3, JCS_RGB, false, true, false, false, true})},
        {"restart_444.jpg", raw_jpeg({16, 16, 3, JCS_RGB, false, false, true, false, false})},
        {"exif.jpg", raw_jpeg({8, 8, 3, JCS_RGB, false, false, false, true, true})},
        {"cmyk.jpg", raw_jpeg({8, 8, 4, JCS_CMYK, false, false, false, false, true})},
    };
    for (const auto& [name, bytes] : png) put("png", name, bytes);
    for (const auto& [name, bytes] : jpeg) put("jpeg", name, bytes);
    // decode_image: a few of each, so mutations cross between the formats.
    for (const char* name : {"rgb8.png", "palette4.png", "gray16.png", "rgba16_interlaced.png"})
        for (const auto& [n, b] : png)
            if (n == name) put("image", n, b);
    for (const char* name : {"rgb.jpg", "progressive_gray.jpg", "cmyk.jpg"})
        for (const auto& [n, b] : jpeg)
            if (n == name) put("image", n, b);
}

// ---- transforms.json ----

json matrix(const std::array<float, 16>& m) {
    json rows = json::array();
    for (int r = 0; r < 4; ++r)
        rows.push_back(
            {m[size_t(4 * r)], m[size_t(4 * r + 1)], m[size_t(4 * r + 2)], m[size_t(4 * r + 3)]});
    return rows;
}

std::array<float, 16> pose(int i) {
    const double a = 0.7 * i, c = std::cos(a), s = std::sin(a);
    // Looking at the origin from a circle of radius 4 at height 1 (roughly).
    return {float(-s),
            float(-c * 0.24),
            float(c * 0.97),
            float(4 * c),
            float(c),
            float(-s * 0.24),
            float(s * 0.97),
            float(4 * s),
            0.0f,
            0.97f,
            0.24f,
            1.0f,
            0,
            0,
            0,
            1};
}

// Paths relative to the harness's scratch folder, where fuzz_transforms puts placeholders.
const char* const kImages[3] = {"a.png", "b.jpg", "images/0003.jpg"};

void transforms_seeds(const std::string& shared) {
    // NeRF-synthetic, as the demo writes it (camera_angle_x, paths without extension).
    const fs::path demo = g_out / ".demo-tmp";
    DemoSceneOptions o;
    o.width = o.height = 8;
    o.train_views = 3;
    o.test_views = 1;
    o.supersampling = 1;
    const DemoScene scene = write_demo_scene(demo.string(), o);
    put("transforms", "demo_nerf_synthetic.json", json::parse(read_file(scene.train_json)).dump(1));
    fs::remove_all(demo);

    // instant-ngp, as `radiant prepare` writes it (save_transforms): shared, then per-frame
    // intrinsics (the writer puts them per frame when the cameras differ).
    Dataset ds;
    for (int i = 0; i < 3; ++i) {
        Frame f;
        f.image_path = std::string("/scratch/") + kImages[i];
        f.camera_to_world = pose(i);
        f.camera.width = 16, f.camera.height = 12;
        f.camera.fl_x = 14.5f, f.camera.fl_y = 14.0f, f.camera.cx = 8.25f, f.camera.cy = 5.75f;
        f.camera.has_principal_point = true;
        f.camera.k1 = 0.01f, f.camera.p1 = 0.001f;
        f.sharpness = 20.0f + float(i);
        ds.frames.push_back(f);
    }
    ds.aabb_scale = 4;
    ds.applied_transform =
        std::array<double, 16>{0.5, 0, 0, 0.1, 0, 0.5, 0, 0.2, 0, 0, 0.5, 0.3, 0, 0, 0, 1};
    put("transforms", "ngp_shared.json", transforms_to_json(ds, "/scratch").dump(1));
    ds.frames[1].camera.fisheye = true;
    ds.frames[1].camera.p1 = 0;
    ds.frames[1].camera.k3 = 0.002f, ds.frames[1].camera.k4 = -0.001f;
    ds.frames[2].camera.width = 20;
    put("transforms", "ngp_per_frame_fisheye.json", transforms_to_json(ds, "/scratch").dump(1));

    // nerfstudio: camera_model, applied_transform 3x4, a per-frame override, no scale (so the
    // loader normalises the poses itself).
    json ns = {{"camera_model", "OPENCV"},
               {"fl_x", 15.0},
               {"fl_y", 15.5},
               {"cx", 8.0},
               {"cy", 6.0},
               {"w", 16},
               {"h", 12},
               {"k1", 0.01},
               {"k2", -0.002},
               {"p1", 0.0005},
               {"p2", -0.0001},
               {"applied_transform", {{0, 1, 0, 0}, {1, 0, 0, 0}, {0, 0, -1, 0}}}};
    ns["frames"] = json::array();
    for (int i = 0; i < 3; ++i) {
        json f = {{"file_path", kImages[i]}, {"transform_matrix", matrix(pose(i))}};
        if (i == 1) f["fl_x"] = 16.0, f["camera_model"] = "PINHOLE";
        ns["frames"].push_back(f);
    }
    put("transforms", "nerfstudio_opencv.json", ns.dump(1));
    json fe = {{"camera_model", "OPENCV_FISHEYE"},
               {"fl_x", 9.0},
               {"fl_y", 9.0},
               {"cx", 8.0},
               {"cy", 8.0},
               {"w", 16},
               {"h", 16},
               {"k1", 0.05},
               {"k2", 0.01},
               {"k3", -0.001},
               {"k4", 0.0001},
               {"scale", 0.5},
               {"offset", {0.5, 0.5, 0.4}},
               {"aabb_scale", 2}};
    fe["frames"] = json::array();
    for (int i = 0; i < 2; ++i)
        fe["frames"].push_back(
            {{"file_path", kImages[i]}, {"transform_matrix", matrix(pose(i + 3))}});
    put("transforms", "nerfstudio_fisheye.json", fe.dump(1));

    // instant-ngp's is_fisheye, camera_angle_x/y without sizes, per-frame sharpness.
    json ngp = {{"camera_angle_x", 0.9},
                {"camera_angle_y", 0.8},
                {"is_fisheye", true},
                {"k1", 0.1},
                {"k2", 0.01},
                {"aabb_scale", 16},
                {"scale", 0.33},
                {"offset", {0.5, 0.5, 0.5}}};
    ngp["frames"] = json::array();
    for (int i = 0; i < 2; ++i)
        ngp["frames"].push_back({{"file_path", i ? "a" : "b.jpg"},
                                 {"sharpness", 12.5},
                                 {"transform_matrix", matrix(pose(i))}});
    put("transforms", "ngp_fisheye_angles.json", ngp.dump());

    if (shared.empty()) return;
    // The real scenes, cut to three frames (the paths resolve to the harness's placeholders).
    for (const auto& [name, file] :
         {std::pair<std::string, std::string>{"lego_3_frames.json", "lego/transforms_train.json"},
          {"fox_3_frames.json", "fox/transforms.json"}}) {
        const fs::path p = fs::path(shared) / file;
        if (!fs::exists(p)) {
            std::printf("  (no %s: skipped)\n", p.c_str());
            continue;
        }
        json j = json::parse(read_file(p.string()));
        j["frames"].erase(j["frames"].begin() + 3, j["frames"].end());
        put("transforms", name, j.dump(1));
    }
}

// ---- snapshots ----

NerfModelConfig tiny_config() {
    NerfModelConfig c;
    c.field.grid.n_levels = 16;
    c.field.grid.n_features_per_level = 1;
    c.field.grid.log2_hashmap_size = 10;
    c.field.grid.base_resolution = 2;
    c.field.grid.per_level_scale = 1.05f;
    c.field.density_neurons = 16;
    c.field.color_neurons = 16;
    c.field.density_hidden_layers = 1;
    c.field.color_hidden_layers = 1;
    c.grid_resolution = 8;
    return c;
}

void snapshot_seeds() {
    const fs::path tmp = g_out / ".snapshot-tmp";
    fs::create_directories(tmp);
    NerfModel model(tiny_config());
    model.init_params(7);
    model.grid().densities()[3] = 0.5f;
    json views = json::array();
    views.push_back({{"width", 16},
                     {"height", 16},
                     {"fl_x", 20},
                     {"fl_y", 20},
                     {"cx", 8},
                     {"cy", 8},
                     {"camera_to_world", pose(0)}});
    const std::string a = (tmp / "model.radiant").string();
    save_model_snapshot(a, model, views, {{"note", "fuzz seed"}});
    put("snapshot", "tiny_model.radiant", read_file(a));

    // With the training section and the optimiser's blocks, as --snapshot writes it mid-run.
    json header = {
        {"kind", "radiant-nerf"},
        {"model", model_config_to_json(model.config())},
        {"views", views},
        {"info", json::object()},
        {"training", {{"step", 12}, {"next_rays", 256}, {"seed", 11}, {"optimizer_steps", 12}}}};
    const std::vector<float> moments(model.params().size(), 0.25f);
    const std::vector<float>& occ = model.grid().densities();
    const std::string b = (tmp / "training.radiant").string();
    write_snapshot(b, header,
                   {{"params", model.params().data(), model.params().size() * 4},
                    {"occupancy", occ.data(), occ.size() * 4},
                    {"adam_m", moments.data(), moments.size() * 4},
                    {"adam_v", moments.data(), moments.size() * 4}});
    put("snapshot", "tiny_model_training.radiant", read_file(b));

    // A container that is not a model: its own kind, two small blocks, one empty.
    const std::string c = (tmp / "other.radiant").string();
    const char block[5] = {1, 2, 3, 4, 5};
    write_snapshot(c, {{"kind", "something-else"}}, {{"x", block, 5}, {"empty", block, 0}});
    put("snapshot", "other_kind.radiant", read_file(c));
    fs::remove_all(tmp);
}

// ---- COLMAP ----

void colmap_seeds() {
    const fs::path tmp = g_out / ".colmap-tmp";
    const ColmapModel m = fuzz::colmap_seed_model();
    for (int binary = 0; binary < 2; ++binary) {
        fs::create_directories(tmp);
        write_colmap_model(m, tmp.string(), binary != 0);
        for (int file = 0; file < 3; ++file) {
            const std::string name =
                std::string(fuzz::kColmapStems[file]) + (binary ? ".bin" : ".txt");
            put("colmap", name,
                std::string(1, char(fuzz::colmap_selector(binary != 0, file))) +
                    read_file((tmp / name).string()));
        }
        fs::remove_all(tmp);
    }
    // Every camera model COLMAP has, in text (ids 1..11: images name 1 and 2).
    ColmapModel all;
    for (int id = 0; id <= 10; ++id) {
        const ColmapCameraModelInfo* info = colmap_camera_model(id);
        ColmapCamera c;
        c.id = uint32_t(id + 1);
        c.model_id = id;
        c.width = 40, c.height = 30;
        for (int p = 0; p < info->num_params; ++p)
            c.params.push_back(p < 4 ? (p < 2 ? 30.0 : 20.0 - 5 * (p - 2)) : 0.001 * p);
        all.cameras.push_back(c);
    }
    fs::create_directories(tmp);
    write_colmap_model(all, tmp.string(), false);
    put("colmap", "cameras_all_models.txt",
        std::string(1, char(fuzz::colmap_selector(false, 0))) +
            read_file((tmp / "cameras.txt").string()));
    write_colmap_model(all, tmp.string(), true);
    put("colmap", "cameras_all_models.bin",
        std::string(1, char(fuzz::colmap_selector(true, 0))) +
            read_file((tmp / "cameras.bin").string()));
    fs::remove_all(tmp);
}

// ---- meshes ----

Mesh tetrahedron(bool normals, bool colors) {
    Mesh m;
    m.positions = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    m.indices = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
    if (normals)
        for (int i = 0; i < 4; ++i) m.normals.insert(m.normals.end(), {0.577f, 0.577f, 0.577f});
    if (colors) m.colors = {255, 0, 0, 0, 255, 0, 0, 0, 255, 128, 128, 128};
    return m;
}

void mesh_seeds() {
    const char* ext[3] = {"ply", "obj", "glb"};
    const MeshFormat formats[3] = {MeshFormat::kPly, MeshFormat::kObj, MeshFormat::kGlb};
    for (int k = 0; k < 3; ++k) {
        put("mesh", std::string("full.") + ext[k],
            std::string(1, char(k)) + encode_mesh(tetrahedron(true, true), formats[k]));
        put("mesh", std::string("bare.") + ext[k],
            std::string(1, char(k)) + encode_mesh(tetrahedron(false, false), formats[k]));
    }
    // ASCII PLY with a quad, a double property and an element the reader skips.
    put("mesh", "ascii_quad.ply",
        std::string(1, '\0') +
            "ply\nformat ascii 1.0\ncomment hand-written\nelement vertex 4\nproperty float "
            "x\nproperty float y\n"
            "property double z\nproperty uchar red\nproperty uchar green\nproperty uchar blue\n"
            "element face 1\nproperty list uchar int vertex_index\nelement edge 1\nproperty int "
            "vertex1\n"
            "property int vertex2\nend_header\n0 0 0 255 0 0\n1 0 0 0 255 0\n1 1 0 0 0 255\n0 1 "
            "0.5 9 9 9\n4 0 1 2 3\n0 2\n");
    // Binary PLY with short/ushort/char types and a ushort-counted list.
    {
        std::string b =
            "ply\nformat binary_little_endian 1.0\nelement vertex 3\nproperty short x\nproperty "
            "ushort y\n"
            "property char z\nproperty float nx\nproperty float ny\nproperty float nz\n"
            "element face 1\nproperty list ushort uint vertex_indices\nend_header\n";
        auto put16 = [&](uint16_t v) { b.append(reinterpret_cast<const char*>(&v), 2); };
        auto put32 = [&](uint32_t v) { b.append(reinterpret_cast<const char*>(&v), 4); };
        auto putf = [&](float v) { b.append(reinterpret_cast<const char*>(&v), 4); };
        for (int i = 0; i < 3; ++i) {
            put16(uint16_t(i)), put16(uint16_t(2 * i)), b.push_back(char(-i));
            putf(0), putf(0), putf(1);
        }
        put16(3), put32(0), put32(1), put32(2);
        put("mesh", "binary_types.ply", std::string(1, '\0') + b);
    }
    // OBJ with normals, quads, negative (relative) indices, v/vt/vn corners, comments, groups.
    put("mesh", "quads_normals.obj",
        std::string(1, '\1') +
            "# hand-written\no thing\nv 0 0 0\nv 1 0 0\nv 1 1 0 0.5 0.25 1\nv 0 1 0\nvt 0 0\nvn 0 "
            "0 1\nvn 0 0 -1\n"
            "g face\nf 1//1 2//1 3//1 4//1\nf -4/1/2 -2/1/2 -3/1/2\ns off\nf 1 3 4\n");
}

// ---- viewer requests and camera paths ----

void view_seeds() {
    json t = json::array(
        {{0.9, 0.1, 0.42, 1.5}, {0.43, -0.2, -0.88, -3.0}, {0.0, 0.97, -0.22, 0.5}, {0, 0, 0, 1}});
    put("render_request", "angle.json",
        json({{"transform_matrix", t}, {"camera_angle_x", 0.69}, {"w", 64}, {"h", 48}}).dump());
    put("render_request", "full.json",
        json({{"transform_matrix", t},
              {"fl_x", 50.5},
              {"fl_y", 51},
              {"cx", 32},
              {"cy", 24.5},
              {"w", 64},
              {"h", 48},
              {"background", {0.25, 0.5, 1}},
              {"mode", "depth"},
              {"format", "jpeg"},
              {"quality", 70},
              {"client", "tab-1"},
              {"seq", 42}})
            .dump(1));
    put("render_request", "black_opacity.json",
        json({{"transform_matrix", t},
              {"fl_x", 800},
              {"w", 4096},
              {"h", 4096},
              {"background", "black"},
              {"mode", "opacity"},
              {"format", "png"}})
            .dump());

    CameraPath p;
    p.width = 64, p.height = 48, p.fps = 10, p.seconds = 2;
    for (int i = 0; i < 2; ++i) {
        CameraKeyframe k;
        const auto m = pose(i);
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c) k.rotation(r, c) = 0;
        const double a = 0.7 * i;
        // An exact rotation about z, and a position on a circle.
        k.rotation(0, 0) = std::cos(a), k.rotation(0, 1) = -std::sin(a);
        k.rotation(1, 0) = std::sin(a), k.rotation(1, 1) = std::cos(a);
        k.rotation(2, 2) = 1;
        k.position = {m[3], m[7], m[11]};
        k.fov_x = 0.6 + 0.1 * i;
        p.keyframes.push_back(k);
    }
    put("camera_path", "two_keyframes.json", camera_path_to_json(p).dump(2) + "\n");
    p.loop = true;
    p.fps = 24, p.seconds = 0.5;
    for (int i = 2; i < 4; ++i) {
        CameraKeyframe k = p.keyframes[size_t(i - 2)];
        k.position.z += 1.0;
        k.rotation(0, 0) *= -1, k.rotation(1, 1) *= -1;  // rotated by pi about z as well
        k.rotation(0, 1) *= -1, k.rotation(1, 0) *= -1;
        p.keyframes.push_back(k);
    }
    put("camera_path", "loop_four.json", camera_path_to_json(p).dump() + "\n");
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2 || argc > 3) {
        std::fprintf(stderr, "usage: %s OUT_DIR [SHARED_DATA]\n", argv[0]);
        return 2;
    }
    g_out = argv[1];
    try {
        image_seeds();
        transforms_seeds(argc == 3 ? argv[2] : "");
        snapshot_seeds();
        colmap_seeds();
        mesh_seeds();
        view_seeds();
    } catch (const Error& e) {
        std::fprintf(stderr, "make_fuzz_seeds: %s\n", e.what());
        return 1;
    }
    return 0;
}
