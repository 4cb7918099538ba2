#include "export/nerf_export.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "core/timer.h"
#include "mesh/mesh_ops.h"
#include "mesh/rasterize.h"
#include "nerf/render_view.h"
#include "scene/composite.h"

namespace radiant {

std::array<double, 3> unit_to_world(const SceneTransform& s, const std::array<double, 3>& p) {
    const double o[3] = {s.offset.x, s.offset.y, s.offset.z};
    return {(p[0] - o[0]) / s.scale, (p[1] - o[1]) / s.scale, (p[2] - o[2]) / s.scale};
}

std::array<double, 3> world_to_unit(const SceneTransform& s, const std::array<double, 3>& p) {
    const double o[3] = {s.offset.x, s.offset.y, s.offset.z};
    return {p[0] * s.scale + o[0], p[1] * s.scale + o[1], p[2] * s.scale + o[2]};
}

namespace {

// A snapshot view's camera, resized to `scale` times its size.
CameraIntrinsics view_camera(const nlohmann::json& v, double scale) {
    CameraIntrinsics c;
    c.width = std::max(1, int(v.at("width").get<double>() * scale));
    c.height = std::max(1, int(v.at("height").get<double>() * scale));
    const double sx = double(c.width) / v.at("width").get<double>(),
                 sy = double(c.height) / v.at("height").get<double>();
    c.fl_x = float(v.at("fl_x").get<double>() * sx);
    c.fl_y = float(v.at("fl_y").get<double>() * sy);
    c.cx = float(v.at("cx").get<double>() * sx);
    c.cy = float(v.at("cy").get<double>() * sy);
    c.has_principal_point = true;
    return c;
}

struct Box {
    std::array<double, 3> lo{}, hi{};
    bool empty() const { return hi[0] <= lo[0] || hi[1] <= lo[1] || hi[2] <= lo[2]; }
    Box intersect(const Box& o) const {
        Box b;
        for (int a = 0; a < 3; ++a)
            b.lo[size_t(a)] = std::max(lo[size_t(a)], o.lo[size_t(a)]),
            b.hi[size_t(a)] = std::min(hi[size_t(a)], o.hi[size_t(a)]);
        return b;
    }
    bool overlaps(const Vec3& l, const Vec3& h) const {
        return l.x < hi[0] && h.x > lo[0] && l.y < hi[1] && h.y > lo[1] && l.z < hi[2] &&
               h.z > lo[2];
    }
};

// Cells of every cascade that do not lie inside the next finer one (whose cells are smaller).
template <class F>
void for_each_finest_cell(const OccupancyGrid& grid, F&& f) {
    const int R = grid.config().resolution;
    for (int k = 0; k < grid.config().n_cascades; ++k)
        for (size_t cell = 0; cell < grid.cells_per_cascade(); ++cell) {
            Vec3 lo, hi;
            grid.cell_bounds(k, cell, lo, hi);
            if (k > 0) {
                const float inner = 0.5f * float(1 << (k - 1));
                const Vec3 c{0.5f * (lo.x + hi.x), 0.5f * (lo.y + hi.y), 0.5f * (lo.z + hi.z)};
                if (std::abs(c.x - 0.5f) < inner && std::abs(c.y - 0.5f) < inner &&
                    std::abs(c.z - 0.5f) < inner)
                    continue;
            }
            f(k, cell, lo, hi, R);
        }
}

}  // namespace

float default_mesh_threshold(const NerfModel& model) {
    return float(-std::log(1.0 - 0.1) / double(model.config().march.min_step));
}

MeshExportResult export_nerf_mesh(const NerfModel& model, const nlohmann::json& views,
                                  const MeshExportOptions& o, ThreadPool& pool,
                                  const std::string& source) {
    const float threshold = o.threshold.value_or(default_mesh_threshold(model));
    if (!std::isfinite(threshold) || threshold <= 0)
        throw Error("--threshold",
                    fmt::format("must be a positive finite density, got {}", threshold));
    if (o.resolution < 16 || o.resolution > 4096)
        throw Error("--resolution", fmt::format("must be in 16..4096, got {}", o.resolution));
    if (!(o.min_component >= 0 && o.min_component <= 1))
        throw Error("--min-component",
                    fmt::format("must be a fraction in [0, 1], got {}", o.min_component));
    const SceneTransform& scene = model.config().scene;
    const OccupancyGrid& grid = model.grid();
    const double half = 0.5 * double(model.config().field.aabb_scale);
    const Box scene_box{{0.5 - half, 0.5 - half, 0.5 - half}, {0.5 + half, 0.5 + half, 0.5 + half}};

    Box box;
    if (o.crop) {
        const auto& c = *o.crop;
        for (int a = 0; a < 3; ++a)
            if (!(std::isfinite(c[size_t(a)]) && std::isfinite(c[size_t(a + 3)]) &&
                  c[size_t(a + 3)] > c[size_t(a)]))
                throw Error(
                    "--crop",
                    fmt::format(
                        "empty box: each of x1 y1 z1 must exceed x0 y0 z0 (got {}..{} on axis {})",
                        c[size_t(a)], c[size_t(a + 3)], "xyz"[a]));
        box.lo = world_to_unit(scene, {c[0], c[1], c[2]});
        box.hi = world_to_unit(scene, {c[3], c[4], c[5]});
        box = box.intersect(scene_box);
        if (box.empty()) {
            const auto wl = unit_to_world(scene, scene_box.lo),
                       wh = unit_to_world(scene, scene_box.hi);
            throw Error(
                "--crop",
                fmt::format("box lies outside the scene, which spans {:.4g},{:.4g},{:.4g} to "
                            "{:.4g},{:.4g},{:.4g} (world frame)",
                            wl[0], wl[1], wl[2], wh[0], wh[1], wh[2]));
        }
    } else {
        // The occupied part of the innermost cascade (the unit cube), where an object-centred
        // capture keeps its subject; else of any cascade.
        for (int pass = 0; pass < 2 && box.empty(); ++pass) {
            bool any = false;
            for (int k = 0; k < (pass == 0 ? 1 : grid.config().n_cascades); ++k)
                for (size_t cell = 0; cell < grid.cells_per_cascade(); ++cell) {
                    if (!grid.occupied_cell(k, cell)) continue;
                    Vec3 lo, hi;
                    grid.cell_bounds(k, cell, lo, hi);
                    const double l[3] = {lo.x, lo.y, lo.z}, h[3] = {hi.x, hi.y, hi.z};
                    for (int a = 0; a < 3; ++a) {
                        box.lo[size_t(a)] = any ? std::min(box.lo[size_t(a)], l[a]) : l[a];
                        box.hi[size_t(a)] = any ? std::max(box.hi[size_t(a)], h[a]) : h[a];
                    }
                    any = true;
                }
        }
        if (box.empty())
            throw Error(
                source,
                "the snapshot has no occupied cells: there is nothing to mesh (was it trained?)");
        box = box.intersect(scene_box);
    }

    Lattice lattice;
    const double longest =
        std::max({box.hi[0] - box.lo[0], box.hi[1] - box.lo[1], box.hi[2] - box.lo[2]});
    lattice.spacing = longest / o.resolution;
    for (int a = 0; a < 3; ++a) {
        lattice.origin[size_t(a)] = box.lo[size_t(a)];
        lattice.vertices[size_t(a)] = std::max(
            2,
            int(std::ceil((box.hi[size_t(a)] - box.lo[size_t(a)]) / lattice.spacing - 1e-9)) + 1);
    }

    // Seeds: cells whose density estimate reaches the threshold beside one that does not (the
    // estimate's own surface), so the lattice is evaluated near the surface only.
    std::vector<std::array<int, 3>> seeds;
    auto seed_cell = [&](const Vec3& lo, const Vec3& hi) {
        const double pts[9][3] = {{lo.x, lo.y, lo.z},
                                  {hi.x, lo.y, lo.z},
                                  {lo.x, hi.y, lo.z},
                                  {hi.x, hi.y, lo.z},
                                  {lo.x, lo.y, hi.z},
                                  {hi.x, lo.y, hi.z},
                                  {lo.x, hi.y, hi.z},
                                  {hi.x, hi.y, hi.z},
                                  {0.5 * (lo.x + hi.x), 0.5 * (lo.y + hi.y), 0.5 * (lo.z + hi.z)}};
        for (const auto& p : pts) {
            std::array<int, 3> idx;
            for (int a = 0; a < 3; ++a)
                idx[size_t(a)] = std::clamp(
                    int(std::lround((p[a] - lattice.origin[size_t(a)]) / lattice.spacing)), 0,
                    lattice.vertices[size_t(a)] - 1);
            seeds.push_back(idx);
        }
    };
    const std::vector<float>& est = grid.densities();
    const size_t cells = grid.cells_per_cascade();
    for (int pass = 0; pass < 2 && seeds.empty(); ++pass) {
        for_each_finest_cell(grid, [&](int k, size_t cell, const Vec3& lo, const Vec3& hi, int R) {
            if (!box.overlaps(lo, hi)) return;
            const float e = est[size_t(k) * cells + cell];
            if (pass == 1) {  // fallback: anything with some density
                if (e >= 0.1f * threshold) seed_cell(lo, hi);
                return;
            }
            if (e < 0.5f * threshold) return;
            const int x = int(cell % size_t(R)), y = int(cell / size_t(R) % size_t(R)),
                      z = int(cell / (size_t(R) * size_t(R)));
            const int n[6][3] = {{x - 1, y, z}, {x + 1, y, z}, {x, y - 1, z},
                                 {x, y + 1, z}, {x, y, z - 1}, {x, y, z + 1}};
            bool shell = false;
            for (const auto& q : n) {
                if (q[0] < 0 || q[1] < 0 || q[2] < 0 || q[0] >= R || q[1] >= R || q[2] >= R) {
                    shell = true;
                    break;
                }
                if (est[size_t(k) * cells + (size_t(q[2]) * size_t(R) + size_t(q[1])) * size_t(R) +
                        size_t(q[0])] < threshold) {
                    shell = true;
                    break;
                }
            }
            if (shell) seed_cell(lo, hi);
        });
    }
    if (seeds.empty())
        throw Error(source,
                    "the snapshot has no occupied cells in the box: there is nothing to mesh");

    const NerfField& field = model.field();
    IsoSurfaceOptions iso;
    iso.threshold = threshold;
    iso.fill_cavities = o.fill_cavities;
    std::vector<NerfField::Workspace> ws;
    for (int t = 0; t < pool.size(); ++t) ws.push_back(field.make_workspace(512));
    // The density the renderer sees: none in cells the occupancy grid marks empty, which the
    // marcher skips. Training never corrects the field there, so it holds faint fog that would
    // otherwise become slabs and shells in the mesh.
    const ValueFn density = [&](const float* pos, size_t n, float* out, int t) {
        for (size_t i = 0; i < n; i += 512)
            field.density(model.params().data(), model.packed(), pos + 3 * i,
                          std::min<size_t>(512, n - i), ws[size_t(t)], out + i);
        if (o.occupied_only)
            for (size_t i = 0; i < n; ++i)
                if (!grid.occupied(Vec3{pos[3 * i], pos[3 * i + 1], pos[3 * i + 2]})) out[i] = 0;
    };
    MeshExportResult r;
    Timer phase;
    auto lap = [&](const char* name) {
        r.seconds.emplace_back(name, phase.seconds()), phase.reset();
    };
    r.mesh = extract_isosurface(lattice, seeds, density, iso, pool, &r.stats);
    lap("marching cubes");
    r.triangles_extracted = r.mesh.triangle_count();
    if (r.mesh.indices.empty())
        throw Error(
            source,
            fmt::format("no surface at density {} in the box; try a lower --threshold", threshold));
    r.threshold = threshold;
    r.components_removed = remove_small_components(r.mesh, o.min_component);
    lap("floaters");
    if (o.remove_hidden && views.is_array() && !views.empty()) {
        // Up to 32 training views at about 256 pixels (a piece seen by none is hidden, which
        // needs no finer look), as cameras in the unit-cube frame the mesh is still in (a
        // scale and an offset leave the projection unchanged).
        std::vector<RasterCamera> cams;
        const size_t n = std::min<size_t>(32, views.size());
        for (size_t i = 0; i < n; ++i) {
            const auto& v = views[i * views.size() / n];
            const double longest =
                std::max(v.at("width").get<double>(), v.at("height").get<double>());
            RasterCamera rc{view_camera(v, std::min(1.0, 256.0 / longest)),
                            v.at("camera_to_world").get<std::array<float, 16>>()};
            const float off[3] = {scene.offset.x, scene.offset.y, scene.offset.z};
            for (int a = 0; a < 3; ++a)
                rc.camera_to_world[size_t(4 * a + 3)] =
                    rc.camera_to_world[size_t(4 * a + 3)] * scene.scale + off[a];
            cams.push_back(rc);
        }
        r.hidden_removed =
            remove_hidden_components(r.mesh, visible_triangles(r.mesh, cams, pool), 0.01);
        if (r.mesh.indices.empty())
            throw Error(source, "no part of the surface is seen by a training camera");
        lap("visibility");
    }
    if (o.simplify) {
        simplify_mesh(r.mesh, o.simplify);
        lap("simplify");
    }
    compute_vertex_normals(r.mesh);

    // Colours: what a camera looking at the vertex along its normal sees. The density at the
    // threshold is a faint skin where the colour network was hardly trained, so the colour is
    // composited along a short ray through the surface, from three cells outside to three
    // inside, weighted as a render weights it.
    Mesh& m = r.mesh;
    const size_t nv = m.vertex_count();
    m.colors.assign(3 * nv, 0);
    constexpr size_t kSteps = 12, kPerTile = 256 / kSteps;  // vertices per field call
    const float reach = 3.0f * float(lattice.spacing), step = 2 * reach / float(kSteps);
    std::vector<NerfField::Workspace> cws;
    for (int t = 0; t < pool.size(); ++t) cws.push_back(field.make_workspace(kSteps * kPerTile));
    pool.parallel_for((nv + kPerTile - 1) / kPerTile, [&](size_t tile, int t) {
        const size_t v0 = tile * kPerTile, nvt = std::min(kPerTile, nv - v0), ns = nvt * kSteps;
        float pos[3 * kSteps * kPerTile] = {}, dir[3 * kSteps * kPerTile] = {},
                               sigma[kSteps * kPerTile], rgb[3 * kSteps * kPerTile];
        for (size_t v = 0; v < nvt; ++v)
            for (size_t k = 0; k < kSteps; ++k) {
                const size_t s = v * kSteps + k;
                const float along = reach - (float(k) + 0.5f) * step;  // outside (+) to inside (-)
                for (int a = 0; a < 3; ++a) {
                    const float n = m.normals[3 * (v0 + v) + size_t(a)];
                    pos[3 * s + size_t(a)] = m.positions[3 * (v0 + v) + size_t(a)] + n * along;
                    dir[3 * s + size_t(a)] = -n;
                }
            }
        field.forward(model.params().data(), model.packed(), pos, dir, ns, cws[size_t(t)], sigma,
                      rgb);
        for (size_t v = 0; v < nvt; ++v) {
            Transmittance T;
            float acc[3] = {0, 0, 0};
            for (size_t k = 0; k < kSteps; ++k) {
                const size_t s = v * kSteps + k;
                const float w = T.absorb(sigma[s], step);
                for (int a = 0; a < 3; ++a) acc[a] += w * rgb[3 * s + size_t(a)];
            }
            const float opacity = 1 - T.value;
            for (int a = 0; a < 3; ++a) {
                // Nearly transparent along the whole ray: the colour at the vertex itself.
                const float c = opacity > 0.05f ? acc[a] / opacity
                                                : rgb[3 * (v * kSteps + kSteps / 2) + size_t(a)];
                m.colors[3 * (v0 + v) + size_t(a)] =
                    uint8_t(std::lround(std::clamp(c, 0.0f, 1.0f) * 255.0f));
            }
        }
    });
    lap("colours");
    for (size_t i = 0; i < nv; ++i) {
        const auto w = unit_to_world(
            scene, {m.positions[3 * i], m.positions[3 * i + 1], m.positions[3 * i + 2]});
        for (int a = 0; a < 3; ++a) m.positions[3 * i + size_t(a)] = float(w[size_t(a)]);
    }
    const auto wl = unit_to_world(scene, box.lo), wh = unit_to_world(scene, box.hi);
    r.box = {wl[0], wl[1], wl[2], wh[0], wh[1], wh[2]};
    return r;
}

PointCloud export_nerf_points(const NerfModel& model, const nlohmann::json& views, size_t count,
                              float min_opacity, ThreadPool& pool, const std::string& source) {
    if (!views.is_array() || views.empty())
        throw Error(source, "snapshot lists no training views to cast rays from");
    if (count == 0) throw Error("--count", "must be positive");
    // Render each view at a size that gives about twice the points asked for in all (not every
    // pixel sees the scene), then keep every k-th opaque pixel.
    double pixels = 0;
    for (const auto& v : views)
        pixels += v.at("width").get<double>() * v.at("height").get<double>();
    const double shrink = std::max(1.0, std::sqrt(pixels / (2.0 * double(count))));
    const SceneTransform& scene = model.config().scene;
    PointCloud all;
    const float black[3] = {0, 0, 0};
    for (const auto& v : views) {
        const CameraIntrinsics c = view_camera(v, 1.0 / shrink);
        const auto pose = v.at("camera_to_world").get<std::array<float, 16>>();
        ViewExtras extras;
        const ImageF rgb = render_view(model, c, pose, black, pool, &extras);
        for (int y = 0; y < c.height; ++y)
            for (int x = 0; x < c.width; ++x) {
                const float a = extras.opacity.at(x, y, 0);
                if (a < min_opacity) continue;
                const Ray ray = camera_ray(c, pose, scene, x + 0.5f, y + 0.5f);
                const float t = extras.depth.at(x, y, 0);
                const auto w = unit_to_world(
                    scene, {ray.origin.x + t * ray.direction.x, ray.origin.y + t * ray.direction.y,
                            ray.origin.z + t * ray.direction.z});
                for (int k = 0; k < 3; ++k) {
                    all.positions.push_back(float(w[size_t(k)]));
                    // The render is premultiplied over black: divide by the opacity.
                    all.colors.push_back(
                        uint8_t(std::lround(std::clamp(rgb.at(x, y, k) / a, 0.0f, 1.0f) * 255.0f)));
                }
            }
    }
    const size_t n = all.positions.size() / 3;
    if (n == 0)
        throw Error(
            source,
            "no rendered pixel is opaque enough: the model sees nothing from its training views");
    if (n <= count) return all;
    PointCloud kept;  // an even thinning keeps the views' coverage
    for (size_t j = 0; j < count; ++j) {
        const size_t i = j * n / count;
        kept.positions.insert(kept.positions.end(), &all.positions[3 * i],
                              &all.positions[3 * i] + 3);
        kept.colors.insert(kept.colors.end(), &all.colors[3 * i], &all.colors[3 * i] + 3);
    }
    return kept;
}

}  // namespace radiant
