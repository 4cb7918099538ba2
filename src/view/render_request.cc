#include "view/render_request.h"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "io/transforms.h"

namespace radiant {

namespace {

const char* kSource = "request";

double number(const nlohmann::json& j, const char* key, double lo, double hi) {
    if (!j.contains(key) || !j[key].is_number())
        throw Error(kSource, fmt::format("'{}' must be a number", key));
    const double v = j[key].get<double>();
    if (!std::isfinite(v) || v < lo || v > hi)
        throw Error(kSource, fmt::format("'{}' must be in [{}, {}], got {}", key, lo, hi, v));
    return v;
}

}  // namespace

RenderRequest parse_render_request(const std::string& body) {
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(body);
    } catch (const nlohmann::json::exception&) {
        throw Error(kSource, "body is not valid JSON");
    }
    if (!j.is_object()) throw Error(kSource, "body must be a JSON object");
    RenderRequest r;
    const double w = number(j, "w", 1, kMaxRenderSide), h = number(j, "h", 1, kMaxRenderSide);
    if (w * h > double(kMaxRenderPixels))
        throw Error(kSource,
                    fmt::format("image of {}x{} is larger than {} pixels", w, h, kMaxRenderPixels));
    r.camera.width = int(w);
    r.camera.height = int(h);
    if (j.contains("fl_x")) {
        r.camera.fl_x = float(number(j, "fl_x", 1e-3, 1e7));
        r.camera.fl_y = j.contains("fl_y") ? float(number(j, "fl_y", 1e-3, 1e7)) : r.camera.fl_x;
    } else if (j.contains("camera_angle_x")) {
        r.camera.camera_angle_x = float(number(j, "camera_angle_x", 1e-3, 3.1));
    } else {
        throw Error(kSource, "give the focal length: 'camera_angle_x' or 'fl_x'");
    }
    if (j.contains("cx") || j.contains("cy")) {
        r.camera.cx = float(number(j, "cx", -1e7, 1e7));
        r.camera.cy = float(number(j, "cy", -1e7, 1e7));
        r.camera.has_principal_point = true;
    }
    r.camera.resolve();

    r.camera_to_world = read_transform_matrix(j, kSource, "");
    for (float v : r.camera_to_world)
        if (std::abs(v) > 1e9f)
            throw Error(kSource, "'transform_matrix' entries must be within +-1e9");

    if (j.contains("background")) {
        const auto& b = j["background"];
        if (b == "white")
            r.background = {1, 1, 1};
        else if (b == "black")
            r.background = {0, 0, 0};
        else if (b.is_array() && b.size() == 3) {
            for (int k = 0; k < 3; ++k) {
                if (!b[size_t(k)].is_number() ||
                    !(b[size_t(k)].get<double>() >= 0 && b[size_t(k)].get<double>() <= 1))
                    throw Error(kSource, "'background' components must be numbers in [0, 1]");
                r.background[size_t(k)] = b[size_t(k)].get<float>();
            }
        } else {
            throw Error(kSource, "'background' must be \"white\", \"black\" or [r, g, b]");
        }
    }
    if (j.contains("mode")) {
        const auto& mode = j["mode"];
        if (mode == "rgb")
            r.mode = RenderMode::kRgb;
        else if (mode == "depth")
            r.mode = RenderMode::kDepth;
        else if (mode == "opacity")
            r.mode = RenderMode::kOpacity;
        else
            throw Error(kSource, "'mode' must be \"rgb\", \"depth\" or \"opacity\"");
    }
    if (j.contains("format")) {
        if (j["format"] == "jpeg")
            r.jpeg = true;
        else if (j["format"] != "png")
            throw Error(kSource, "'format' must be \"png\" or \"jpeg\"");
    }
    if (j.contains("quality")) r.quality = int(number(j, "quality", 1, 100));
    if (j.contains("client")) {
        if (!j["client"].is_string() || j["client"].get<std::string>().size() > 64)
            throw Error(kSource, "'client' must be a string of at most 64 characters");
        r.client = j["client"].get<std::string>();
    }
    if (j.contains("seq")) {
        if (!j["seq"].is_number_unsigned())
            throw Error(kSource, "'seq' must be a non-negative integer");
        r.seq = j["seq"].get<uint64_t>();
    }
    return r;
}

}  // namespace radiant
