// mesh-score MESH TRANSFORMS [--downscale K] [--out-dir DIR]: how well an exported mesh
// matches the photos of a transforms file: silhouette IoU (mesh coverage against alpha > 0.5)
// and the PSNR of the vertex-coloured mesh rendered on white against the photos on white.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include "core/error.h"
#include "core/thread_pool.h"
#include "io/image.h"
#include "io/mesh_io.h"
#include "io/staging.h"
#include "io/transforms.h"
#include "mesh/rasterize.h"
#include "nerf/metrics.h"

using namespace radiant;

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: mesh-score MESH TRANSFORMS [--downscale K] [--out-dir DIR]\n");
        return 2;
    }
    int downscale = 1;
    std::string out_dir;
    for (int i = 3; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--downscale"))
            downscale = std::atoi(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--out-dir"))
            out_dir = argv[i + 1];
    }
    try {
        const Mesh mesh = load_mesh(argv[1]);
        ThreadPool pool;
        const Dataset ds = load_transforms(argv[2]);
        const ImageSet set = stage_images(ds, {downscale}, pool);
        if (!out_dir.empty()) std::filesystem::create_directories(out_dir);
        const float white[3] = {1, 1, 1};
        std::vector<double> iou(set.images.size()), psnr(set.images.size());
        pool.parallel_for(set.images.size(), [&](size_t v, int) {
            const StagedImage& im = set.images[v];
            const MeshRender r = rasterize_mesh(mesh, im.camera, im.camera_to_world, white);
            size_t inter = 0, uni = 0;
            for (int y = 0; y < im.height; ++y)
                for (int x = 0; x < im.width; ++x) {
                    const bool a = set.pixel(v, x, y)[3] > 127, b = r.coverage.at(x, y, 0) > 0.5f;
                    inter += a && b;
                    uni += a || b;
                }
            iou[v] = uni ? double(inter) / double(uni) : 1.0;
            psnr[v] = psnr_against_view(r.rgb, set, v, white);
            if (!out_dir.empty())
                save_png(out_dir + "/" +
                             std::filesystem::path(ds.frames[v].image_path).stem().string() +
                             ".png",
                         r.rgb);
        });
        double mi = 0, mp = 0;
        for (size_t v = 0; v < set.images.size(); ++v) {
            std::printf("%-40s IoU %.4f  PSNR %.2f dB\n",
                        std::filesystem::path(ds.frames[v].image_path).filename().c_str(), iou[v],
                        psnr[v]);
            mi += iou[v];
            mp += psnr[v];
        }
        std::printf(
            "mean over %zu views: silhouette IoU %.4f, PSNR %.2f dB (white background); mesh %zu "
            "vertices, %zu triangles\n",
            set.images.size(), mi / double(set.images.size()), mp / double(set.images.size()),
            mesh.vertex_count(), mesh.triangle_count());
    } catch (const Error& e) {
        std::fprintf(stderr, "mesh-score: %s\n", e.what());
        return 2;
    }
    return 0;
}
