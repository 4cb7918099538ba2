// NeRF training on the CPU, one step at a time: rays from random pixels of the staged images
// (RaySampler) -> marcher -> hash encoding -> field -> compositing -> loss -> backward ->
// gradients -> Adam, with occupancy-grid updates every 16 steps.
//
// Work is split into a fixed number of ray chunks (independent of the thread count). A chunk
// marches its rays; the hash-grid forward then runs level by level over every chunk's samples
// (a level's table stays in cache); each chunk then drops the samples behind where its rays
// turn opaque and walks its rays in groups whose samples fit one tile: forward through the
// MLPs, composite each ray, loss, compositing backward and MLP backward, all while the tile's
// activations are still in cache. MLP gradients are summed over chunks in chunk order, and the
// hash tables' gradients one level per work item over all chunks' samples in chunk order, so
// results depend only on the seed (not on the thread count). Buffers grow during the first
// steps and are reused afterwards: the step does not allocate once warm.
//
// Data parallel over ranks (MPI): the chunks are global and each rank marches its share of
// them on the images it staged; where each phase's work items run (this rank's threads, or
// claimed over every rank's threads when the ranks of one machine share the step) is the
// StepScheduler's business, and summing the gradients over ranks the GradientExchange's. With
// one rank this is exactly the single-process trainer.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "core/aligned.h"
#include "core/error.h"
#include "core/thread_pool.h"
#include "core/timer.h"
#include "io/staging.h"
#include "nerf/model.h"
#include "nn/adam.h"
#include "nn/gradient_sum.h"
#include "nn/loss.h"
#include "parallel/communicator.h"
#include "parallel/gradient_exchange.h"
#include "parallel/step_scheduler.h"
#include "train/defaults.h"
#include "train/ray_budget.h"
#include "train/ray_sampler.h"
#include "train/step_chunks.h"
#include "train/step_totals.h"

namespace radiant {

struct NerfTrainConfig {
    AdamConfig adam;
    LossConfig loss;
    int grid_update_interval = 16;
    // Steps during which every grid update evaluates every cell. instant-ngp's 256 took ~10% of a
    // 60 s lego-200 run here (each full pass is a density evaluation per cell, as many as 16
    // steps' samples); 128 scored the same in the same steps, and so does 64 (fox, 3 seeds x
    // 1000 steps; lego-200, 2 x 750: BENCHMARKS.md, round 10), which saves fox 4 passes of
    // 5 M cells.
    int grid_warmup_steps = 64;
    size_t target_samples = kDefaultTargetSamples;  // per step; the ray count adapts to it
    // Samples closer than this to their camera (unit-cube frame, where `prepare` and the usual
    // scales put cameras 1.3 - 1.7 from the centre) have their gradients scaled by
    // (t / distance)^2 (scale_near_camera_gradients): on fox it took out the fog in front of
    // a close held-out view (5 seeds x 1000 steps: BENCHMARKS.md, round 11). 0: off.
    float near_gradient_distance = 1.0f;
    // Samples behind where their ray turns opaque are dropped after a density-only pass, before
    // the MLPs' forward and backward and the hash backward (NerfTrainer::compact_chunk). They get
    // no gradient either way: false trains the same values up to rounding, slower.
    bool drop_occluded_samples = true;
    size_t initial_rays = 2048;
    uint64_t seed = 1337;
    // With several ranks: each rank's Adam updates only its shard of the parameters, then the
    // shards are gathered (false: every rank runs the whole Adam on allreduced gradients).
    bool shard_optimizer = true;
    WireFormat gradient_wire = WireFormat::kFp32;
    // With a sharded optimiser, fp32 gradients and every rank on this machine: ranks sum their
    // shards straight out of each other's gradient buffers in shared memory (SharedSegments)
    // instead of sending copies, and update one shared copy of the parameters in place instead
    // of gathering them. Same bits either way; false forces the messages.
    bool shared_memory_gradients = true;
    // With gradients in shared memory: the ranks also share the step's chunks once marched
    // (SharedStepBuffers) and claim its work like threads: hash levels over every rank's
    // samples, chunks, MLP gradient blocks, and blocks of the occupancy updates' cells. Changes
    // the order of the gradients' sums (each is summed over all chunks in chunk order in one
    // place), not their meaning.
    bool share_step_across_ranks = true;
};

class NerfTrainer {
  public:
    // Trains `model` in place (its parameters must be initialised or restored).
    // `images` are this rank's share; `comm` (null: one rank) must outlive the trainer.
    NerfTrainer(const ImageSet& images, NerfModel& model, const NerfTrainConfig& config,
                ThreadPool& pool, Communicator* comm = nullptr);
    // Gives the model back its own parameter memory when ranks shared it (collective then).
    ~NerfTrainer();
    NerfTrainer(const NerfTrainer&) = delete;
    NerfTrainer& operator=(const NerfTrainer&) = delete;

    // One step; returns the mean squared error per ray and colour channel (what PSNR
    // measures, whatever loss trains: reports and plots read it so).
    double step();
    // The loss (as step() returns it) and the gradient of the training loss that step() would
    // apply, without applying them: parameters, optimiser and step count stay as they are (an
    // occupancy-grid update due at this step still runs). One rank only; for finite-difference
    // checks of the whole step.
    double loss_and_gradients(std::vector<float>& gradients);
    uint64_t steps() const { return m_step; }
    // Over all ranks.
    size_t rays_last_step() const { return size_t(m_totals.total().rays); }
    size_t samples_last_step() const { return size_t(m_totals.total().samples); }  // marched
    // Of them, those in front of where their ray turned opaque.
    size_t samples_trained_last_step() const { return size_t(m_totals.total().trained); }
    // Makes the optimiser's moments whole on every rank (they are sharded while training);
    // collective: every rank calls it, e.g. before a snapshot.
    void gather_optimizer_state();
    Communicator* communicator() const { return m_comm; }
    // Whether ranks sum gradients in shared memory and share one copy of the parameters
    // (NerfTrainConfig::shared_memory_gradients asked for it and every rank is on this machine).
    bool gradients_in_shared_memory() const {
        return m_exchange->kind() == ExchangeKind::kSharedMemory;
    }
    // Whether ranks share the step once marched (NerfTrainConfig::share_step_across_ranks).
    bool step_shared_across_ranks() const { return m_scheduler->shared() != nullptr; }

    // Seconds this process spent in each phase of its steps (for benchmarks' breakdowns).
    struct PhaseSeconds {
        double grid = 0;  // occupancy-grid updates
        double chunks =
            0;  // march, MLP forward, loss, backward of this rank's chunks (or claimed ones)
        double encoding = 0;   // the hash-grid forward, level by level
        double gradients = 0;  // MLP gradient sums and the hash-table backward
        double exchange = 0;   // collectives (waiting for slower ranks included)
        double optimizer = 0;  // Adam and repacking
    };
    const PhaseSeconds& phase_seconds() const { return m_phase; }

    NerfModel& model() { return m_model; }
    const NerfTrainConfig& config() const { return m_config; }

    // Optimiser and schedule state, for snapshots and --resume.
    Adam& optimizer() { return *m_adam; }
    size_t next_ray_count() const { return m_budget.total(); }
    // `rank_rays`: each rank's part of next_rays as saved; used when it fits this rank count.
    void restore_progress(uint64_t step, size_t next_rays,
                          const std::vector<size_t>& rank_rays = {});
    const std::vector<size_t>& rank_ray_counts() const { return m_budget.per_rank(); }

    static constexpr size_t kChunks = 64;
    static constexpr size_t kTile = 256;
    static constexpr size_t kGridBlock = size_t(1) << 16;  // occupancy cells encoded per pass

  private:
    size_t mlp_params() const {
        return m_model.field().n_params() - m_model.field().density_offset();
    }
    // The rank whose gradient buffer alone holds parameters [begin, end) this step, or -1.
    int gradient_holder(size_t begin, size_t end);
    // The c-th chunk the scheduler gives this rank's gradient sums.
    ChunkGradient chunk_gradient(size_t c);

    // A step up to its gradients (in m_exchange->gradients()) and counts (m_totals); returns the
    // summed squared error over all ranks. `lap(phase)` adds the time since the last lap to that
    // phase.
    double forward_backward(const std::function<void(double&)>& lap);
    // Draws chunk c's rays and marches them (until its sample budget is spent).
    void march_chunk(size_t c, size_t ray_count);
    // Drops, in place, each ray's samples behind where it turns opaque (they get no gradient).
    void compact_chunk(ChunkView& ch, int thread);
    void train_chunk(ChunkView ch, int thread);
    double train_group(const ChunkView& ch, size_t r0, size_t r1, int thread);
    void update_grid();
    // Most samples one chunk can hold (march_chunk stops adding rays past its budget).
    size_t chunk_sample_budget() const;

    const ImageSet& m_images;
    NerfModel& m_model;
    NerfTrainConfig m_config;
    ThreadPool& m_pool;
    Communicator* m_comm;
    RaySampler m_sampler;
    RayBudget m_budget;
    GradientSum m_gradient_sum;  // the step's gradient, in work items
    // Sums gradients over ranks and runs Adam; it may hold the model's parameters (one copy
    // shared by the ranks of a machine).
    std::unique_ptr<GradientExchange> m_exchange;
    std::unique_ptr<Adam> m_adam;
    std::unique_ptr<StepScheduler> m_scheduler;
    std::unique_ptr<StepChunks> m_chunks;
    struct ThreadScratch {
        NerfField::Workspace ws;
        AlignedVector<float> sigma, rgb, d_sigma, d_rgb;  // one tile
        AlignedVector<float> chunk_sigma;  // every marched sample of a chunk (compact_chunk)
        std::vector<uint32_t> keep;        // each ray's samples in front of opacity
        AlignedVector<float> cell_mapped, cell_enc;  // one block of occupancy cells
    };
    std::vector<ThreadScratch> m_scratch;
    uint64_t m_step = 0;
    StepTotals m_totals;  // the last step's counts
    PhaseSeconds m_phase;
};

}  // namespace radiant
