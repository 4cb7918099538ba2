// `radiant prepare`: photos, a video, or an existing COLMAP model -> a scene folder that
// `radiant train` reads with its defaults:
//
//   SCENE/transforms.json   instant-ngp dialect, written last and atomically
//   SCENE/images/           the images used (hard links to the photos, or copies; video frames)
//   SCENE/colmap/           COLMAP's database, sparse model(s) and full log (opens in COLMAP's GUI)
//   SCENE/unregistered.txt  images COLMAP could not place, one name a line (only when some)
//
// Nothing is written into SCENE when the input is refused; a failed or interrupted run never
// leaves a transforms.json. `resume` reuses the COLMAP database of an interrupted run (COLMAP
// skips the images and pairs it already has).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "prepare/colmap_runner.h"
#include "prepare/video_frames.h"

namespace radiant {

struct PrepareOptions {
    std::string input;
    std::string out;
    bool force = false;   // replace what an earlier prepare wrote into `out`
    bool resume = false;  // continue an interrupted prepare in `out`
    ColmapOptions colmap;
    std::optional<bool> single_camera;   // default: when all images have the same size
    std::optional<std::string> matcher;  // default: exhaustive for photos, sequential for video
    VideoFrameOptions video;
    int threads = 0;
    std::string report;  // JSON report path
};

struct PrepareResult {
    std::string transforms;                 // SCENE/transforms.json
    std::string input_kind;                 // photos | video | colmap
    size_t images = 0;                      // images given to COLMAP (or in the model)
    std::vector<std::string> skipped;       // unreadable photos, with the reason
    std::vector<std::string> unregistered;  // image names COLMAP did not place
    size_t registered = 0;
    double mean_reprojection_error = 0;
    size_t points = 0;
    int models = 0;
    float aabb_scale = 0;
    size_t video_candidates = 0,
           video_duplicates = 0;      // video: frames ffmpeg gave, near-duplicates dropped
    std::vector<ColmapStage> stages;  // seconds per stage, in order
    double seconds = 0;
};

// Throws Error (one line, naming the file) for bad input; Interrupted when `should_stop`.
PrepareResult run_prepare(const PrepareOptions& options, const std::function<bool()>& should_stop);

// Smallest share of images that must register before prepare stops warning.
constexpr double kRegistrationWarning = 0.9;

}  // namespace radiant
