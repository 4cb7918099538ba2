#include "app/train_reporter.h"

#include <fmt/format.h>

#include <csignal>
#include <cstdio>

#include "core/system.h"
#include "nn/amx.h"

namespace radiant {

TrainReporter::TrainReporter(const TrainOptions& o, const TrainRunInfo& info,
                             const TrainingSession& session, Communicator& comm)
    : m_options(o), m_info(info), m_comm(comm), m_progress("train", o.steps, o.seconds) {
    // Only rank 0 draws progress: other ranks' lines would interleave with it.
    m_progress.set_silent(!comm.is_root());
    m_state.step = session.steps();
}

void TrainReporter::start(const TrainingSession& session, const ImageSet& images, int threads) {
    if (!m_comm.is_root()) return;
    const TrainOptions& o = m_options;
    const FieldConfig& fc = session.model().config().field;
    const NerfTrainer& trainer = session.trainer();
    const std::string ranks_note =
        m_comm.distributed()
            ? fmt::format(" on each of {} MPI ranks (Adam {}, gradients {}{})", m_comm.size(),
                          o.mpi_optimizer,
                          trainer.gradients_in_shared_memory() ? "summed in shared memory"
                                                               : "sent as " + o.mpi_wire,
                          trainer.step_shared_across_ranks() ? ", work split" : "")
            : "";
    std::fprintf(stderr,
                 "train: %s: %zu views %dx%d (staged in %.2f s), %d threads%s, MLP %s\n"
                 "  hash grid %d x %d, table 2^%d (%zu params), target %zu samples/step%s\n",
                 m_info.transforms_path.c_str(), m_info.all_views, images.images[0].width,
                 images.images[0].height, m_info.staging_seconds, threads, ranks_note.c_str(),
                 fc.precision == MlpPrecision::kBf16
                     ? fmt::format("bf16 ({})", amx::backend_name()).c_str()
                     : "fp32",
                 fc.grid.n_levels, fc.grid.n_features_per_level, fc.grid.log2_hashmap_size,
                 session.model().params().size(), trainer.config().target_samples,
                 o.resume ? fmt::format(", resuming at step {} ({:.1f} s trained)", session.steps(),
                                        session.seconds())
                                .c_str()
                          : "");
    if (!m_info.space_note.empty()) std::fprintf(stderr, "  %s\n", m_info.space_note.c_str());
}

void TrainReporter::step(const TrainingSession::StepResult& r, const TrainingSession& session) {
    m_state.step = r.step;
    m_state.loss = r.loss;
    m_state.samples_per_second = session.samples_per_second();
    if (r.psnr) {
        m_state.psnr = r.psnr;
        m_progress.message(fmt::format("  step {:>6}  {:7.1f} s  loss {:.3e}  val psnr {:.2f} dB",
                                       r.step, r.seconds, r.loss, *r.psnr));
    }
    m_progress.update(m_state);
}

void TrainReporter::end(const TrainingSession& session, int stopped_by,
                        std::optional<double> val_psnr, int threads) {
    const TrainOptions& o = m_options;
    const NerfTrainer& trainer = session.trainer();
    const FieldConfig& fc = session.model().config().field;
    Report report;
    report.command = "train";
    report.threads = threads;
    report.steps = session.steps();
    report.seconds = session.seconds();
    report.samples_per_second = session.samples_per_second();
    report.rays_per_second = session.rays_per_second();
    report.history = session.history();
    report.psnr = val_psnr;
    if (val_psnr && !report.history.empty()) report.history.back().psnr = val_psnr;
    report.peak_rss_mb = peak_rss_mb();
    report.extra = {
        {"scene", m_info.transforms_path},
        {"snapshot", m_info.snapshot_path},
        {"downscale", o.downscale},
        {"log2_hashmap_size", fc.grid.log2_hashmap_size},
        {"encoding", fmt::format("{}x{}", fc.grid.n_levels, fc.grid.n_features_per_level)},
        {"target_samples", trainer.config().target_samples},
        {"mlp_precision", fc.precision == MlpPrecision::kBf16 ? "bf16" : "fp32"},
        {"interrupted", stopped_by != 0},
        {"ranks", m_comm.size()},
        {"occupied_fraction", session.model().grid().occupied_fraction()},
        {"trained_samples_per_second", session.trained_samples_per_second()}};
    {
        // Where each rank's step time went, and what it sent.
        const NerfTrainer::PhaseSeconds& ph = trainer.phase_seconds();
        const std::vector<double> all =
            m_comm.allgather({ph.grid, ph.chunks, ph.encoding, ph.gradients, ph.exchange,
                              ph.optimizer, double(m_comm.bytes_sent())});
        nlohmann::json phases = nlohmann::json::array();
        for (size_t r = 0; r < all.size(); r += 7)
            phases.push_back({{"grid", all[r]},
                              {"chunks", all[r + 1]},
                              {"encoding", all[r + 2]},
                              {"gradients", all[r + 3]},
                              {"exchange", all[r + 4]},
                              {"optimizer", all[r + 5]},
                              {"bytes_sent", all[r + 6]}});
        report.extra["phase_seconds"] = phases;  // one entry per rank
    }
    if (m_comm.distributed()) {
        report.extra["mpi_optimizer"] = o.mpi_optimizer;
        report.extra["mpi_wire"] = o.mpi_wire;
        report.extra["mpi_exchange"] =
            trainer.gradients_in_shared_memory() ? "shared memory" : "messages";
        report.extra["mpi_split"] = trainer.step_shared_across_ranks() ? "work" : "samples";
    }
    if (!m_comm.is_root()) return;
    if (!o.report.empty()) report.write(o.report);

    std::printf(
        "trained %llu steps in %.1f s (%.0f samples/s marched, %.0f of them/s in front of opacity "
        "and trained, "
        "%.0f rays/s, peak RSS %.0f MiB)\n",
        static_cast<unsigned long long>(session.steps()), session.seconds(),
        report.samples_per_second, session.trained_samples_per_second(), report.rays_per_second,
        report.peak_rss_mb);
    if (val_psnr)
        std::printf("validation PSNR %.2f dB on %zu views of %s (white background)\n", *val_psnr,
                    m_info.val_views, m_info.val_name.c_str());
    std::printf("snapshot: %s\n", m_info.snapshot_path.c_str());
    if (!o.report.empty()) std::printf("report: %s\n", o.report.c_str());
    if (stopped_by) {
        std::fprintf(
            stderr,
            "train: stopped by %s at step %llu; the snapshot is saved; continue with --resume\n",
            stopped_by == SIGINT    ? "Ctrl-C"
            : stopped_by == SIGTERM ? "SIGTERM"
                                    : "--stop-at-step",
            static_cast<unsigned long long>(session.steps()));
    }
}

}  // namespace radiant
