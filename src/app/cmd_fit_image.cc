// `radiant fit-image [IMAGE]`: learn an image with the hash encoding + fused MLP.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <optional>

#include "app/cli_util.h"
#include "app/commands.h"
#include "core/error.h"
#include "core/progress.h"
#include "core/report.h"
#include "core/system.h"
#include "core/thread_pool.h"
#include "core/timer.h"
#include "fit/image_fitter.h"
#include "fit/test_pattern.h"
#include "io/image.h"
#include "nn/amx.h"
#include "nn/simd.h"
#include "train/training_loop.h"

namespace radiant {

namespace {

struct FitImageOptions {
    std::string image;
    int pattern_size = 1024;
    uint64_t steps = 2000;
    double seconds = 0;
    size_t batch = size_t(1) << 16;
    int log2_table = FitImageConfig{}.log2_hashmap_size;
    int threads = 0;
    uint64_t seed = 1337;
    std::string out;
    std::string report;
    uint64_t eval_every = 500;
    std::string loss = "l2";
    std::string precision = "bf16";
    float lr = 1e-2f;
};

// The image fitter on the training loop every run shares.
class ImageFitTask : public LoopTask {
  public:
    explicit ImageFitTask(ImageFitter& fitter) : m_fitter(fitter) {}
    double train_step() override { return m_fitter.step(); }
    uint64_t steps_done() const override { return m_fitter.steps(); }
    void set_learning_rate_scale(float scale) override {
        m_fitter.optimizer().set_learning_rate_scale(scale);
    }
    std::optional<double> validate(int) override { return m_fitter.psnr(); }
    void save_checkpoint() override {}  // fit-image keeps no snapshots

  private:
    ImageFitter& m_fitter;
};

int run_fit_image(const FitImageOptions& o) {
    if (o.steps == 0 && o.seconds <= 0)
        throw Error("fit-image", "--steps 0 needs --seconds (a run needs one limit)");
    check_output_path(o.out, "--out");
    check_output_path(o.report, "--report");
    if (!o.out.empty() && std::filesystem::path(o.out).extension() != ".png")
        throw Error(o.out, "--out must end in .png");

    ImageF image;
    std::string source;
    if (o.image.empty()) {
        image = make_test_pattern(o.pattern_size, o.pattern_size);
        source = fmt::format("built-in {}x{} test pattern", o.pattern_size, o.pattern_size);
    } else {
        image = to_float(load_image(o.image));
        source = o.image;
    }

    ThreadPool pool(o.threads);
    FitImageConfig config;
    config.batch = o.batch;
    config.log2_hashmap_size = o.log2_table;
    config.seed = o.seed;
    config.loss.type = parse_loss(o.loss);
    config.adam.learning_rate = o.lr;
    if (o.steps > 0) {
        // Step-bounded runs anneal: halve the learning rate every tenth of the run once half
        // of it is done, so the last steps settle instead of oscillating.
        config.adam.decay_start = o.steps / 2;
        config.adam.decay_interval = std::max<uint64_t>(1, o.steps / 10);
        config.adam.decay_base = 0.5f;
    }
    config.precision = o.precision == "bf16" ? MlpPrecision::kBf16 : MlpPrecision::kFp32;
    ImageFitter fitter(image, config, pool);

    std::fprintf(
        stderr,
        "fit-image: %s (%dx%d), %d threads, SIMD %s, MLP %s\n"
        "  hash grid: %d levels x %d features, table 2^%d, %zu params; MLP %d x %d, "
        "%zu params; batch %zu\n",
        source.c_str(), image.width, image.height, pool.size(), simd_target_name(),
        fitter.mlp().uses_bf16() ? fmt::format("bf16 ({})", amx::backend_name()).c_str() : "fp32",
        config.n_levels, config.n_features_per_level, config.log2_hashmap_size,
        fitter.grid().n_params(), config.n_neurons, config.n_hidden_layers, fitter.mlp().n_params(),
        config.batch);

    TrainingPlan plan;
    plan.steps = o.steps;
    plan.seconds = o.seconds;
    plan.val_every = o.eval_every;
    plan.checkpoint_every = 0;
    plan.decay_learning_rate = false;  // step-bounded runs anneal in Adam (above)
    ImageFitTask task(fitter);
    TrainingLoop loop(task, plan);
    Report report;
    report.command = "fit-image";
    report.threads = pool.size();
    Progress progress("fit-image", o.steps, o.seconds);
    ProgressState state;
    while (loop.status() == TrainingLoop::Status::kRunning) {
        const TrainingLoop::StepResult r = loop.step();
        if (loop.status() == TrainingLoop::Status::kDiverged)
            throw Error(source,
                        fmt::format("training diverged: loss is {} at step {}", r.loss, r.step));
        state.step = r.step;
        state.loss = r.loss;
        state.samples_per_second = double(r.step) * fitter.batch() / r.seconds;
        if (r.psnr) {
            state.psnr = r.psnr;
            progress.message(fmt::format("  step {:>6}  {:7.2f} s  loss {:.3e}  psnr {:.2f} dB",
                                         r.step, r.seconds, r.loss, *r.psnr));
        }
        if (loop.status() == TrainingLoop::Status::kRunning) progress.update(state);
    }
    // The last step's PSNR, in the history too.
    const double psnr = fitter.psnr();
    state.psnr = psnr;
    report.history = loop.history();
    if (!report.history.empty() && report.history.back().step == fitter.steps())
        report.history.back().psnr = psnr;
    progress.update(state);
    progress.finish(state);

    const double train_seconds = loop.seconds();
    double sps = fitter.steps() * double(fitter.batch()) / std::max(train_seconds, 1e-9);
    report.psnr = psnr;
    report.steps = fitter.steps();
    report.seconds = train_seconds;
    report.samples_per_second = sps;
    report.rays_per_second = sps;
    report.peak_rss_mb = peak_rss_mb();
    report.extra["image"] = source;
    report.extra["width"] = image.width;
    report.extra["height"] = image.height;
    report.extra["batch"] = fitter.batch();
    report.extra["log2_hashmap_size"] = config.log2_hashmap_size;
    report.extra["flops_per_sample"] = fitter.flops_per_sample();
    report.extra["gflops"] = sps * fitter.flops_per_sample() * 1e-9;
    report.extra["simd_target"] = simd_target_name();
    report.extra["mlp_precision"] = fitter.mlp().uses_bf16() ? "bf16" : "fp32";

    std::printf("PSNR %.2f dB after %llu steps, %.1f s training, %.2f M samples/s (%.1f GFLOP/s)\n",
                psnr, static_cast<unsigned long long>(fitter.steps()), train_seconds, sps * 1e-6,
                sps * fitter.flops_per_sample() * 1e-9);
    if (!o.out.empty()) {
        save_png(o.out, fitter.render());
        std::printf("reconstruction: %s\n", o.out.c_str());
    }
    if (!o.report.empty()) {
        report.write(o.report);
        std::printf("report: %s\n", o.report.c_str());
    }
    return 0;
}

}  // namespace

Command add_fit_image_command(CLI::App& app) {
    auto o = std::make_shared<FitImageOptions>();
    CLI::App* cmd = app.add_subcommand(
        "fit-image",
        "Learn a 2D image with the multiresolution hash encoding and a fused MLP "
        "(instant-ngp's image task); prints PSNR over the whole image.");
    cmd->add_option("IMAGE", o->image,
                    "PNG or JPEG to learn; omit to use a built-in procedural test pattern");
    cmd->add_option("--pattern-size", o->pattern_size, "side of the built-in test pattern")
        ->check(CLI::Range(16, 8192))
        ->capture_default_str();
    cmd->add_option("--steps", o->steps, "training steps (0 with --seconds: no step limit)")
        ->check(CLI::Range(uint64_t(0), uint64_t(100000000)))
        ->capture_default_str();
    cmd->add_option("--seconds", o->seconds, "stop after this much training time")
        ->check(CLI::Range(0.0, 1e7));
    cmd->add_option("--batch", o->batch, "pixels per training step")
        ->check(CLI::Range(size_t(64), size_t(1) << 22))
        ->capture_default_str();
    cmd->add_option("--log2-table", o->log2_table, "log2 of the hash table size per level")
        ->check(
            CLI::Range(HashGridConfig::kMinLog2HashmapSize, HashGridConfig::kMaxLog2HashmapSize))
        ->capture_default_str();
    cmd->add_option("--threads", o->threads, "worker threads (0: all cores)")
        ->check(CLI::Range(0, 1024))
        ->capture_default_str();
    cmd->add_option("--seed", o->seed, "random seed")->capture_default_str();
    cmd->add_option("--lr", o->lr, "Adam learning rate")
        ->check(CLI::Range(1e-6f, 1.0f))
        ->capture_default_str();
    cmd->add_option("--loss", o->loss, "loss: l2 or huber")
        ->check(CLI::IsMember({"l2", "huber"}))
        ->capture_default_str();
    cmd->add_option("--precision", o->precision,
                    "MLP matrix products: fp32, or bf16 on Intel AMX or AVX512-BF16 (fp32 "
                    "accumulation and master weights; falls back to fp32 on CPUs with neither)")
        ->check(CLI::IsMember({"fp32", "bf16"}))
        ->capture_default_str();
    cmd->add_option("--eval-every", o->eval_every, "print PSNR every N steps (0: only at the end)")
        ->capture_default_str();
    cmd->add_option("--out", o->out, "write the reconstruction to this PNG");
    cmd->add_option("--report", o->report, "write a JSON report (DESIGN §1) to this path");
    return {cmd, [o] { return run_fit_image(*o); }};
}

}  // namespace radiant
