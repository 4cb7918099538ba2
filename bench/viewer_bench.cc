// bench-viewer URL TRANSFORMS [options]: measures a running viewer (`radiant view` or
// `radiant train --view`) over HTTP, as the page uses it.
//
//   --quality             POST /api/render (PNG) at the held-out views (every --every-th view of
//                         TRANSFORMS, the views `radiant eval --holdout-every K` scores) and print
//                         their PSNR against the photos, to compare with `radiant eval`
//   --speed               preview frames/s while the camera moves (each request sent when the
//                         previous frame arrives, the camera turning a little each time) at
//                         --preview-scale of the view size, then the time of refined frames
//   --load moving|resting for --seconds: act like one open page during training, either moving
//                         the camera all the time or resting (status every second, a quarter-size
//                         live frame every 5 s); compare `train --report` samples/s with and
//                         without
//
//   --downscale K         view size: the photos' size / K (default 1)
//   --every K             only every K-th view of TRANSFORMS (default 1: all)
//   --preview-scale S     preview size as a fraction of the view (default 0.25)
//   --seconds S           how long --speed previews and --load run (default 10)
//   --token T             the viewer's access token, when it needs one
#include <fmt/format.h>
#include <httplib.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "core/error.h"
#include "core/thread_pool.h"
#include "io/image.h"
#include "io/staging.h"
#include "io/transforms.h"
#include "nerf/metrics.h"

using namespace radiant;
using Clock = std::chrono::steady_clock;

namespace {

struct Args {
    std::string url, transforms, token, load;
    bool quality = false, speed = false;
    int downscale = 1, every = 1;
    double preview_scale = 0.25, seconds = 10;
};

// One client id per run: the server drops frames older than the newest of a client.
std::string client_id() { return "bench-" + std::to_string(::getpid()); }

double since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

nlohmann::json pose_json(const std::array<float, 16>& m) {
    nlohmann::json j = nlohmann::json::array();
    for (int r = 0; r < 4; ++r) j.push_back({m[4 * r], m[4 * r + 1], m[4 * r + 2], m[4 * r + 3]});
    return j;
}

// The view's camera scaled to `scale` of its size, turned by `angle` radians about world z
// around the origin (the page's orbit, roughly).
nlohmann::json camera_request(const StagedImage& im, double scale, double angle,
                              const std::string& format) {
    std::array<float, 16> m = im.camera_to_world;
    const float c = float(std::cos(angle)), s = float(std::sin(angle));
    for (int col = 0; col < 4; ++col) {
        const float x = m[col], y = m[4 + col];
        m[col] = c * x - s * y;
        m[4 + col] = s * x + c * y;
    }
    const int w = std::max(16, int(std::lround(im.width * scale))),
              h = std::max(16, int(std::lround(im.height * scale)));
    const double k = double(w) / im.width;
    return {{"transform_matrix", pose_json(m)},
            {"fl_x", im.camera.fl_x * k},
            {"fl_y", im.camera.fl_y * k},
            {"cx", im.camera.cx * k},
            {"cy", im.camera.cy * k},
            {"w", w},
            {"h", h},
            {"background", {1, 1, 1}},
            {"format", format},
            {"quality", 88},
            {"client", client_id()}};
}

struct Viewer {
    httplib::Client cli;
    httplib::Headers headers;
    uint64_t seq = 0;
    Viewer(const std::string& url, const std::string& token) : cli(url) {
        cli.set_read_timeout(120, 0);
        if (!token.empty()) headers.emplace("X-Radiant-Token", token);
    }
    std::string render(nlohmann::json req) {
        req["seq"] = ++seq;
        auto r = cli.Post("/api/render", headers, req.dump(), "application/json");
        if (!r)
            throw Error("bench-viewer",
                        "no answer from the viewer: " + httplib::to_string(r.error()));
        if (r->status != 200)
            throw Error("bench-viewer", fmt::format("render: HTTP {}: {}", r->status, r->body));
        return r->body;
    }
};

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

void run_quality(Viewer& viewer, const ImageSet& set) {
    const float white[3] = {1, 1, 1};
    double sum = 0;
    for (size_t v = 0; v < set.images.size(); ++v) {
        const std::string png = viewer.render(camera_request(set.images[v], 1.0, 0.0, "png"));
        const ImageF img = to_float(decode_image(png, "POST /api/render"));
        const double p = psnr_against_view(img, set, v, white);
        std::printf("view %zu: %.3f dB\n", v, p);
        sum += p;
    }
    std::printf(
        "quality: POST /api/render at %zu held-out views: mean PSNR %.3f dB (white background)\n",
        set.images.size(), sum / double(set.images.size()));
}

void run_speed(Viewer& viewer, const StagedImage& im, double preview_scale, double seconds) {
    viewer.render(camera_request(im, preview_scale, 0.0, "jpeg"));  // warm-up
    std::vector<double> times;
    const auto t0 = Clock::now();
    int w = 0, h = 0;
    while (since(t0) < seconds) {
        const nlohmann::json req =
            camera_request(im, preview_scale, 0.02 * double(times.size() + 1), "jpeg");
        w = req["w"], h = req["h"];
        const auto t = Clock::now();
        viewer.render(req);
        times.push_back(since(t));
    }
    const double fps = double(times.size()) / since(t0);
    std::printf("preview %dx%d (%.3g of %dx%d): %.2f frames/s, median %.0f ms\n", w, h,
                preview_scale, im.width, im.height, fps, 1e3 * median(times));
    std::vector<double> refined;
    for (int i = 0; i < 5; ++i) {
        const auto t = Clock::now();
        viewer.render(camera_request(im, 1.0, 0.1 * i, "jpeg"));
        refined.push_back(since(t));
    }
    std::printf("refined %dx%d: median %.2f s (5 frames)\n", im.width, im.height, median(refined));
}

void run_load(Viewer& viewer, const StagedImage& im, const std::string& mode, double seconds) {
    const auto t0 = Clock::now();
    size_t frames = 0, polls = 0;
    double last_poll = -1, last_live = -10;
    while (since(t0) < seconds) {
        const double now = since(t0);
        if (mode == "moving") {
            viewer.render(camera_request(im, 0.25, 0.02 * double(frames), "jpeg"));
            ++frames;
        } else {
            if (now - last_live >= 5) {
                viewer.render(camera_request(im, 0.25, 0.0, "jpeg"));
                ++frames;
                last_live = now;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        if (now - last_poll >= 1) {
            viewer.cli.Get("/api/status", viewer.headers);
            ++polls;
            last_poll = now;
        }
    }
    std::printf("load %s: %zu frames, %zu status polls in %.0f s\n", mode.c_str(), frames, polls,
                since(t0));
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(
            stderr,
            "usage: bench-viewer URL TRANSFORMS [--quality] [--speed] [--load moving|resting] "
            "[--downscale K] [--every K] [--preview-scale S] [--seconds S] [--token T]\n");
        return 2;
    }
    Args a;
    a.url = argv[1];
    a.transforms = argv[2];
    for (int i = 3; i < argc; ++i) {
        const std::string k = argv[i];
        const char* v = i + 1 < argc ? argv[i + 1] : "";
        if (k == "--quality")
            a.quality = true;
        else if (k == "--speed")
            a.speed = true;
        else if (k == "--load")
            a.load = v, ++i;
        else if (k == "--downscale")
            a.downscale = std::atoi(v), ++i;
        else if (k == "--every")
            a.every = std::atoi(v), ++i;
        else if (k == "--preview-scale")
            a.preview_scale = std::atof(v), ++i;
        else if (k == "--seconds")
            a.seconds = std::atof(v), ++i;
        else if (k == "--token")
            a.token = v, ++i;
        else {
            std::fprintf(stderr, "bench-viewer: unknown option %s\n", k.c_str());
            return 2;
        }
    }
    try {
        ThreadPool pool(1);
        Dataset ds = load_transforms(a.transforms);
        if (a.every > 1) select_holdout(ds, a.every, true);
        const ImageSet set = stage_images(ds, {a.downscale}, pool);
        Viewer viewer(a.url, a.token);
        if (a.quality) run_quality(viewer, set);
        if (a.speed) run_speed(viewer, set.images[0], a.preview_scale, a.seconds);
        if (!a.load.empty()) run_load(viewer, set.images[0], a.load, a.seconds);
    } catch (const Error& e) {
        std::fprintf(stderr, "bench-viewer: %s\n", e.what());
        return 2;
    }
    return 0;
}
