#include "demo/demo_scene.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>

#include "core/error.h"
#include "core/system.h"
#include "io/image.h"

namespace radiant {

namespace fs = std::filesystem;

namespace {

constexpr float kPi = 3.14159265358979f;
constexpr float kCameraAngleX = 0.6911112f;  // as in NeRF-synthetic
constexpr float kCameraDistance = 4.0f;

struct V3 {
    float x, y, z;
    V3 operator+(V3 o) const { return {x + o.x, y + o.y, z + o.z}; }
    V3 operator-(V3 o) const { return {x - o.x, y - o.y, z - o.z}; }
    V3 operator*(float s) const { return {x * s, y * s, z * s}; }
};
float dot(V3 a, V3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
V3 cross(V3 a, V3 b) {
    return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
V3 normalize(V3 a) { return a * (1.0f / std::sqrt(dot(a, a))); }

struct Hit {
    float t;
    V3 albedo;
    V3 normal;
};

const V3 kLight = normalize({0.4f, -0.3f, 0.85f});

std::optional<Hit> hit_sphere(V3 o, V3 d, V3 c, float r, int texture) {
    const V3 oc = o - c;
    const float b = dot(oc, d), q = dot(oc, oc) - r * r, disc = b * b - q;
    if (disc < 0) return std::nullopt;
    const float t = -b - std::sqrt(disc);
    if (t <= 1e-4f) return std::nullopt;
    const V3 n = normalize(o + d * t - c);
    const float lat = std::asin(std::clamp(n.z, -1.0f, 1.0f)), lon = std::atan2(n.y, n.x);
    V3 albedo;
    if (texture == 0) {  // checker in latitude / longitude
        const bool odd = (int(std::floor(lat / (kPi / 8))) + int(std::floor(lon / (kPi / 8)))) & 1;
        albedo = odd ? V3{0.95f, 0.55f, 0.15f} : V3{0.98f, 0.92f, 0.78f};
    } else {  // bands of latitude
        const float band = std::sin(lat * 9.0f);
        albedo = band > 0 ? V3{0.15f, 0.35f, 0.85f} : V3{0.55f, 0.85f, 0.95f};
    }
    return Hit{t, albedo, n};
}

// Box of half-size h centred at c, rotated by `angle` about z.
std::optional<Hit> hit_box(V3 o, V3 d, V3 c, float h, float angle) {
    const float ca = std::cos(angle), sa = std::sin(angle);
    auto to_local = [&](V3 v) { return V3{ca * v.x + sa * v.y, -sa * v.x + ca * v.y, v.z}; };
    const V3 lo = to_local(o - c), ld = to_local(d);
    float t0 = -1e30f, t1 = 1e30f;
    int axis = 0;
    const float lo_a[3] = {lo.x, lo.y, lo.z}, ld_a[3] = {ld.x, ld.y, ld.z};
    for (int k = 0; k < 3; ++k) {
        if (std::abs(ld_a[k]) < 1e-9f) {
            if (std::abs(lo_a[k]) > h) return std::nullopt;
            continue;
        }
        float a = (-h - lo_a[k]) / ld_a[k], b = (h - lo_a[k]) / ld_a[k];
        if (a > b) std::swap(a, b);
        if (a > t0) t0 = a, axis = k;
        t1 = std::min(t1, b);
    }
    if (t0 > t1 || t0 <= 1e-4f) return std::nullopt;
    const V3 p = lo + ld * t0;
    const float pa[3] = {p.x, p.y, p.z};
    V3 ln{0, 0, 0};
    (axis == 0 ? ln.x : axis == 1 ? ln.y : ln.z) = pa[axis] > 0 ? 1.0f : -1.0f;
    static const V3 face_colour[3][2] = {{{0.8f, 0.2f, 0.2f}, {0.2f, 0.7f, 0.3f}},
                                         {{0.9f, 0.8f, 0.2f}, {0.6f, 0.3f, 0.8f}},
                                         {{0.95f, 0.95f, 0.95f}, {0.3f, 0.3f, 0.3f}}};
    V3 albedo = face_colour[axis][pa[axis] > 0];
    // Dark grid lines on every face.
    const float u = pa[(axis + 1) % 3] / h, v = pa[(axis + 2) % 3] / h;
    auto near_line = [](float s) { return std::abs(s * 2.0f - std::round(s * 2.0f)) < 0.08f; };
    if (near_line(u) || near_line(v)) albedo = albedo * 0.25f;
    const V3 n{ca * ln.x - sa * ln.y, sa * ln.x + ca * ln.y, ln.z};
    return Hit{t0, albedo, n};
}

std::optional<Hit> hit_disc(V3 o, V3 d, float z, float radius) {
    if (std::abs(d.z) < 1e-9f) return std::nullopt;
    const float t = (z - o.z) / d.z;
    if (t <= 1e-4f) return std::nullopt;
    const V3 p = o + d * t;
    const float r = std::sqrt(p.x * p.x + p.y * p.y);
    if (r > radius) return std::nullopt;
    const bool ring = int(std::floor(r / 0.15f)) & 1;
    const bool spoke = int(std::floor((std::atan2(p.y, p.x) + kPi) / (kPi / 6))) & 1;
    const V3 albedo = (ring ^ spoke) ? V3{0.45f, 0.42f, 0.38f} : V3{0.75f, 0.72f, 0.66f};
    return Hit{t, albedo, V3{0, 0, d.z < 0 ? 1.0f : -1.0f}};
}

// Smooth pseudo-random values in [0, 1] over 3D space (trilinear value noise, 3 octaves).
float lattice(int x, int y, int z) {
    uint32_t h = uint32_t(x) * 73856093u ^ uint32_t(y) * 19349663u ^ uint32_t(z) * 83492791u;
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    h ^= h >> 15;
    return float(h & 0xFFFFu) / 65535.0f;
}

float value_noise(V3 p) {
    float sum = 0, weight = 0, amplitude = 1;
    for (float freq : {5.0f, 13.0f, 31.0f}) {
        const float x = p.x * freq, y = p.y * freq, z = p.z * freq;
        const int ix = int(std::floor(x)), iy = int(std::floor(y)), iz = int(std::floor(z));
        const float fx = x - float(ix), fy = y - float(iy), fz = z - float(iz);
        float v = 0;
        for (int c = 0; c < 8; ++c) {
            const int dx = c & 1, dy = (c >> 1) & 1, dz = c >> 2;
            v += lattice(ix + dx, iy + dy, iz + dz) * (dx ? fx : 1 - fx) * (dy ? fy : 1 - fy) *
                 (dz ? fz : 1 - fz);
        }
        sum += amplitude * v;
        weight += amplitude;
        amplitude *= 0.6f;
    }
    return sum / weight;
}

// Colour (straight) and coverage of one primary ray.
std::optional<V3> trace(V3 o, V3 d, bool feature_texture) {
    std::optional<Hit> best;
    auto consider = [&](std::optional<Hit> h) {
        if (h && (!best || h->t < best->t)) best = h;
    };
    consider(hit_sphere(o, d, {-0.45f, -0.3f, 0.45f}, 0.45f, 0));
    consider(hit_sphere(o, d, {0.1f, 0.6f, 0.22f}, 0.22f, 1));
    consider(hit_box(o, d, {0.45f, 0.15f, 0.3f}, 0.3f, 0.5f));
    consider(hit_disc(o, d, 0.0f, 1.2f));
    if (!best) return std::nullopt;
    const float lambert = std::max(0.0f, dot(best->normal, kLight));
    if (feature_texture) {
        // Colourful blotches, unique everywhere, instead of the repeating checkers and bands
        // (which feature matchers confuse from one square to the next).
        const V3 p = o + d * best->t;
        const V3 tint{value_noise(p), value_noise(p + V3{17.3f, 5.1f, 9.7f}),
                      value_noise(p + V3{3.7f, 29.1f, 13.3f})};
        best->albedo = (best->albedo * 0.3f + tint * 0.7f) *
                       (0.4f + 1.2f * value_noise(p * 2.0f + V3{7, 7, 7}));
    }
    return best->albedo * (0.35f + 0.65f * lambert);
}

std::array<float, 16> look_at(V3 eye, V3 target) {
    const V3 up{0, 0, 1};
    const V3 f = normalize(target - eye), r = normalize(cross(f, up)), u = cross(r, f);
    return {r.x, u.x, -f.x, eye.x, r.y, u.y, -f.y, eye.y, r.z, u.z, -f.z, eye.z, 0, 0, 0, 1};
}

ImageF render(const std::array<float, 16>& pose, const DemoSceneOptions& o) {
    ImageF img(o.width, o.height, 4);
    const float focal = 0.5f * float(o.width) / std::tan(0.5f * kCameraAngleX);
    const V3 eye{pose[3], pose[7], pose[11]};
    const int ss = o.supersampling;
    for (int y = 0; y < o.height; ++y)
        for (int x = 0; x < o.width; ++x) {
            V3 sum{0, 0, 0};
            int hits = 0;
            for (int sy = 0; sy < ss; ++sy)
                for (int sx = 0; sx < ss; ++sx) {
                    const float px = x + (sx + 0.5f) / ss, py = y + (sy + 0.5f) / ss;
                    const V3 dc{(px - 0.5f * o.width) / focal, -(py - 0.5f * o.height) / focal,
                                -1.0f};
                    const V3 dw{pose[0] * dc.x + pose[1] * dc.y + pose[2] * dc.z,
                                pose[4] * dc.x + pose[5] * dc.y + pose[6] * dc.z,
                                pose[8] * dc.x + pose[9] * dc.y + pose[10] * dc.z};
                    if (auto c = trace(eye, normalize(dw), o.feature_texture))
                        sum = sum + *c, ++hits;
                }
            const float a = float(hits) / float(ss * ss);
            const V3 c = hits ? sum * (1.0f / float(hits)) : V3{0, 0, 0};
            img.at(x, y, 0) = c.x, img.at(x, y, 1) = c.y, img.at(x, y, 2) = c.z,
                         img.at(x, y, 3) = a;
        }
    return img;
}

nlohmann::json matrix_json(const std::array<float, 16>& m) {
    nlohmann::json rows = nlohmann::json::array();
    for (int r = 0; r < 4; ++r)
        rows.push_back({m[4 * r], m[4 * r + 1], m[4 * r + 2], m[4 * r + 3]});
    return rows;
}

// Views on the upper hemisphere: a golden-angle spiral in azimuth, elevations between 15 and 65
// degrees; `phase` shifts the spiral so test views fall between training views.
std::string write_split(const fs::path& folder, const std::string& split, int n, float phase,
                        const DemoSceneOptions& o) {
    fs::create_directories(folder / split);
    nlohmann::json j;
    j["camera_angle_x"] = kCameraAngleX;
    j["frames"] = nlohmann::json::array();
    const V3 target{0.0f, 0.0f, 0.25f};
    for (int i = 0; i < n; ++i) {
        const float u = (float(i) + phase) / float(n);
        float elevation = (15.0f + 50.0f * u) * kPi / 180.0f;
        float azimuth = (float(i) + phase) * 2.39996323f;
        if (o.orbit_path) {  // once around, rising and falling between 20 and 50 degrees
            azimuth = 2 * kPi * u;
            elevation = (35.0f + 15.0f * std::sin(2 * kPi * u)) * kPi / 180.0f;
        }
        const V3 eye = target + V3{std::cos(elevation) * std::cos(azimuth),
                                   std::cos(elevation) * std::sin(azimuth), std::sin(elevation)} *
                                    kCameraDistance;
        const auto pose = look_at(eye, target);
        const std::string name = split + "/r_" + std::to_string(i);
        save_png((folder / (name + ".png")).string(), render(pose, o));
        j["frames"].push_back(
            {{"file_path", "./" + name}, {"transform_matrix", matrix_json(pose)}});
    }
    const fs::path json_path = folder / ("transforms_" + split + ".json");
    write_file_atomic(json_path.string(), j.dump(2));
    return json_path.string();
}

}  // namespace

float demo_scene_distance(float x, float y, float z) {
    const V3 p{x, y, z};
    auto sphere = [&](V3 c, float r) { return std::abs(std::sqrt(dot(p - c, p - c)) - r); };
    // The box (half-size 0.3 at (0.45, 0.15, 0.3), turned 0.5 rad about z), in its own frame.
    const float ca = std::cos(0.5f), sa = std::sin(0.5f);
    const V3 d = p - V3{0.45f, 0.15f, 0.3f};
    const V3 l{ca * d.x + sa * d.y, -sa * d.x + ca * d.y, d.z};
    const V3 q{std::abs(l.x) - 0.3f, std::abs(l.y) - 0.3f, std::abs(l.z) - 0.3f};
    const V3 qo{std::max(q.x, 0.0f), std::max(q.y, 0.0f), std::max(q.z, 0.0f)};
    const float box = std::abs(std::sqrt(dot(qo, qo)) + std::min(std::max({q.x, q.y, q.z}), 0.0f));
    const float r = std::sqrt(x * x + y * y);
    const float disc = r <= 1.2f ? std::abs(z) : std::sqrt((r - 1.2f) * (r - 1.2f) + z * z);
    return std::min(
        {sphere({-0.45f, -0.3f, 0.45f}, 0.45f), sphere({0.1f, 0.6f, 0.22f}, 0.22f), box, disc});
}

DemoScene write_demo_scene(const std::string& folder, const DemoSceneOptions& o) {
    RD_CHECK(o.width > 0 && o.height > 0 && o.train_views > 0 && o.test_views > 0 &&
             o.supersampling > 0);
    std::error_code ec;
    fs::create_directories(folder, ec);
    if (ec) throw Error(folder, "cannot create folder: " + ec.message());
    DemoScene scene;
    scene.folder = folder;
    scene.train_json = write_split(folder, "train", o.train_views, 0.0f, o);
    scene.test_json = write_split(folder, "test", o.test_views, 0.5f, o);
    return scene;
}

}  // namespace radiant
