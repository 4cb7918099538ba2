#include "scene/camera_path.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "core/system.h"

namespace radiant {

int CameraPath::frame_count() const { return std::max(1, int(std::lround(fps * seconds))); }

namespace {

double catmull_rom(double p0, double p1, double p2, double p3, double t) {
    const double t2 = t * t, t3 = t2 * t;
    return 0.5 * (2 * p1 + (-p0 + p2) * t + (2 * p0 - 5 * p1 + 4 * p2 - p3) * t2 +
                  (-p0 + 3 * p1 - 3 * p2 + p3) * t3);
}

}  // namespace

CameraPath camera_path_from_json(const nlohmann::json& j, const std::string& source) {
    // Not j.value("format", ""): that throws nlohmann's type_error when "format" is not a string.
    if (!j.is_object() || !j.contains("format") || j["format"] != "radiant-camera-path")
        throw Error(source, "not a camera path (expected \"format\": \"radiant-camera-path\")");
    CameraPath p;
    auto number = [&](const char* key, double lo, double hi, double fallback) {
        if (!j.contains(key)) return fallback;
        if (!j[key].is_number() || !(j[key].get<double>() >= lo && j[key].get<double>() <= hi))
            throw Error(source, fmt::format("'{}' must be a number in [{}, {}]", key, lo, hi));
        return j[key].get<double>();
    };
    p.width = int(number("width", 16, 8192, 800));
    p.height = int(number("height", 16, 8192, 800));
    p.fps = number("fps", 1, 240, 30);
    p.seconds = number("seconds", 0.04, 3600, 5);
    if (j.contains("loop")) {
        if (!j["loop"].is_boolean()) throw Error(source, "'loop' must be true or false");
        p.loop = j["loop"].get<bool>();
    }
    if (!j.contains("keyframes") || !j["keyframes"].is_array() || j["keyframes"].size() < 2)
        throw Error(source, "a camera path needs at least 2 keyframes");
    if (j["keyframes"].size() > 10000) throw Error(source, "more than 10000 keyframes");
    for (size_t i = 0; i < j["keyframes"].size(); ++i) {
        const auto& k = j["keyframes"][i];
        const std::string where = fmt::format("keyframe {}: ", i);
        if (!k.is_object() || !k.contains("transform_matrix"))
            throw Error(source, where + "missing 'transform_matrix'");
        const auto& m = k["transform_matrix"];
        if (!m.is_array() || m.size() < 3)
            throw Error(source, where + "'transform_matrix' must be a 4x4 array of numbers");
        CameraKeyframe kf;
        for (int r = 0; r < 3; ++r) {
            if (!m[size_t(r)].is_array() || m[size_t(r)].size() != 4)
                throw Error(source, where + "'transform_matrix' must be a 4x4 array of numbers");
            for (int c = 0; c < 4; ++c) {
                const auto& v = m[size_t(r)][size_t(c)];
                if (!v.is_number() || !std::isfinite(v.get<double>()))
                    throw Error(source, where + "'transform_matrix' must hold finite numbers");
                if (c < 3) kf.rotation(r, c) = v.get<double>();
            }
            (r == 0   ? kf.position.x
             : r == 1 ? kf.position.y
                      : kf.position.z) = m[size_t(r)][3].get<double>();
        }
        const Mat3d rtr = kf.rotation.transposed() * kf.rotation;
        for (int a = 0; a < 3; ++a)
            for (int b = 0; b < 3; ++b)
                if (std::abs(rtr(a, b) - (a == b ? 1.0 : 0.0)) > 1e-3)
                    throw Error(source, where +
                                            "'transform_matrix' does not hold a rotation (columns "
                                            "must be orthonormal)");
        if (kf.rotation.determinant() < 0)
            throw Error(source, where + "'transform_matrix' is a reflection, not a rotation");
        if (k.contains("camera_angle_x")) {
            if (!k["camera_angle_x"].is_number() || !(k["camera_angle_x"].get<double>() > 0.01 &&
                                                      k["camera_angle_x"].get<double>() < 3.1))
                throw Error(source, where + "'camera_angle_x' must be in (0.01, 3.1) radians");
            kf.fov_x = k["camera_angle_x"].get<double>();
        }
        p.keyframes.push_back(kf);
    }
    return p;
}

nlohmann::json camera_path_to_json(const CameraPath& p) {
    nlohmann::json keys = nlohmann::json::array();
    for (const auto& k : p.keyframes) {
        const auto m = keyframe_matrix(k);
        nlohmann::json rows = nlohmann::json::array();
        for (int r = 0; r < 4; ++r)
            rows.push_back({m[size_t(4 * r)], m[size_t(4 * r + 1)], m[size_t(4 * r + 2)],
                            m[size_t(4 * r + 3)]});
        keys.push_back({{"transform_matrix", rows}, {"camera_angle_x", k.fov_x}});
    }
    return {{"format", "radiant-camera-path"},
            {"version", 1},
            {"width", p.width},
            {"height", p.height},
            {"fps", p.fps},
            {"seconds", p.seconds},
            {"loop", p.loop},
            {"keyframes", keys}};
}

CameraPath load_camera_path(const std::string& path) {
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(read_file(path));
    } catch (const nlohmann::json::exception& e) {
        throw Error(path, std::string("invalid JSON: ") + e.what());
    }
    return camera_path_from_json(j, path);
}

void save_camera_path(const std::string& path, const CameraPath& p) {
    write_file_atomic(path, camera_path_to_json(p).dump(2) + "\n");
}

CameraKeyframe sample_camera_path(const CameraPath& p, double u) {
    const auto& k = p.keyframes;
    RD_CHECK(k.size() >= 2);
    const long n = long(k.size());
    const long segments = p.loop ? n : n - 1;
    const double s = std::clamp(u, 0.0, 1.0) * double(segments);
    const long i = std::min(long(s), segments - 1);
    const double t = s - double(i);
    auto at = [&](long j) -> const CameraKeyframe& {
        if (p.loop) return k[size_t(((j % n) + n) % n)];
        return k[size_t(std::clamp(j, 0L, n - 1))];
    };
    const CameraKeyframe &k0 = at(i - 1), &k1 = at(i), &k2 = at(i + 1), &k3 = at(i + 2);
    CameraKeyframe out;
    for (int a = 0; a < 3; ++a) {
        const double v =
            catmull_rom(k0.position[a], k1.position[a], k2.position[a], k3.position[a], t);
        (a == 0 ? out.position.x : a == 1 ? out.position.y : out.position.z) = v;
    }
    out.fov_x = catmull_rom(k0.fov_x, k1.fov_x, k2.fov_x, k3.fov_x, t);
    // Quaternions on the same side as k1's, so the spline takes the short way round.
    auto q1 = rotation_to_quaternion(k1.rotation);
    auto align = [&](std::array<double, 4> q) {
        const double d = q[0] * q1[0] + q[1] * q1[1] + q[2] * q1[2] + q[3] * q1[3];
        if (d < 0)
            for (double& c : q) c = -c;
        return q;
    };
    const auto q0 = align(rotation_to_quaternion(k0.rotation)),
               q2 = align(rotation_to_quaternion(k2.rotation));
    const auto q3 = align(rotation_to_quaternion(k3.rotation));
    std::array<double, 4> q;
    for (int c = 0; c < 4; ++c)
        q[size_t(c)] = catmull_rom(q0[size_t(c)], q1[size_t(c)], q2[size_t(c)], q3[size_t(c)], t);
    out.rotation = quaternion_to_rotation(q[0], q[1], q[2], q[3]);
    return out;
}

std::array<float, 16> keyframe_matrix(const CameraKeyframe& k) {
    std::array<float, 16> m{};
    for (int r = 0; r < 3; ++r) {
        for (int c = 0; c < 3; ++c) m[size_t(4 * r + c)] = float(k.rotation(r, c));
        m[size_t(4 * r + 3)] = float(k.position[r]);
    }
    m[15] = 1;
    return m;
}

}  // namespace radiant
