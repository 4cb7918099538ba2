#include "mesh/rasterize.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace radiant {

namespace {

// Projects every vertex, then calls hit(x, y, triangle, w0/z0, w1/z1, w2/z2, z) for every pixel
// centre a triangle covers nearer than what was there before (a z-buffer in `zbuf`).
template <class Hit>
void rasterize(const Mesh& mesh, const CameraIntrinsics& cam, const std::array<float, 16>& m,
               std::vector<float>& zbuf, Hit&& hit) {
    const int W = cam.width, H = cam.height;
    zbuf.assign(size_t(W) * size_t(H), std::numeric_limits<float>::infinity());
    // World -> camera: R^T (p - C); OpenGL camera looks down -z, image y grows downward.
    const size_t nv = mesh.vertex_count();
    std::vector<float> sx(nv), sy(nv), depth(nv);
    for (size_t i = 0; i < nv; ++i) {
        const float px = mesh.positions[3 * i] - m[3], py = mesh.positions[3 * i + 1] - m[7],
                    pz = mesh.positions[3 * i + 2] - m[11];
        const float cx = m[0] * px + m[4] * py + m[8] * pz, cy = m[1] * px + m[5] * py + m[9] * pz,
                    cz = m[2] * px + m[6] * py + m[10] * pz;
        depth[i] = -cz;
        sx[i] = cam.cx + cam.fl_x * cx / depth[i];
        sy[i] = cam.cy - cam.fl_y * cy / depth[i];
    }
    for (size_t t = 0; t < mesh.triangle_count(); ++t) {
        const uint32_t a = mesh.indices[3 * t], b = mesh.indices[3 * t + 1],
                       c = mesh.indices[3 * t + 2];
        if (depth[a] < 0.01f || depth[b] < 0.01f || depth[c] < 0.01f) continue;
        const float area = (sx[b] - sx[a]) * (sy[c] - sy[a]) - (sx[c] - sx[a]) * (sy[b] - sy[a]);
        if (std::abs(area) < 1e-12f) continue;
        const int x0 = std::max(0, int(std::floor(std::min({sx[a], sx[b], sx[c]}) - 0.5f)));
        const int x1 = std::min(W - 1, int(std::ceil(std::max({sx[a], sx[b], sx[c]}) - 0.5f)));
        const int y0 = std::max(0, int(std::floor(std::min({sy[a], sy[b], sy[c]}) - 0.5f)));
        const int y1 = std::min(H - 1, int(std::ceil(std::max({sy[a], sy[b], sy[c]}) - 0.5f)));
        for (int y = y0; y <= y1; ++y)
            for (int x = x0; x <= x1; ++x) {
                const float px = x + 0.5f, py = y + 0.5f;  // pixel centre
                const float w0 = ((sx[b] - px) * (sy[c] - py) - (sx[c] - px) * (sy[b] - py)) / area;
                const float w1 = ((sx[c] - px) * (sy[a] - py) - (sx[a] - px) * (sy[c] - py)) / area;
                const float w2 = 1.0f - w0 - w1;
                if (w0 < 0 || w1 < 0 || w2 < 0) continue;
                // Perspective-correct weights: interpolate 1/z.
                const float i0 = w0 / depth[a], i1 = w1 / depth[b], i2 = w2 / depth[c];
                const float z = 1.0f / (i0 + i1 + i2);
                float& zb = zbuf[size_t(y) * size_t(W) + size_t(x)];
                if (z >= zb) continue;
                zb = z;
                hit(x, y, t, i0, i1, i2, z);
            }
    }
}

}  // namespace

MeshRender rasterize_mesh(const Mesh& mesh, const CameraIntrinsics& cam,
                          const std::array<float, 16>& m, const float background[3]) {
    MeshRender out{ImageF(cam.width, cam.height, 3), ImageF(cam.width, cam.height, 1)};
    for (int y = 0; y < cam.height; ++y)
        for (int x = 0; x < cam.width; ++x)
            for (int k = 0; k < 3; ++k) out.rgb.at(x, y, k) = background[k];
    std::vector<float> zbuf;
    rasterize(
        mesh, cam, m, zbuf, [&](int x, int y, size_t t, float i0, float i1, float i2, float z) {
            out.coverage.at(x, y, 0) = 1.0f;
            const uint32_t a = mesh.indices[3 * t], b = mesh.indices[3 * t + 1],
                           c = mesh.indices[3 * t + 2];
            for (int k = 0; k < 3; ++k)
                out.rgb.at(x, y, k) = mesh.colors.empty() ? 0.8f
                                                          : (i0 * mesh.colors[3 * a + size_t(k)] +
                                                             i1 * mesh.colors[3 * b + size_t(k)] +
                                                             i2 * mesh.colors[3 * c + size_t(k)]) *
                                                                z / 255.0f;
        });
    return out;
}

std::vector<uint8_t> visible_triangles(const Mesh& mesh, const std::vector<RasterCamera>& cameras,
                                       ThreadPool& pool) {
    std::vector<std::vector<uint8_t>> seen(size_t(pool.size()),
                                           std::vector<uint8_t>(mesh.triangle_count(), 0));
    pool.parallel_for(cameras.size(), [&](size_t v, int t) {
        const CameraIntrinsics& cam = cameras[v].camera;
        std::vector<uint32_t> id(size_t(cam.width) * size_t(cam.height), UINT32_MAX);
        std::vector<float> zbuf;
        rasterize(mesh, cam, cameras[v].camera_to_world, zbuf,
                  [&](int x, int y, size_t tri, float, float, float, float) {
                      id[size_t(y) * size_t(cam.width) + size_t(x)] = uint32_t(tri);
                  });
        for (uint32_t i : id)
            if (i != UINT32_MAX) seen[size_t(t)][i] = 1;
    });
    std::vector<uint8_t> out(mesh.triangle_count(), 0);
    for (const auto& s : seen)
        for (size_t i = 0; i < out.size(); ++i) out[i] |= s[i];
    return out;
}

}  // namespace radiant
