#include "io/staging.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>

#include "core/error.h"
#include "core/system.h"
#include "core/timer.h"
#include "io/image.h"

namespace radiant {

namespace {

struct DecodedImage {
    std::vector<uint8_t> rgba;  // premultiplied, already downscaled
    int width = 0, height = 0;
    bool had_alpha = false;
};

// Converts any channel layout to premultiplied RGBA (float) and box-filters by k.
DecodedImage premultiply_and_downscale(const RawImage& raw, int k) {
    DecodedImage out;
    out.width = raw.width / k;
    out.height = raw.height / k;
    out.had_alpha = raw.channels == 2 || raw.channels == 4;
    out.rgba.resize(size_t(out.width) * out.height * 4);
    const int c = raw.channels;
    const float inv_area = 1.0f / float(k * k);
    for (int oy = 0; oy < out.height; ++oy) {
        for (int ox = 0; ox < out.width; ++ox) {
            float acc[4] = {0, 0, 0, 0};
            for (int dy = 0; dy < k; ++dy) {
                size_t row = size_t(oy * k + dy) * raw.width;
                for (int dx = 0; dx < k; ++dx) {
                    size_t i = (row + size_t(ox * k + dx)) * c;
                    float r, g, b, a = 1.0f;
                    if (c <= 2) {
                        r = g = b = raw.sample(i);
                        if (c == 2) a = raw.sample(i + 1);
                    } else {
                        r = raw.sample(i);
                        g = raw.sample(i + 1);
                        b = raw.sample(i + 2);
                        if (c == 4) a = raw.sample(i + 3);
                    }
                    acc[0] += r * a;
                    acc[1] += g * a;
                    acc[2] += b * a;
                    acc[3] += a;
                }
            }
            uint8_t* dst = &out.rgba[(size_t(oy) * out.width + ox) * 4];
            for (int j = 0; j < 4; ++j)
                dst[j] = static_cast<uint8_t>(std::lround(acc[j] * inv_area * 255.0f));
        }
    }
    return out;
}

}  // namespace

void keep_rank_share(Dataset& dataset, int rank, int ranks) {
    if (ranks <= 1) return;
    if (dataset.frames.size() < size_t(ranks))
        throw Error(dataset.json_path,
                    fmt::format("{} training views cannot be shared among {} ranks; use at most {} "
                                "ranks",
                                dataset.frames.size(), ranks, dataset.frames.size()));
    std::vector<double> pixels;
    double total = 0;
    for (const Frame& f : dataset.frames) {
        double p = double(f.camera.width) * double(f.camera.height);
        if (p <= 0) {
            const ImageSize size = read_image_size(f.image_path);
            p = double(size.width) * double(size.height);
        }
        pixels.push_back(p);
        total += p;
    }
    // A frame belongs to the rank whose slice of the pixel total holds the frame's middle.
    std::vector<Frame> kept;
    double before = 0;
    for (size_t i = 0; i < dataset.frames.size(); ++i) {
        const int owner = std::min(ranks - 1, int((before + pixels[i] / 2) * ranks / total));
        if (owner == rank) kept.push_back(dataset.frames[i]);
        before += pixels[i];
    }
    if (kept.empty())
        throw Error(dataset.json_path,
                    fmt::format("{} training views cannot be shared among {} ranks (rank {} gets "
                                "none); use fewer ranks",
                                dataset.frames.size(), ranks, rank));
    dataset.frames = std::move(kept);
}

ImageSet stage_images(const Dataset& dataset, const StagingOptions& options, ThreadPool& pool) {
    Timer timer;
    const int k = options.downscale;
    if (k < 1) throw Error("--downscale", fmt::format("must be a positive integer, got {}", k));
    const size_t n = dataset.frames.size();
    if (n == 0) throw Error(dataset.json_path, "no frames to stage");

    // Staged pixels are held twice while they are packed; refuse, with the numbers, a dataset
    // that would not fit instead of letting the machine swap or the allocator abort.
    const size_t budget =
        options.max_staged_bytes ? options.max_staged_bytes : physical_memory_bytes() * 2 / 5;
    std::atomic<size_t> staged_bytes{0};
    std::vector<DecodedImage> decoded(n);
    std::vector<std::exception_ptr> errors(n);
    pool.parallel_for(n, [&](size_t i, int) {
        try {
            if (budget && staged_bytes.load() > budget) return;  // already refused
            const Frame& f = dataset.frames[i];
            RawImage raw = load_image(f.image_path);
            if ((f.camera.width && f.camera.width != raw.width) ||
                (f.camera.height && f.camera.height != raw.height))
                throw Error(f.image_path,
                            fmt::format("image is {}x{} but {} says {}x{}", raw.width, raw.height,
                                        dataset.json_path, f.camera.width, f.camera.height));
            if (raw.width % k != 0 || raw.height % k != 0)
                throw Error(f.image_path, fmt::format("--downscale {} does not divide the image "
                                                      "size {}x{}",
                                                      k, raw.width, raw.height));
            const size_t bytes = size_t(raw.width / k) * size_t(raw.height / k) * 4;
            if (budget && staged_bytes.fetch_add(bytes) + bytes > budget)
                throw Error(
                    dataset.json_path,
                    fmt::format(
                        "the {} images need more than {:.1f} GiB of memory staged at --downscale "
                        "{} "
                        "(the limit is 40% of this machine's memory); use a larger --downscale",
                        n, double(budget) / (1u << 30), k));
            decoded[i] = premultiply_and_downscale(raw, k);
        } catch (...) {
            errors[i] = std::current_exception();
        }
    });
    for (auto& e : errors)  // report the first failing frame, whatever thread saw it
        if (e) std::rethrow_exception(e);

    ImageSet set;
    set.images.resize(n);
    size_t total = 0;
    for (size_t i = 0; i < n; ++i) {
        const Frame& f = dataset.frames[i];
        StagedImage& s = set.images[i];
        s.offset = total;
        s.width = decoded[i].width;
        s.height = decoded[i].height;
        s.had_alpha = decoded[i].had_alpha;
        s.camera_to_world = f.camera_to_world;
        CameraIntrinsics full = f.camera;
        full.width = decoded[i].width * k;
        full.height = decoded[i].height * k;
        full.resolve();
        s.camera = k == 1 ? full : full.downscaled(k);
        total += size_t(s.width) * s.height;
    }
    set.rgba.resize(total * 4);
    pool.parallel_for(n, [&](size_t i, int) {
        std::copy(decoded[i].rgba.begin(), decoded[i].rgba.end(),
                  set.rgba.begin() + 4 * set.images[i].offset);
        decoded[i] = DecodedImage();  // release as we go
    });
    set.staging_seconds = timer.seconds();
    return set;
}

}  // namespace radiant
