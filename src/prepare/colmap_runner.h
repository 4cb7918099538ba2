// Poses from Debian's `colmap` (3.8), run as a subprocess on the CPU: SIFT features, matching
// (exhaustive for photo sets, sequential for video), the incremental mapper. COLMAP's output
// goes to a log file and drives one progress bar per stage.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace radiant {

struct ColmapOptions {
    std::string camera_model = "OPENCV";  // COLMAP model name (colmap2nerf's choice)
    bool single_camera = true;            // one shared camera for all images
    std::string matcher = "exhaustive";   // exhaustive | sequential
    int max_image_size = 1024;            // longest side SIFT sees
    int max_features = 8192;              // per image
    int sequential_overlap = 10;          // neighbours each frame is matched with (sequential)
    int threads = 0;                      // 0: all cores
};

struct ColmapStage {
    std::string name;  // features, matching, mapping
    double seconds = 0;
};

struct ColmapRun {
    std::string model_folder;  // the largest model the mapper wrote (work/sparse/N)
    int models = 0;            // how many separate models the mapper made
    std::vector<ColmapStage> stages;
    std::string log_path;
};

// Runs the three stages over the `image_count` images in `image_folder`, with COLMAP's
// database, models and log under `work_folder` (created). `should_stop` is polled while COLMAP
// runs (Ctrl-C). Throws Error when colmap is missing, a stage fails (with the log's last line
// and its path), is stopped, or registers nothing.
ColmapRun run_colmap(const std::string& image_folder, const std::string& work_folder,
                     size_t image_count, const ColmapOptions& options,
                     const std::function<bool()>& should_stop);

// The COLMAP version line (`colmap -h` prints it first), or "" when colmap is not installed.
std::string colmap_version();

}  // namespace radiant
