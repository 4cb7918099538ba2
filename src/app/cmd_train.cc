// `radiant train SCENE`: posed photos -> a NeRF snapshot (DESIGN §1).
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <csignal>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "app/cli_util.h"
#include "app/commands.h"
#include "app/jobs.h"
#include "core/error.h"
#include "core/progress.h"
#include "core/report.h"
#include "core/system.h"
#include "core/thread_pool.h"
#include "core/timer.h"
#include "parallel/communicator.h"
#include "io/staging.h"
#include "io/transforms.h"
#include "nerf/metrics.h"
#include "nerf/model_io.h"
#include "nerf/render_view.h"
#include "train/trainer.h"
#include "train/training_session.h"
#include "view/training_viewer.h"
#include "nn/amx.h"

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

// `comm` says which rank this is; with one rank it is the whole job.
TrainResult train_on_ranks(const TrainOptions& o, Communicator& comm) {
    const bool root = comm.is_root();
    if (o.steps == 0 && o.seconds <= 0) throw Error("--steps", "give --steps N or --seconds S (or both)");
    if (o.view && comm.distributed())
        throw Error("--view", fmt::format("the training viewer runs with one rank, not {}; view the snapshot "
                                          "afterwards with radiant view",
                                          comm.size()));
    const std::string transforms_path = resolve_transforms_path(o.scene);
    const std::string snapshot_path = o.snapshot.empty() ? default_snapshot_path(transforms_path) : o.snapshot;
    if (root) {  // rank 0 alone writes outputs
        check_output_path(snapshot_path, "--snapshot");
        check_output_path(o.report, "--report");
        // A run killed mid-write (SIGKILL, power) leaves its temporary file; the snapshot itself is
        // whole, since it is only ever replaced by a rename.
        for (const std::string& p : {snapshot_path, o.report})
            if (!p.empty())
                if (int n = remove_stale_temporaries(p))
                    std::fprintf(stderr, "train: removed %d temporary file%s left by an interrupted write of %s\n", n,
                                 n == 1 ? "" : "s", p.c_str());
    }
    std::error_code ec;
    if (o.resume && !fs::exists(snapshot_path, ec))
        throw Error(snapshot_path, "--resume: there is no snapshot to resume from");
    // A bad snapshot fails before minutes of image decoding.
    std::optional<LoadedModel> resumed;
    if (o.resume) resumed.emplace(load_model_snapshot(snapshot_path));

    // Ranks sharing a machine share its cores.
    const int threads = o.threads > 0 || !comm.distributed()
                            ? o.threads
                            : std::max(1, int(std::thread::hardware_concurrency()) / comm.local_size());
    ThreadPool pool(threads);
    Dataset dataset = load_transforms(transforms_path);
    if (o.holdout_every) select_holdout(dataset, o.holdout_every, false);
    const size_t all_views = dataset.frames.size();
    keep_rank_share(dataset, comm.rank(), comm.size());
    ImageSet images = stage_images(dataset, {o.downscale}, pool);
    Dataset val_dataset;
    ImageSet val_images;
    std::string val_name = o.val;
    if (!o.val.empty()) {
        val_dataset = load_transforms(o.val);
    } else if (o.holdout_every) {  // the held-out views are the natural validation set
        val_dataset = load_transforms(transforms_path);
        select_holdout(val_dataset, o.holdout_every, true);
        val_name = fmt::format("the views held out of {}", transforms_path);
    }
    if (!val_dataset.frames.empty()) val_images = stage_images(val_dataset, {o.downscale}, pool);

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
    std::unique_ptr<NerfModel> model;
    if (resumed) {
        model = std::move(resumed->model);
        const auto& info = resumed->file.header()["info"];
        if (info.contains("seed") && info["seed"].is_number_unsigned()) config.seed = info["seed"].get<uint64_t>();
        if (root && info.contains("scene") && info["scene"] != transforms_path)
            std::fprintf(stderr, "train: warning: %s was trained on %s, resuming on %s\n", snapshot_path.c_str(),
                         info["scene"].dump().c_str(), transforms_path.c_str());
    } else {
        NerfModelConfig mc = NerfModelConfig::for_dataset(dataset, o.log2_table);
        int levels = 16, features = 2;
        std::sscanf(o.encoding.c_str(), "%dx%d", &levels, &features);  // validated by the option
        mc.field.set_encoding(levels, features);
        // Steps no finer than the views resolve (NerfModelConfig::match_pixel_footprint).
        mc.match_pixel_footprint(typical_pixel_footprint(images, mc.scene, &comm));
        // auto: bf16 wherever the CPU has AMX or AVX512-BF16. On Zen 4 (AVX512-BF16) a fox
        // step is ~8% and a lego-200 step ~3% faster, at the same PSNR after the same steps
        // (BENCHMARKS.md, round 9; round 1 had found no gain, when the MLPs were a smaller
        // share of a step).
        // Ranks agree: bf16 only where every rank's CPU runs it, so a cluster of mixed CPUs
        // trains (and snapshots) one precision.
        bool bf16 = o.precision != "fp32" && amx::available();
        if (comm.distributed()) bf16 = !comm.any(!bf16);
        mc.field.precision = bf16 ? MlpPrecision::kBf16 : MlpPrecision::kFp32;
        model = std::make_unique<NerfModel>(mc);
        model->init_params(config.seed);
    }
    TrainingPlan plan;
    plan.steps = o.steps;
    plan.seconds = o.seconds;
    plan.stop_at_step = o.stop_at_step;
    plan.val_every = o.val_every;
    plan.val_views = o.val_views;
    plan.val_at_seconds = o.val_at_seconds;
    plan.checkpoint_every = o.checkpoint_every;
    plan.snapshot_path = snapshot_path;
    const nlohmann::json info = {{"scene", transforms_path}, {"downscale", o.downscale}, {"seed", config.seed},
                                 {"holdout_every", o.holdout_every}};
    TrainingSession session(images, val_images, std::move(model), config, plan, info, pool, &comm);
    if (resumed) session.resume_from(resumed->file);
    resumed.reset();  // frees the file's bytes

    const FieldConfig& fc = session.model().config().field;
    const std::string ranks_note =
        comm.distributed() ? fmt::format(" on each of {} MPI ranks (Adam {}, gradients {}{})", comm.size(), o.mpi_optimizer,
                                         session.trainer().gradients_in_shared_memory() ? "summed in shared memory"
                                                                                        : "sent as " + o.mpi_wire,
                                         session.trainer().step_shared_across_ranks() ? ", work split" : "")
                           : "";
    if (root) {
        std::fprintf(stderr,
                     "train: %s: %zu views %dx%d (staged in %.2f s), %d threads%s, MLP %s\n"
                     "  hash grid %d x %d, table 2^%d (%zu params), target %zu samples/step%s\n",
                     transforms_path.c_str(), all_views, images.images[0].width,
                     images.images[0].height, images.staging_seconds, pool.size(), ranks_note.c_str(),
                     fc.precision == MlpPrecision::kBf16 ? fmt::format("bf16 ({})", amx::backend_name()).c_str() : "fp32", fc.grid.n_levels,
                     fc.grid.n_features_per_level, fc.grid.log2_hashmap_size, session.model().params().size(),
                     config.target_samples,
                     o.resume ? fmt::format(", resuming at step {} ({:.1f} s trained)", session.steps(), session.seconds()).c_str()
                              : "");
    }

    Report report;
    report.command = "train";
    report.threads = pool.size();
    // Only rank 0 draws progress: other ranks' lines would interleave with it.
    Progress progress("train", o.steps, o.seconds);
    progress.set_silent(!root);
    ProgressState state;
    state.step = session.steps();
    TrainResult result;
    result.snapshot = snapshot_path;
    StopSignals signals;
    std::unique_ptr<TrainingViewer> viewer;
    if (o.view) {
        ViewerOptions vo = viewer_options(o.view_host, o.view_port, o.view_token, 1);
        vo.max_render_share = 0.25;  // training keeps >= ~75% of its speed with a page open
        viewer = std::make_unique<TrainingViewer>(session, views_to_json(images), vo);
        progress.message("viewer: " + viewer->url());
    }
    int stopped_by = 0;
    std::optional<TrainingSession::StepResult> last;
    while (session.status() == TrainingSession::Status::kRunning) {
        if (!stopped_by && (stopped_by = StopSignals::requested())) session.request_stop();
        if (session.status() != TrainingSession::Status::kRunning) break;  // with ranks: after the next step
        if (viewer && viewer->between_steps(last ? &*last : nullptr)) {  // paused from the page
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            continue;
        }
        const TrainingSession::StepResult r = session.step();
        last = r;
        if (session.status() == TrainingSession::Status::kDiverged) {
            progress.finish(state);
            if (root) {
                std::fprintf(stderr, "radiant: error: training diverged: non-finite loss at step %llu; %s\n",
                             static_cast<unsigned long long>(r.step),
                             session.saved_any()
                                 ? fmt::format("the last good snapshot ({}) is kept", snapshot_path).c_str()
                                 : "no snapshot was written");
            }
            result.exit_code = 1;
            return result;
        }
        state.step = r.step;
        state.loss = r.loss;
        state.samples_per_second = session.samples_per_second();
        if (r.psnr) {
            state.psnr = r.psnr;
            progress.message(fmt::format("  step {:>6}  {:7.1f} s  loss {:.3e}  val psnr {:.2f} dB", r.step, r.seconds,
                                         r.loss, *r.psnr));
        }
        progress.update(state);
    }
    if (!stopped_by && session.status() == TrainingSession::Status::kStopped)  // another rank's signal, or --stop-at-step
        stopped_by = comm.distributed() && !(o.stop_at_step > 0 && session.steps() >= o.stop_at_step) ? SIGTERM : -1;
    progress.finish(state);
    session.save();
    if (viewer) {
        viewer->finish();
        viewer.reset();
        std::fprintf(stderr, "train: the viewer closed with training; look at the result with: radiant view %s\n",
                     snapshot_path.c_str());
    }

    result.steps = session.steps();
    result.seconds = session.seconds();
    report.steps = session.steps();
    report.seconds = session.seconds();
    report.samples_per_second = session.samples_per_second();
    report.rays_per_second = session.rays_per_second();
    report.history = session.history();
    if (!stopped_by) {
        result.val_psnr = session.validation_psnr(int(val_images.images.size()));
        report.psnr = result.val_psnr;
        if (result.val_psnr && !report.history.empty()) report.history.back().psnr = result.val_psnr;
    }
    report.peak_rss_mb = peak_rss_mb();
    report.extra = {{"scene", transforms_path}, {"snapshot", snapshot_path}, {"downscale", o.downscale},
                    {"log2_hashmap_size", fc.grid.log2_hashmap_size},
                    {"encoding", fmt::format("{}x{}", fc.grid.n_levels, fc.grid.n_features_per_level)},
                    {"target_samples", config.target_samples},
                    {"mlp_precision", fc.precision == MlpPrecision::kBf16 ? "bf16" : "fp32"},
                    {"interrupted", stopped_by != 0}, {"ranks", comm.size()},
                    {"occupied_fraction", session.model().grid().occupied_fraction()},
                    {"trained_samples_per_second", session.trained_samples_per_second()}};
    {
        // Where each rank's step time went, and what it sent.
        const NerfTrainer::PhaseSeconds& ph = session.trainer().phase_seconds();
        const std::vector<double> all = comm.allgather(
            {ph.grid, ph.chunks, ph.encoding, ph.gradients, ph.exchange, ph.optimizer, double(comm.bytes_sent())});
        nlohmann::json phases = nlohmann::json::array();
        for (size_t r = 0; r < all.size(); r += 7)
            phases.push_back({{"grid", all[r]}, {"chunks", all[r + 1]}, {"encoding", all[r + 2]},
                              {"gradients", all[r + 3]}, {"exchange", all[r + 4]}, {"optimizer", all[r + 5]},
                              {"bytes_sent", all[r + 6]}});
        report.extra["phase_seconds"] = phases;  // one entry per rank
    }
    if (comm.distributed()) {
        report.extra["mpi_optimizer"] = o.mpi_optimizer;
        report.extra["mpi_wire"] = o.mpi_wire;
        report.extra["mpi_exchange"] = session.trainer().gradients_in_shared_memory() ? "shared memory" : "messages";
        report.extra["mpi_split"] = session.trainer().step_shared_across_ranks() ? "work" : "samples";
    }
    if (stopped_by) result.exit_code = stopped_by > 0 ? 128 + stopped_by : 0;
    if (!root) return result;
    if (!o.report.empty()) report.write(o.report);

    std::printf("trained %llu steps in %.1f s (%.0f samples/s marched, %.0f of them/s in front of opacity and trained, "
                "%.0f rays/s, peak RSS %.0f MiB)\n",
                static_cast<unsigned long long>(session.steps()), session.seconds(), report.samples_per_second,
                session.trained_samples_per_second(), report.rays_per_second, report.peak_rss_mb);
    if (result.val_psnr)
        std::printf("validation PSNR %.2f dB on %zu views of %s (white background)\n", *result.val_psnr,
                    val_images.images.size(), val_name.c_str());
    std::printf("snapshot: %s\n", snapshot_path.c_str());
    if (!o.report.empty()) std::printf("report: %s\n", o.report.c_str());
    if (stopped_by) {
        std::fprintf(stderr, "train: stopped by %s at step %llu; the snapshot is saved; continue with --resume\n",
                     stopped_by == SIGINT ? "Ctrl-C" : stopped_by == SIGTERM ? "SIGTERM" : "--stop-at-step",
                     static_cast<unsigned long long>(session.steps()));
    }
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
        std::fprintf(stderr, "radiant: error: rank %d of %d: %s\n", comm->rank(), comm->size(), e.what());
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
    cmd->add_option("--holdout-every", o->holdout_every,
                    "leave every K-th view out of training (score them with eval --holdout-every K)")
        ->check(CLI::Range(2, 1000000));
    cmd->add_option("--steps", o->steps, "total training steps (with --resume: the total, not more)")
        ->check(CLI::Range(uint64_t(0), uint64_t(100000000)));
    cmd->add_option("--seconds", o->seconds, "stop after this much training time (evaluation excluded)")
        ->check(CLI::Range(0.0, 1e7));
    cmd->add_option("--val", o->val, "transforms json of held-out views: PSNR while training and at the end");
    cmd->add_option("--val-every", o->val_every, "steps between validation PSNRs (0: only at the end)")
        ->capture_default_str();
    cmd->add_option("--val-at", o->val_at_seconds,
                    "also validate when the training time passes these seconds (e.g. 30,60,120)")
        ->delimiter(',');
    cmd->add_option("--val-views", o->val_views, "views used for the periodic validation PSNR")
        ->check(CLI::Range(1, 100000))
        ->capture_default_str();
    cmd->add_option("--snapshot", o->snapshot, "snapshot path (default: <scene folder name>.radiant)");
    cmd->add_option("--checkpoint-every", o->checkpoint_every, "steps between snapshot saves (0: only at the end)")
        ->capture_default_str();
    cmd->add_flag("--resume", o->resume, "continue training from --snapshot (model, optimiser and step)");
    cmd->add_option("--stop-at-step", o->stop_at_step,
                    "stop as if interrupted after this step (snapshot saved, exit 0); for staged runs and tests");
    cmd->add_option("--report", o->report, "write a JSON report (DESIGN §1) to this path");
    cmd->add_option("--threads", o->threads, "worker threads (0: all cores)")
        ->check(CLI::Range(0, 1024))
        ->capture_default_str();
    cmd->add_option("--seed", o->seed, "random seed")->capture_default_str();
    cmd->add_option("--log2-table", o->log2_table, "log2 of the hash table size per level")
        ->check(CLI::Range(14, 22))
        ->capture_default_str();
    cmd->add_option("--encoding", o->encoding,
                    "hash grid levels x features: 16x2 (instant-ngp's original, the default) or 8x4 (its newer base.json; see BENCHMARKS.md)")
        ->check(CLI::IsMember({"16x2", "8x4"}))
        ->capture_default_str();
    cmd->add_option("--target-samples", o->target_samples, "samples per step (the ray count adapts)")
        ->check(CLI::Range(size_t(1) << 10, size_t(1) << 20))
        ->capture_default_str();
    cmd->add_option("--lr", o->lr, "Adam learning rate (constant for 70% of the run, then halved every 6%)")
        ->check(CLI::Range(1e-6f, 1e38f))
        ->capture_default_str();
    cmd->add_option("--loss", o->loss,
                    "what training minimises: l2 (squared error) or huber (squared below 0.1, linear above: pixels "
                    "that no pose or exposure explains pull less; on fox the same PSNR as l2 over 4 seeds, on lego "
                    "0.1 dB less). The reported loss is the squared error either way")
        ->check(CLI::IsMember({"l2", "huber"}))
        ->capture_default_str();
    cmd->add_option("--near-grad-distance", o->near_grad_distance,
                    "scale the gradients of samples closer than this to their camera by (distance to camera / this)^2, "
                    "in the unit-cube frame where cameras sit ~1.3-1.7 from the centre: keeps photos from explaining "
                    "themselves with fog just in front of their own lens (floaters in held-out views). 0: off")
        ->check(CLI::Range(0.0f, 100.0f))
        ->capture_default_str();
    cmd->add_flag("--view", o->view, "serve the viewer while training: the page follows training, can pause, resume "
                                     "and save (open the printed URL)");
    cmd->add_option("--port", o->view_port, "viewer port with --view (0: any free one)")
        ->check(CLI::Range(0, 65535))
        ->capture_default_str();
    cmd->add_option("--host", o->view_host, "viewer address with --view; anything but loopback requires the token")
        ->capture_default_str();
    cmd->add_option("--token", o->view_token, "viewer access token with --view (default: random when not loopback)");
    cmd->add_option("--precision", o->precision, "MLP matrix products: fp32; bf16 (fp32 accumulation and master weights) on Intel AMX or "
                    "AVX512-BF16, fp32 on CPUs with neither; auto: bf16 wherever the CPU runs it natively (fox steps ~8% faster "
                    "at the same PSNR per step)")
        ->check(CLI::IsMember({"fp32", "bf16", "auto"}))
        ->capture_default_str();
    cmd->add_option("--mpi-optimizer", o->mpi_optimizer,
                    "under mpirun: each rank's Adam updates its shard of the parameters, then the shards are "
                    "gathered (sharded), or every rank runs the whole Adam on allreduced gradients (replicated)")
        ->check(CLI::IsMember({"sharded", "replicated"}))
        ->capture_default_str();
    cmd->add_option("--mpi-wire", o->mpi_wire, "under mpirun: gradients travel as fp32, or as bf16 summed in fp32")
        ->check(CLI::IsMember({"fp32", "bf16"}))
        ->capture_default_str();
    cmd->add_option("--mpi-exchange", o->mpi_exchange,
                    "under mpirun with the sharded optimiser and fp32 gradients: auto sums gradients straight "
                    "out of each other's memory and keeps one shared copy of the parameters when every rank is "
                    "on this machine (MPI shared windows), else sends them; messages always sends them. Both "
                    "give the same bits")
        ->check(CLI::IsMember({"auto", "messages"}))
        ->capture_default_str();
    cmd->add_option("--mpi-split", o->mpi_split,
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
