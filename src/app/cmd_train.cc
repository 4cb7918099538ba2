// `radiant train SCENE`: posed photos -> a NeRF snapshot (DESIGN §1).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "app/cli_util.h"
#include "app/commands.h"
#include "app/jobs.h"
#include "app/train_reporter.h"
#include "core/error.h"
#include "core/progress.h"
#include "core/report.h"
#include "core/system.h"
#include "core/thread_pool.h"
#include "core/timer.h"
#include "io/staging.h"
#include "io/transforms.h"
#include "nerf/metrics.h"
#include "nerf/model_io.h"
#include "nerf/render_view.h"
#include "nn/amx.h"
#include "parallel/communicator.h"
#include "train/model_setup.h"
#include "train/trainer.h"
#include "train/training_session.h"
#include "view/training_viewer.h"

namespace radiant {

namespace fs = std::filesystem;

namespace {

std::string default_snapshot_path(const std::string& transforms_path) {
    std::string name = fs::path(transforms_path).parent_path().filename().string();
    if (name.empty() || name == "." || name == "..") name = "scene";
    return name + ".radiant";
}

}  // namespace

namespace {

// Checks the outputs (rank 0 alone writes them) and returns the snapshot path.
std::string prepare_outputs(const TrainOptions& o, const std::string& transforms_path,
                            const Communicator& comm) {
    const std::string snapshot_path =
        o.snapshot.empty() ? default_snapshot_path(transforms_path) : o.snapshot;
    if (comm.is_root()) {
        check_output_path(snapshot_path, "--snapshot");
        check_output_path(o.report, "--report");
        // A run killed mid-write (SIGKILL, power) leaves its temporary file; the snapshot itself is
        // whole, since it is only ever replaced by a rename.
        for (const std::string& p : {snapshot_path, o.report})
            if (!p.empty())
                if (int n = remove_stale_temporaries(p))
                    std::fprintf(
                        stderr,
                        "train: removed %d temporary file%s left by an interrupted write of %s\n",
                        n, n == 1 ? "" : "s", p.c_str());
    }
    std::error_code ec;
    if (o.resume && !fs::exists(snapshot_path, ec))
        throw Error(snapshot_path, "--resume: there is no snapshot to resume from");
    return snapshot_path;
}

// This rank's training views and the whole validation set, staged.
struct TrainingData {
    Dataset dataset;
    ImageSet images, val_images;
    size_t all_views = 0;
    std::string val_name;
};

TrainingData load_training_data(const TrainOptions& o, const std::string& transforms_path,
                                const Communicator& comm, ThreadPool& pool) {
    TrainingData d;
    d.dataset = load_transforms(transforms_path);
    if (o.holdout_every) select_holdout(d.dataset, o.holdout_every, false);
    d.all_views = d.dataset.frames.size();
    keep_rank_share(d.dataset, comm.rank(), comm.size());
    d.images = stage_images(d.dataset, {o.downscale}, pool);
    Dataset val;
    d.val_name = o.val;
    if (!o.val.empty()) {
        val = load_transforms(o.val);
    } else if (o.holdout_every) {  // the held-out views are the natural validation set
        val = load_transforms(transforms_path);
        select_holdout(val, o.holdout_every, true);
        d.val_name = fmt::format("the views held out of {}", transforms_path);
    }
    if (!val.frames.empty()) d.val_images = stage_images(val, {o.downscale}, pool);
    return d;
}

NerfTrainConfig train_config(const TrainOptions& o) {
    NerfTrainConfig config;
    config.seed = o.seed;
    config.target_samples = o.target_samples;
    config.adam.learning_rate = o.lr;
    config.loss.type = parse_loss(o.loss);
    config.near_gradient_distance = o.near_grad_distance;
    config.shard_optimizer = o.mpi_optimizer == "sharded";
    config.gradient_wire = o.mpi_wire == "bf16" ? WireFormat::kBf16 : WireFormat::kFp32;
    config.shared_memory_gradients = o.mpi_exchange == "auto";
    config.share_step_across_ranks = o.mpi_split == "work";
    return config;
}

TrainingPlan training_plan(const TrainOptions& o, const std::string& snapshot_path) {
    TrainingPlan plan;
    plan.steps = o.steps;
    plan.seconds = o.seconds;
    plan.stop_at_step = o.stop_at_step;
    plan.val_every = o.val_every;
    plan.val_views = o.val_views;
    plan.val_at_seconds = o.val_at_seconds;
    plan.checkpoint_every = o.checkpoint_every;
    plan.snapshot_path = snapshot_path;
    return plan;
}

// The model to train: the resumed snapshot's (whose seed then rules), or a new one.
std::unique_ptr<NerfModel> training_model(const TrainOptions& o,
                                          std::optional<LoadedModel>& resumed,
                                          const TrainingData& data, TrainRunInfo& run,
                                          NerfTrainConfig& config, Communicator& comm) {
    if (!resumed) {
        ModelChoices choices;
        choices.log2_table = o.log2_table;
        std::sscanf(o.encoding.c_str(), "%dx%d", &choices.levels,
                    &choices.features);  // validated by the option
        choices.bf16_if_native = o.precision != "fp32";
        choices.space = o.space == "unbounded" ? SceneSpace::kUnbounded : SceneSpace::kBounded;
        return new_training_model(data.dataset, data.images, choices, config.seed, &comm,
                                  &run.space_note);
    }
    const auto& info = resumed->file.header()["info"];
    if (info.contains("seed") && info["seed"].is_number_unsigned())
        config.seed = info["seed"].get<uint64_t>();
    if (comm.is_root() && info.contains("scene") && info["scene"] != run.transforms_path)
        std::fprintf(stderr, "train: warning: %s was trained on %s, resuming on %s\n",
                     run.snapshot_path.c_str(), info["scene"].dump().c_str(),
                     run.transforms_path.c_str());
    return std::move(resumed->model);
}

// Steps until the session ends; returns 0, the stop signal, or -1 for --stop-at-step.
int run_steps(TrainingSession& session, TrainReporter& reporter, TrainingViewer* viewer,
              const TrainOptions& o, const Communicator& comm) {
    int stopped_by = 0;
    std::optional<TrainingSession::StepResult> last;
    while (session.status() == TrainingSession::Status::kRunning) {
        if (!stopped_by && (stopped_by = StopSignals::requested())) session.request_stop();
        if (session.status() != TrainingSession::Status::kRunning)
            break;  // with ranks: after the next step
        if (viewer && viewer->between_steps(last ? &*last : nullptr)) {  // paused from the page
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            continue;
        }
        last = session.step();
        if (session.status() == TrainingSession::Status::kDiverged) return stopped_by;
        reporter.step(*last, session);
    }
    if (!stopped_by &&
        session.status() ==
            TrainingSession::Status::kStopped)  // another rank's signal, or --stop-at-step
        stopped_by =
            comm.distributed() && !(o.stop_at_step > 0 && session.steps() >= o.stop_at_step)
                ? SIGTERM
                : -1;
    return stopped_by;
}

// `comm` says which rank this is; with one rank it is the whole job.
TrainResult train_on_ranks(const TrainOptions& o, Communicator& comm) {
    if (o.steps == 0 && o.seconds <= 0)
        throw Error("--steps", "give --steps N or --seconds S (or both)");
    if (o.view && comm.distributed())
        throw Error("--view",
                    fmt::format("the training viewer runs with one rank, not {}; view the snapshot "
                                "afterwards with radiant view",
                                comm.size()));
    TrainRunInfo run;
    run.transforms_path = resolve_transforms_path(o.scene);
    run.snapshot_path = prepare_outputs(o, run.transforms_path, comm);
    std::optional<LoadedModel> resumed;  // a bad snapshot fails before minutes of image decoding
    if (o.resume) resumed.emplace(load_model_snapshot(run.snapshot_path));
    // Ranks sharing a machine share its cores.
    ThreadPool pool(
        o.threads > 0 || !comm.distributed()
            ? o.threads
            : std::max(1, int(std::thread::hardware_concurrency()) / comm.local_size()));
    const TrainingData data = load_training_data(o, run.transforms_path, comm, pool);
    run.all_views = data.all_views;
    run.val_name = data.val_name;
    run.val_views = data.val_images.images.size();
    run.staging_seconds = data.images.staging_seconds;
    NerfTrainConfig config = train_config(o);
    std::unique_ptr<NerfModel> model = training_model(o, resumed, data, run, config, comm);
    const nlohmann::json info = {{"scene", run.transforms_path},
                                 {"downscale", o.downscale},
                                 {"seed", config.seed},
                                 {"holdout_every", o.holdout_every}};
    TrainingSession session(data.images, data.val_images, std::move(model), config,
                            training_plan(o, run.snapshot_path), info, pool, &comm);
    if (resumed) session.resume_from(resumed->file);
    resumed.reset();  // frees the file's bytes

    TrainReporter reporter(o, run, session, comm);
    reporter.start(session, data.images, pool.size());
    StopSignals signals;  // Ctrl-C and SIGTERM stop after a step, and not during the final save
    std::unique_ptr<TrainingViewer> viewer;
    if (o.view) {
        ViewerOptions vo = viewer_options(o.view_host, o.view_port, o.view_token, 1);
        vo.max_render_share = 0.25;  // training keeps >= ~75% of its speed with a page open
        viewer = std::make_unique<TrainingViewer>(session, views_to_json(data.images), vo);
        reporter.message("viewer: " + viewer->url());
    }
    const int stopped_by = run_steps(session, reporter, viewer.get(), o, comm);
    reporter.finish();
    TrainResult result;
    result.snapshot = run.snapshot_path;
    if (session.status() == TrainingSession::Status::kDiverged) {
        if (comm.is_root())
            std::fprintf(
                stderr, "radiant: error: training diverged: non-finite loss at step %llu; %s\n",
                static_cast<unsigned long long>(session.steps()),
                session.saved_any()
                    ? fmt::format("the last good snapshot ({}) is kept", run.snapshot_path).c_str()
                    : "no snapshot was written");
        result.exit_code = 1;
        return result;
    }
    session.save();
    if (viewer) {
        viewer->finish();
        viewer.reset();
        std::fprintf(
            stderr,
            "train: the viewer closed with training; look at the result with: radiant view %s\n",
            run.snapshot_path.c_str());
    }
    result.steps = session.steps();
    result.seconds = session.seconds();
    if (!stopped_by) result.val_psnr = session.validation_psnr(int(data.val_images.images.size()));
    reporter.end(session, stopped_by, result.val_psnr, pool.size());
    if (stopped_by) result.exit_code = stopped_by > 0 ? 128 + stopped_by : 0;
    return result;
}

}  // namespace

TrainResult run_train(const TrainOptions& o) {
    Communicator* comm = &Communicator::world();
    if (!comm->distributed()) return train_on_ranks(o, *comm);
    try {
        return train_on_ranks(o, *comm);
    } catch (const std::exception& e) {
        // The other ranks wait in a collective for this one: end them all now, with the reason.
        std::fprintf(stderr, "radiant: error: rank %d of %d: %s\n", comm->rank(), comm->size(),
                     e.what());
        std::fflush(stderr);
        comm->abort(2);
    }
}

Command add_train_command(CLI::App& app) {
    auto o = std::make_shared<TrainOptions>();
    CLI::App* cmd = app.add_subcommand(
        "train",
        "Train a NeRF on posed photos (a folder with transforms.json or transforms_train.json, or "
        "such a file) and save a snapshot. Ctrl-C or SIGTERM saves the snapshot and stops (exit "
        "130 / 143); --resume continues from it.");
    cmd->add_option("SCENE", o->scene, "scene folder or transforms json")->required();
    cmd->add_option("--downscale", o->downscale, "integer box downscale of the images on load")
        ->check(CLI::Range(1, 64))
        ->capture_default_str();
    cmd->add_option(
           "--holdout-every", o->holdout_every,
           "leave every K-th view out of training (score them with eval --holdout-every K)")
        ->check(CLI::Range(2, 1000000));
    cmd->add_option("--steps", o->steps,
                    "total training steps (with --resume: the total, not more)")
        ->check(CLI::Range(uint64_t(0), uint64_t(100000000)));
    cmd->add_option("--seconds", o->seconds,
                    "stop after this much training time (evaluation excluded)")
        ->check(CLI::Range(0.0, 1e7));
    cmd->add_option("--val", o->val,
                    "transforms json of held-out views: PSNR while training and at the end");
    cmd->add_option("--val-every", o->val_every,
                    "steps between validation PSNRs (0: only at the end)")
        ->capture_default_str();
    cmd->add_option("--val-at", o->val_at_seconds,
                    "also validate when the training time passes these seconds (e.g. 30,60,120)")
        ->delimiter(',');
    cmd->add_option("--val-views", o->val_views, "views used for the periodic validation PSNR")
        ->check(CLI::Range(1, 100000))
        ->capture_default_str();
    cmd->add_option("--snapshot", o->snapshot,
                    "snapshot path (default: <scene folder name>.radiant)");
    cmd->add_option("--checkpoint-every", o->checkpoint_every,
                    "steps between snapshot saves (0: only at the end)")
        ->capture_default_str();
    cmd->add_flag("--resume", o->resume,
                  "continue training from --snapshot (model, optimiser and step)");
    cmd->add_option("--stop-at-step", o->stop_at_step,
                    "stop as if interrupted after this step (snapshot saved, exit 0); for staged "
                    "runs and tests");
    cmd->add_option("--report", o->report, "write a JSON report (DESIGN §1) to this path");
    cmd->add_option("--threads", o->threads, "worker threads (0: all cores)")
        ->check(CLI::Range(0, 1024))
        ->capture_default_str();
    cmd->add_option("--seed", o->seed, "random seed")->capture_default_str();
    cmd->add_option("--log2-table", o->log2_table,
                    "log2 of the hash table size per level (memory: 16 levels x 2 features x 16 "
                    "bytes with the "
                    "optimiser, 256 MiB at 19)")
        ->check(
            CLI::Range(HashGridConfig::kMinLog2HashmapSize, HashGridConfig::kMaxLog2HashmapSize))
        ->capture_default_str();
    cmd->add_option("--encoding", o->encoding,
                    "hash grid levels x features: 16x2 (instant-ngp's original, the default) or "
                    "8x4 (its newer base.json; see BENCHMARKS.md)")
        ->check(CLI::IsMember({"16x2", "8x4"}))
        ->capture_default_str();
    cmd->add_option("--target-samples", o->target_samples,
                    "samples per step (the ray count adapts)")
        ->check(CLI::Range(kMinTargetSamples, kMaxTargetSamples))
        ->capture_default_str();
    cmd->add_option("--lr", o->lr,
                    "Adam learning rate (constant for 70% of the run, then halved every 6%)")
        ->check(CLI::Range(1e-6f, 1e38f))
        ->capture_default_str();
    cmd->add_option("--loss", o->loss,
                    "what training minimises: l2 (squared error) or huber (squared below 0.1, "
                    "linear above: pixels "
                    "that no pose or exposure explains pull less; on fox the same PSNR as l2 over "
                    "4 seeds, on lego "
                    "0.1 dB less). The reported loss is the squared error either way")
        ->check(CLI::IsMember({"l2", "huber"}))
        ->capture_default_str();
    cmd->add_option("--near-grad-distance", o->near_grad_distance,
                    "scale the gradients of samples closer than this to their camera by (distance "
                    "to camera / this)^2, "
                    "in the unit-cube frame where cameras sit ~1.3-1.7 from the centre: keeps "
                    "photos from explaining "
                    "themselves with fog just in front of their own lens (floaters in held-out "
                    "views). 0: off")
        ->check(CLI::Range(0.0f, 100.0f))
        ->capture_default_str();
    cmd->add_flag("--view", o->view,
                  "serve the viewer while training: the page follows training, can pause, resume "
                  "and save (open the printed URL)");
    cmd->add_option("--port", o->view_port, "viewer port with --view (0: any free one)")
        ->check(CLI::Range(0, 65535))
        ->capture_default_str();
    cmd->add_option("--host", o->view_host,
                    "viewer address with --view; anything but loopback requires the token")
        ->capture_default_str();
    cmd->add_option("--token", o->view_token,
                    "viewer access token with --view (default: random when not loopback)");
    cmd->add_option(
           "--precision", o->precision,
           "MLP matrix products: fp32; bf16 (fp32 accumulation and master weights) on Intel AMX or "
           "AVX512-BF16, fp32 on CPUs with neither; auto: bf16 wherever the CPU runs it natively "
           "(fox steps ~8% faster "
           "at the same PSNR per step)")
        ->check(CLI::IsMember({"fp32", "bf16", "auto"}))
        ->capture_default_str();
    cmd->add_option("--space", o->space,
                    "bounded: the dataset's scene box (aabb_scale); unbounded: all of space, "
                    "contracted beyond the cameras, with the background as a far sample, for "
                    "captures whose background reaches beyond the box (a box too small for it "
                    "fogs up held-out views). Ignored with --resume (the snapshot's)")
        ->check(CLI::IsMember({"bounded", "unbounded"}))
        ->capture_default_str();
    cmd->add_option("--mpi-optimizer", o->mpi_optimizer,
                    "under mpirun: each rank's Adam updates its shard of the parameters, then the "
                    "shards are "
                    "gathered (sharded), or every rank runs the whole Adam on allreduced gradients "
                    "(replicated)")
        ->check(CLI::IsMember({"sharded", "replicated"}))
        ->capture_default_str();
    cmd->add_option("--mpi-wire", o->mpi_wire,
                    "under mpirun: gradients travel as fp32, or as bf16 summed in fp32")
        ->check(CLI::IsMember({"fp32", "bf16"}))
        ->capture_default_str();
    cmd->add_option("--mpi-exchange", o->mpi_exchange,
                    "under mpirun with the sharded optimiser and fp32 gradients: auto sums "
                    "gradients straight "
                    "out of each other's memory and keeps one shared copy of the parameters when "
                    "every rank is "
                    "on this machine (MPI shared windows), else sends them; messages always sends "
                    "them. Both "
                    "give the same bits")
        ->check(CLI::IsMember({"auto", "messages"}))
        ->capture_default_str();
    cmd->add_option(
           "--mpi-split", o->mpi_split,
           "under mpirun with gradients in shared memory: work has the ranks share each step's "
           "marched chunks and claim its work like threads (hash levels over every rank's samples, "
           "chunks, gradient blocks), so no table is walked twice and a slower core takes less; "
           "samples has each rank train its own chunks through every level")
        ->check(CLI::IsMember({"work", "samples"}))
        ->capture_default_str();
    return {cmd, [o] {
                if (o->steps == 0 && o->seconds <= 0) o->steps = 3000;
                return run_train(*o).exit_code;
            }};
}

}  // namespace radiant
