#include "io/transforms_writer.h"

#include <cmath>
#include <filesystem>

#include "core/error.h"
#include "core/system.h"

namespace radiant {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

bool same_camera(const CameraIntrinsics& a, const CameraIntrinsics& b) {
    return a.width == b.width && a.height == b.height && a.fl_x == b.fl_x && a.fl_y == b.fl_y &&
           a.cx == b.cx && a.cy == b.cy && a.fisheye == b.fisheye && a.k1 == b.k1 && a.k2 == b.k2 &&
           a.k3 == b.k3 && a.k4 == b.k4 && a.p1 == b.p1 && a.p2 == b.p2;
}

void put_intrinsics(json& j, const CameraIntrinsics& c) {
    j["w"] = c.width;
    j["h"] = c.height;
    j["fl_x"] = c.fl_x;
    j["fl_y"] = c.fl_y;
    j["cx"] = c.cx;
    j["cy"] = c.cy;
    // Informational (instant-ngp writes them too); the loader prefers fl_x / fl_y.
    j["camera_angle_x"] = 2 * std::atan(0.5 * c.width / c.fl_x);
    j["camera_angle_y"] = 2 * std::atan(0.5 * c.height / c.fl_y);
    j["k1"] = c.k1;
    j["k2"] = c.k2;
    if (c.fisheye) {
        j["is_fisheye"] = true;
        j["k3"] = c.k3;
        j["k4"] = c.k4;
    } else {
        if (c.k3 != 0) j["k3"] = c.k3;
        j["p1"] = c.p1;
        j["p2"] = c.p2;
    }
}

}  // namespace

json transforms_to_json(const Dataset& ds, const std::string& json_folder) {
    RD_CHECK(!ds.frames.empty());
    bool shared = true;
    for (const Frame& f : ds.frames) {
        RD_CHECK(f.camera.width > 0 && f.camera.height > 0 && f.camera.fl_x > 0);
        shared = shared && same_camera(f.camera, ds.frames[0].camera);
    }
    json root = json::object();
    if (shared) put_intrinsics(root, ds.frames[0].camera);
    root["aabb_scale"] = ds.aabb_scale;
    root["scale"] = ds.scale;
    root["offset"] = ds.offset;
    if (ds.applied_transform) {
        json m = json::array();
        for (int r = 0; r < 4; ++r)
            m.push_back({(*ds.applied_transform)[size_t(r * 4)],
                         (*ds.applied_transform)[size_t(r * 4 + 1)],
                         (*ds.applied_transform)[size_t(r * 4 + 2)],
                         (*ds.applied_transform)[size_t(r * 4 + 3)]});
        root["applied_transform"] = m;
    }
    json frames = json::array();
    const fs::path base = fs::absolute(json_folder).lexically_normal();
    for (const Frame& f : ds.frames) {
        json jf = json::object();
        jf["file_path"] =
            fs::absolute(f.image_path).lexically_normal().lexically_relative(base).generic_string();
        if (f.sharpness > 0) jf["sharpness"] = f.sharpness;
        if (!shared) put_intrinsics(jf, f.camera);
        json m = json::array();
        for (int r = 0; r < 4; ++r)
            m.push_back({f.camera_to_world[size_t(r * 4)], f.camera_to_world[size_t(r * 4 + 1)],
                         f.camera_to_world[size_t(r * 4 + 2)],
                         f.camera_to_world[size_t(r * 4 + 3)]});
        jf["transform_matrix"] = m;
        frames.push_back(jf);
    }
    root["frames"] = frames;
    return root;
}

void save_transforms(const std::string& path, const Dataset& ds, const json& extra) {
    json root = transforms_to_json(ds, fs::path(path).parent_path().string());
    for (auto it = extra.begin(); it != extra.end(); ++it) root[it.key()] = it.value();
    write_file_atomic(path, root.dump(2) + "\n");
}

}  // namespace radiant
