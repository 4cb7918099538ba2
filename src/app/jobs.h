// The NeRF jobs behind `train`, `eval` and `render`, callable from other commands (`demo`
// runs all three). Each validates its inputs and outputs before doing any work.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "train/defaults.h"

namespace radiant {

struct ViewerOptions;
// The viewer's listening options: a non-loopback host always gets a token (random if none given).
ViewerOptions viewer_options(const std::string& host, int port, const std::string& token,
                             int threads);

struct TrainOptions {
    std::string scene;
    int downscale = 1;
    int holdout_every = 0;  // >= 2: leave every K-th view out of training
    uint64_t steps = 0;     // 0: no step limit (then --seconds must be set)
    double seconds = 0;     // 0: no time limit
    std::string val;        // transforms file for periodic held-out PSNR
    uint64_t val_every = 1000;
    int val_views = 4;
    std::vector<double> val_at_seconds;  // also validate when training time passes these
    std::string snapshot;                // default: <scene name>.radiant in the current folder
    uint64_t checkpoint_every = 1000;
    bool resume = false;
    uint64_t stop_at_step = 0;  // stop as if interrupted once this step is done (0: never)
    std::string report;
    int threads = 0;
    uint64_t seed = 1337;
    int log2_table = 19;
    std::string encoding = "16x2";  // hash grid levels x features per level
    size_t target_samples = kDefaultTargetSamples;
    float lr = 1e-2f;
    std::string loss = "l2";
    float near_grad_distance = 1.0f;  // NerfTrainConfig::near_gradient_distance
    std::string precision = "auto";   // bf16 on AMX or AVX512-BF16, fp32 elsewhere (BENCHMARKS.md)
    std::string space = "bounded";    // or unbounded (train/model_setup.h)
    bool view = false;                // serve the viewer while training
    std::string view_host = "127.0.0.1";
    int view_port = 7007;
    std::string view_token;
    // With several MPI ranks: shard Adam over ranks ("sharded") or run it whole on every rank
    // ("replicated"); gradients on the wire as fp32 or bf16.
    std::string mpi_optimizer = "sharded";
    std::string mpi_wire = "fp32";
    // With several MPI ranks all on this machine: sum gradients and share the parameters in
    // shared memory ("auto") or always send them as messages ("messages").
    std::string mpi_exchange = "auto";
    std::string mpi_split = "work";
};

struct TrainResult {
    int exit_code = 0;
    std::string snapshot;
    uint64_t steps = 0;
    double seconds = 0;
    std::optional<double> val_psnr;
};
TrainResult run_train(const TrainOptions& o);

struct EvalOptions {
    std::string snapshot;
    std::string transforms;
    int downscale = 1;
    int holdout_every =
        0;  // >= 2: score only every K-th view (those train --holdout-every K left out)
    std::string background = "white";
    std::string out_dir;  // PNGs of the renders when set
    std::string report;
    int threads = 0;
    int max_views = 0;               // 0: all views
    std::string precision = "auto";  // of the MLPs while rendering (render_precision())
};

struct EvalResult {
    double psnr = 0, ssim = 0;
    size_t views = 0;
};
EvalResult run_eval(const EvalOptions& o);

struct RenderOptions {
    std::string snapshot;
    int orbit = 0;              // frames of an orbit around the scene
    std::string transforms;     // or the views of a transforms file
    std::string path;           // or a camera path (radiant-camera-path JSON)
    int width = 0, height = 0;  // 0: the training views' size
    std::string out_dir = "render";
    std::string background = "white";
    int fps = 30;
    int threads = 0;
    std::string precision = "auto";  // of the MLPs while rendering (render_precision())
};

struct RenderResult {
    size_t frames = 0;
    std::string video;  // empty when ffmpeg is missing
};
RenderResult run_render(const RenderOptions& o);

}  // namespace radiant
