// Staging: decode every image of a Dataset in parallel, optionally box-downscale it, and pack
// all pixels once into one contiguous premultiplied-RGBA8 array that training samples from.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "core/thread_pool.h"
#include "io/transforms.h"

namespace radiant {

struct StagedImage {
    size_t offset = 0;  // index of this image's first pixel in ImageSet::rgba (in pixels)
    int width = 0;
    int height = 0;
    CameraIntrinsics camera;  // resolved, and downscaled with the image
    std::array<float, 16> camera_to_world{};
    bool had_alpha = false;  // the source file had an alpha channel
};

struct ImageSet {
    // Premultiplied RGBA, 8 bits per channel, images back to back, rows top first.
    std::vector<uint8_t> rgba;
    std::vector<StagedImage> images;
    double staging_seconds = 0.0;

    size_t pixel_count() const { return rgba.size() / 4; }
    const uint8_t* pixel(size_t image, int x, int y) const {
        const StagedImage& im = images[image];
        return rgba.data() + 4 * (im.offset + size_t(y) * im.width + x);
    }
};

struct StagingOptions {
    int downscale = 1;            // integer box-filter factor; must divide every image's size
    size_t max_staged_bytes = 0;  // refuse datasets whose staged pixels exceed this; 0 = 40% of RAM
};

// Keeps rank `rank`'s share of the frames for data-parallel training over `ranks` ranks:
// consecutive frames (so the ranks' shares concatenate in frame order), balanced by pixel
// count (sizes from the intrinsics, else the image headers). Throws Error when a rank would
// get no frame.
void keep_rank_share(Dataset& dataset, int rank, int ranks);

// Throws Error naming the offending image (missing, truncated, not an image, size that
// disagrees with the intrinsics or is not divisible by the downscale factor).
ImageSet stage_images(const Dataset& dataset, const StagingOptions& options, ThreadPool& pool);

}  // namespace radiant
