// `radiant render SNAPSHOT --orbit N | --transforms T`: PNG frames (and an MP4 with ffmpeg).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "app/cli_util.h"
#include "app/commands.h"
#include "app/jobs.h"
#include "core/error.h"
#include "core/progress.h"
#include "core/thread_pool.h"
#include "io/image.h"
#include "io/transforms.h"
#include "nerf/model_io.h"
#include "nerf/render_view.h"
#include "scene/camera_path.h"

namespace radiant {

namespace fs = std::filesystem;

namespace {

struct View {
    CameraIntrinsics camera;
    std::array<float, 16> pose;
};

Vec3 sub(Vec3 a, Vec3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
Vec3 add(Vec3 a, Vec3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
Vec3 mul(Vec3 a, float s) { return {a.x * s, a.y * s, a.z * s}; }
float dot(Vec3 a, Vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
Vec3 cross(Vec3 a, Vec3 b) {
    return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
Vec3 normalize(Vec3 a) { return mul(a, 1.0f / std::sqrt(std::max(dot(a, a), 1e-20f))); }

// An orbit of n cameras around the scene centre, at the training cameras' mean distance and
// height, about their mean up direction, with the first training camera's intrinsics.
std::vector<View> orbit_views(const LoadedModel& loaded, int n, int width, int height) {
    const auto& views = loaded.file.header()["views"];
    if (!views.is_array() || views.empty())
        throw Error(loaded.file.path(),
                    "snapshot lists no training views to place an orbit around");
    const SceneTransform& scene = loaded.model->config().scene;
    const Vec3 centre{(0.5f - scene.offset.x) / scene.scale, (0.5f - scene.offset.y) / scene.scale,
                      (0.5f - scene.offset.z) / scene.scale};
    Vec3 up{0, 0, 0};
    std::vector<Vec3> positions;
    for (const auto& v : views) {
        const auto m = v["camera_to_world"].get<std::array<float, 16>>();
        up = add(up, Vec3{m[1], m[5], m[9]});
        positions.push_back(Vec3{m[3], m[7], m[11]});
    }
    up = normalize(up);
    float radius = 0, height_along_up = 0;
    for (const Vec3& p : positions) {
        radius += std::sqrt(dot(sub(p, centre), sub(p, centre)));
        height_along_up += dot(sub(p, centre), up);
    }
    radius /= float(positions.size());
    height_along_up /= float(positions.size());
    const float flat =
        std::sqrt(std::max(radius * radius - height_along_up * height_along_up, 1e-6f));
    Vec3 e1 = sub(sub(positions[0], centre), mul(up, dot(sub(positions[0], centre), up)));
    if (dot(e1, e1) < 1e-12f)
        e1 = std::abs(up.x) < 0.9f ? cross(up, Vec3{1, 0, 0}) : cross(up, Vec3{0, 1, 0});
    e1 = normalize(e1);
    const Vec3 e2 = cross(up, e1);

    const auto& v0 = views[0];
    CameraIntrinsics cam;
    const int w0 = v0["width"].get<int>(), h0 = v0["height"].get<int>();
    const float s = width > 0    ? float(width) / float(w0)
                    : height > 0 ? float(height) / float(h0)
                                 : 1.0f;
    cam.width = width > 0 ? width : int(std::lround(w0 * s));
    cam.height = height > 0 ? height : int(std::lround(h0 * s));
    cam.fl_x = v0["fl_x"].get<float>() * s;
    cam.fl_y = v0["fl_y"].get<float>() * s;
    cam.cx = 0.5f * float(cam.width);
    cam.cy = 0.5f * float(cam.height);
    cam.has_principal_point = true;

    std::vector<View> out;
    for (int i = 0; i < n; ++i) {
        const float phi = 2.0f * 3.14159265f * float(i) / float(n);
        const Vec3 pos = add(add(centre, mul(up, height_along_up)),
                             mul(add(mul(e1, std::cos(phi)), mul(e2, std::sin(phi))), flat));
        const Vec3 forward = normalize(sub(centre, pos));
        const Vec3 right = normalize(cross(forward, up));
        const Vec3 cam_up = cross(right, forward);
        out.push_back({cam,
                       {right.x, cam_up.x, -forward.x, pos.x,  //
                        right.y, cam_up.y, -forward.y, pos.y,  //
                        right.z, cam_up.z, -forward.z, pos.z,  //
                        0, 0, 0, 1}});
    }
    return out;
}

// The cameras of a transforms file, sized from the json, the images, or --width/--height.
std::vector<View> transforms_views(const std::string& path, int width, int height) {
    Dataset d = load_transforms(path);
    std::vector<View> out;
    for (const Frame& f : d.frames) {
        CameraIntrinsics c = f.camera;
        if (c.width == 0 || c.height == 0) {
            std::error_code ec;
            if (!fs::exists(f.image_path, ec) && (width <= 0 || height <= 0))
                throw Error(path,
                            "frames give no image size and their images are missing; pass --width "
                            "and --height");
            if (fs::exists(f.image_path, ec)) {
                const ImageSize size = read_image_size(f.image_path);
                c.width = size.width, c.height = size.height;
            } else {
                c.width = width, c.height = height;
            }
            c.resolve();
        }
        if (width > 0 || height > 0) {
            const float s =
                width > 0 ? float(width) / float(c.width) : float(height) / float(c.height);
            CameraIntrinsics r = c;
            r.width = width > 0 ? width : int(std::lround(c.width * s));
            r.height = height > 0 ? height : int(std::lround(c.height * s));
            r.fl_x *= s, r.fl_y *= s, r.cx *= s, r.cy *= s;
            c = r;
        }
        out.push_back({c, f.camera_to_world});
    }
    return out;
}

// The frames of a camera path (the viewer's path editor), at its size unless --width/--height.
std::vector<View> path_views(const std::string& file, int width, int height) {
    const CameraPath path = load_camera_path(file);
    const int w = width > 0    ? width
                  : height > 0 ? int(std::lround(double(path.width) * height / path.height))
                               : path.width;
    const int h = height > 0 ? height : int(std::lround(double(path.height) * w / path.width));
    std::vector<View> out;
    const int n = path.frame_count();
    for (int i = 0; i < n; ++i) {
        const CameraKeyframe k = sample_camera_path(path, n > 1 ? double(i) / double(n - 1) : 0.0);
        CameraIntrinsics c;
        c.width = w;
        c.height = h;
        c.camera_angle_x = float(k.fov_x);
        c.resolve();
        out.push_back({c, keyframe_matrix(k)});
    }
    return out;
}

}  // namespace

RenderResult run_render(const RenderOptions& o) {
    const int sources = (o.orbit != 0) + !o.transforms.empty() + !o.path.empty();
    if (o.orbit < 0 || sources == 0)
        throw Error("--orbit", "give --orbit N (at least 1 frame), --transforms T or --path P");
    if (sources > 1) throw Error("--orbit", "give one of --orbit, --transforms and --path");
    if (o.width < 0 || o.height < 0 || o.width > 16384 || o.height > 16384)
        throw Error("--width", "image size must be between 1 and 16384 pixels");
    const std::array<float, 3> bg = parse_background(o.background);
    LoadedModel loaded = load_model_snapshot(o.snapshot, render_precision(o.precision));
    const std::vector<View> views = !o.path.empty() ? path_views(o.path, o.width, o.height)
                                    : o.transforms.empty()
                                        ? orbit_views(loaded, o.orbit, o.width, o.height)
                                        : transforms_views(o.transforms, o.width, o.height);
    if (views.empty()) throw Error(o.transforms, "no views to render");
    make_output_dir(o.out_dir, "--out-dir");
    ThreadPool pool(o.threads);
    Progress progress("render", views.size(), 0, 5.0, "frame");
    RenderResult result;
    for (size_t i = 0; i < views.size(); ++i) {
        const ImageF img =
            render_view(*loaded.model, views[i].camera, views[i].pose, bg.data(), pool);
        save_png((fs::path(o.out_dir) / fmt::format("frame_{:04d}.png", i)).string(), img);
        ProgressState st;
        st.step = i + 1;
        progress.update(st);
    }
    ProgressState st;
    st.step = views.size();
    progress.finish(st);
    result.frames = views.size();
    std::printf("%zu frames (%dx%d) in %s/frame_NNNN.png\n", views.size(), views[0].camera.width,
                views[0].camera.height, o.out_dir.c_str());
    if (have_program("ffmpeg") && views.size() > 1) {
        const std::string video = (fs::path(o.out_dir) / (!o.path.empty()        ? "path.mp4"
                                                          : o.transforms.empty() ? "orbit.mp4"
                                                                                 : "views.mp4"))
                                      .string();
        const std::string tmp = video + ".tmp.mp4";
        const std::string cmd = fmt::format(
            "ffmpeg -y -loglevel error -framerate {} -i '{}/frame_%04d.png' -vf "
            "'pad=ceil(iw/2)*2:ceil(ih/2)*2' "
            "-pix_fmt yuv420p '{}' < /dev/null",
            o.fps, o.out_dir, tmp);
        if (std::system(cmd.c_str()) == 0 && std::rename(tmp.c_str(), video.c_str()) == 0) {
            result.video = video;
            std::printf("video: %s\n", video.c_str());
        } else {
            std::remove(tmp.c_str());
            std::fprintf(stderr, "render: ffmpeg failed; the PNG frames are complete\n");
        }
    } else if (views.size() > 1) {
        std::printf("(install ffmpeg for an MP4 of the frames)\n");
    }
    return result;
}

Command add_render_command(CLI::App& app) {
    auto o = std::make_shared<RenderOptions>();
    CLI::App* cmd = app.add_subcommand(
        "render",
        "Render a snapshot along an orbit around the scene or at the views of a transforms json, "
        "as numbered PNGs (and an MP4 when ffmpeg is installed).");
    cmd->add_option("SNAPSHOT", o->snapshot, ".radiant snapshot from `radiant train`")->required();
    cmd->add_option("--orbit", o->orbit,
                    "render N frames on a circle around the scene at the training cameras' height");
    cmd->add_option("--transforms", o->transforms,
                    "render the camera of every frame of this transforms json");
    cmd->add_option("--path", o->path, "render a camera path (JSON from the viewer's path editor)");
    cmd->add_option("--width", o->width,
                    "image width (default: the training views' or the json's)");
    cmd->add_option("--height", o->height, "image height (default: keeps the aspect ratio)");
    cmd->add_option("--out-dir", o->out_dir, "folder for the frames")->capture_default_str();
    cmd->add_option("--background", o->background, "white, black or R,G,B in [0, 1]")
        ->capture_default_str();
    cmd->add_option("--fps", o->fps, "frame rate of the MP4")
        ->check(CLI::Range(1, 240))
        ->capture_default_str();
    cmd->add_option("--threads", o->threads, "worker threads (0: all cores)")
        ->check(CLI::Range(0, 1024));
    add_render_precision_option(*cmd, o->precision);
    return {cmd, [o] {
                run_render(*o);
                return 0;
            }};
}

}  // namespace radiant
