#include "train/trainer.h"

#include <algorithm>
#include <cmath>
#include <exception>

#include "core/error.h"
#include "core/rng.h"
#include "scene/composite.h"
#include "train/unseen_cells.h"

namespace radiant {

NerfTrainer::NerfTrainer(const ImageSet& images, NerfModel& model, const NerfTrainConfig& config,
                         ThreadPool& pool, Communicator* comm)
    : m_images(images),
      m_model(model),
      m_config(config),
      m_pool(pool),
      m_comm(comm),
      m_sampler(images, model.config().scene),
      m_budget(comm ? size_t(comm->size()) : 1, config.initial_rays, config.target_samples,
               kChunks),
      m_gradient_sum(model.field().grid(), mlp_params(), model.field().density_offset()),
      m_totals(m_budget.per_rank().size()) {
    RD_CHECK(!images.images.empty());
    const NerfField& field = m_model.field();
    m_exchange = std::make_unique<GradientExchange>(
        m_comm, field.n_params(),
        ExchangeOptions{config.shard_optimizer, config.shared_memory_gradients,
                        config.gradient_wire});
    // Ranks on one machine update one copy of the parameters (every rank holds the same ones here).
    if (float* shared = m_exchange->share_parameters(m_model.params().data()))
        m_model.place_params(shared, false);
    const size_t d0 = field.density_offset();
    m_adam = std::make_unique<Adam>(
        config.adam,
        std::vector<ParamRange>{{0, d0, false, true}, {d0, field.n_params() - d0, true, false}},
        field.n_params());
    const size_t E = size_t(field.grid().n_output_dims());
    std::unique_ptr<SharedStepBuffers> shared;
    if (config.share_step_across_ranks && gradients_in_shared_memory())
        shared = share_step(*m_comm, m_pool,
                            {kChunks, chunk_sample_budget() + m_model.config().march.max_samples,
                             std::max({config.target_samples, config.initial_rays, kChunks}), E,
                             NerfField::view_dims(), mlp_params(), m_model.grid().n_cells(),
                             m_gradient_sum.items()});
    m_chunks = std::make_unique<StepChunks>(kChunks, shared.get(), E, NerfField::view_dims(),
                                            mlp_params());
    m_scheduler = std::make_unique<StepScheduler>(m_pool, m_comm, kChunks, std::move(shared),
                                                  kGridBlock, kTile);
    const size_t max_tile = std::max(kTile, m_model.config().march.max_samples);
    m_scratch.resize(size_t(pool.size()));
    for (ThreadScratch& s : m_scratch) {
        s.ws = field.make_workspace(max_tile);
        s.sigma.resize(max_tile), s.d_sigma.resize(max_tile);
        s.rgb.resize(3 * max_tile), s.d_rgb.resize(3 * max_tile);
    }
    mark_unseen_cells_dead(m_model.grid(), m_images, m_model.config().scene, m_pool, m_comm);
}

size_t NerfTrainer::chunk_sample_budget() const {
    return std::max<size_t>(4 * m_config.target_samples / kChunks,
                            m_model.config().march.max_samples);
}

NerfTrainer::~NerfTrainer() {
    // The model gets its own memory back before the exchange (destroyed next) frees the shared
    // copy; while an exception unwinds the process is ending and no rank waits for the others.
    if (std::uncaught_exceptions() == 0) m_model.return_params();
}

void NerfTrainer::restore_progress(uint64_t step, size_t next_rays,
                                   const std::vector<size_t>& rank_rays) {
    m_step = step;
    m_budget.restore(next_rays, rank_rays);
}

// Occupancy-grid densities at the grid's chosen cells, the same on every rank: blocks of cells,
// each encoded level by level (the tables stay in cache over the block) and then through the
// density MLP tile by tile, spread by the scheduler over threads (and ranks).
void NerfTrainer::update_grid() {
    const NerfField& field = m_model.field();
    const size_t E = size_t(field.grid().n_output_dims()), B = m_scheduler->block_cells();
    auto densities = [&](const float* pos, size_t n, float* out) {
        m_scheduler->evaluate_cells(n, out, [&](size_t b0, size_t nb, int t, float* dst) {
            ThreadScratch& s = m_scratch[size_t(t)];
            grow_to(s.cell_mapped, 3 * B);
            grow_to(s.cell_enc, E * B);
            field.map_positions(pos + 3 * b0, nb, s.cell_mapped.data());
            field.grid().forward_levels(m_model.params().data(), s.cell_mapped.data(), nb,
                                        s.cell_enc.data(), nb, 0, field.grid().config().n_levels);
            for (size_t i0 = 0; i0 < nb; i0 += kTile)
                field.density_encoded(m_model.packed(), s.cell_enc.data() + i0, nb,
                                      std::min(kTile, nb - i0), s.ws, dst + i0);
        });
    };
    Pcg32 rng = stream_for(m_config.seed, m_step, 0xFFFFFFFFull);
    m_model.grid().update(densities, rng, m_step < uint64_t(m_config.grid_warmup_steps),
                          m_step / uint64_t(m_config.grid_update_interval), &m_pool);
}

// Draws the chunk's rays (every ray draws its random numbers, even when the sample budget is
// spent, so later rays do not shift) and marches them into SoA sample arrays.
void NerfTrainer::march_chunk(size_t c, size_t ray_count) {
    MarchedChunk& ch = m_chunks->marched(c);
    m_sampler.draw(m_config.seed, m_step, c, ray_count, ch.batch);
    const NerfField& field = m_model.field();
    const EncodingFrame frame = field.encoding_frame();
    const MarchConfig& march = m_model.config().march;
    const size_t budget = chunk_sample_budget();
    grow_to(ch.march, march.max_samples);
    ch.ray_begin.clear();
    ch.samples.clear();
    for (const Ray& ray : ch.batch.rays) {
        if (ch.samples.size() >= budget) break;  // budget spent: the rest of the rays are dropped
        ch.ray_begin.push_back(uint32_t(ch.samples.size()));
        const size_t m = march_ray(ray, m_model.grid(), march, ch.march.data());
        ch.samples.append(uint32_t(ch.ray_begin.size() - 1), ch.march.data(), m, frame);
    }
    ch.ray_begin.push_back(uint32_t(ch.samples.size()));
    ch.rays = ch.ray_begin.size() - 1;
    // View directions are encoded once per ray, not per sample.
    grow_to(ch.directions, 3 * ch.rays);
    grow_to(ch.view, NerfField::view_dims() * ch.rays);
    for (size_t r = 0; r < ch.rays; ++r) {
        const Vec3& d = ch.batch.rays[r].direction;
        ch.directions[3 * r] = d.x, ch.directions[3 * r + 1] = d.y, ch.directions[3 * r + 2] = d.z;
    }
    field.encode_directions(ch.directions.data(), ch.rays, ch.view.data());
    m_chunks->publish(c);
}

// Rays [r0, r1) of the chunk, whose samples form one tile: forward, composite, loss and the
// whole backward while the tile is in cache. Returns the summed squared error of the rays'
// colours (what PSNR measures, whatever loss trains).
double NerfTrainer::train_group(const ChunkView& ch, size_t r0, size_t r1, int thread) {
    const NerfField& field = m_model.field();
    const float* params = m_model.params().data();
    ThreadScratch& scratch = m_scratch[size_t(thread)];
    const size_t i0 = ch.ray_begin[r0], nt = ch.ray_begin[r1] - i0;
    float *sigma = scratch.sigma.data(), *rgb = scratch.rgb.data();
    float *d_sigma = scratch.d_sigma.data(), *d_rgb = scratch.d_rgb.data();
    if (nt > 0)
        field.forward_encoded(m_model.packed(), ch.enc + i0, ch.n, ch.view, ch.samples.ray + i0, nt,
                              scratch.ws, sigma, rgb);
    const float grad_scale = 1.0f / float(std::max<size_t>(m_budget.total(), 1) * 3);
    double squared_error = 0.0;
    for (size_t r = r0; r < r1; ++r) {
        const size_t s0 = ch.ray_begin[r] - i0,
                     m = ch.ray_begin[r + 1] - ch.ray_begin[r];  // s0 within the tile
        const float* bg = ch.background + 3 * r;
        const float* dt = ch.samples.dt + i0 + s0;
        const CompositeResult cr = composite_forward(sigma + s0, rgb + 3 * s0, dt, m, bg);
        float d_color[3];
        const float* target = ch.target + 3 * r;
        loss_and_gradient(m_config.loss, cr.rgb, target, 3, grad_scale, d_color,
                          KernelImpl::kScalar);
        // Summed as the scalar L2 loss sums it, so an l2 run reports its loss bit for bit.
        double ray_error = 0.0;
        for (int k = 0; k < 3; ++k) {
            const float e = cr.rgb[k] - target[k];
            ray_error += e * e;
        }
        squared_error += ray_error;
        composite_backward(sigma + s0, rgb + 3 * s0, dt, m, bg, cr, d_color, d_sigma + s0,
                           d_rgb + 3 * s0, nullptr);
    }
    if (nt == 0) return squared_error;
    // Less gradient to the crowded space just in front of the cameras (fewer floaters).
    scale_near_camera_gradients(ch.samples.t + i0, nt, m_config.near_gradient_distance, d_sigma,
                                d_rgb);
    // dL/d(encoding) goes feature-major into the chunk's rows, as the hash backward reads it.
    field.backward(params, m_model.packed(), d_sigma, d_rgb, nt, scratch.ws, ch.grad,
                   TileGradient{ch.d_enc + i0, 1, ch.n});
    return squared_error;
}

// A step's rays are marched through every occupied cell, behind their surface too, and the
// encoding is computed for all of their samples. But a sample behind where its ray's
// transmittance fell below kMinTransmittance gets no gradient (composite_forward stops there),
// and by step 500 of lego-800 that is most of them (56% of the marched samples over the first
// 1500 steps, 66% after step 500). So the density MLP alone runs over all of them first, and
// only the samples in front of where each ray turns opaque go on through both MLPs' forward and
// backward and the hash backward: the chunk is compacted in place (rays keep their order,
// samples theirs; the encoding's rows are re-strided to the new count).
void NerfTrainer::compact_chunk(ChunkView& ch, int thread) {
    const NerfField& field = m_model.field();
    ThreadScratch& scratch = m_scratch[size_t(thread)];
    const size_t n = ch.n;
    grow_to(scratch.chunk_sigma, std::max<size_t>(n, 1));
    float* sigma = scratch.chunk_sigma.data();
    for (size_t i0 = 0; i0 < n; i0 += kTile)
        field.density_encoded(m_model.packed(), ch.enc + i0, n, std::min(kTile, n - i0), scratch.ws,
                              sigma + i0);
    std::vector<uint32_t>& keep = scratch.keep;
    keep.resize(ch.rays);
    for (size_t r = 0; r < ch.rays; ++r) {
        const size_t s0 = ch.ray_begin[r];
        keep[r] =
            uint32_t(samples_in_front(sigma + s0, ch.samples.dt + s0, ch.ray_begin[r + 1] - s0));
    }
    keep_samples(ch, keep.data(), size_t(field.grid().n_output_dims()));
}

void NerfTrainer::train_chunk(ChunkView ch, int thread) {
    if (m_config.drop_occluded_samples) compact_chunk(ch, thread);
    *ch.trained = uint32_t(ch.n);
    const NerfField& field = m_model.field();
    std::fill(ch.grad, ch.grad + (field.n_params() - field.density_offset()), 0.0f);
    double loss = 0.0;
    // Group whole rays into tiles of at most kTile samples (a longer ray is a tile of its own).
    for (size_t r0 = 0; r0 < ch.rays;) {
        size_t r1 = r0 + 1;
        while (r1 < ch.rays && ch.ray_begin[r1 + 1] - ch.ray_begin[r0] <= kTile) ++r1;
        loss += train_group(ch, r0, r1, thread);
        r0 = r1;
    }
    *ch.loss = loss;
}

ChunkGradient NerfTrainer::chunk_gradient(size_t c) {
    const ChunkView ch = m_chunks->view(m_scheduler->chunks_begin() + c);
    return {ch.samples.pos, ch.d_enc, *ch.trained, *ch.trained, ch.grad};
}

int NerfTrainer::gradient_holder(size_t begin, size_t end) {
    const int item = m_gradient_sum.item_holding(begin, end);
    return item < 0 ? -1 : m_scheduler->holder(size_t(item));
}

void NerfTrainer::gather_optimizer_state() { m_exchange->gather_optimizer_state(*m_adam); }

double NerfTrainer::forward_backward(const std::function<void(double&)>& lap) {
    StepScheduler& sched = *m_scheduler;
    if (m_step % uint64_t(m_config.grid_update_interval) == 0) update_grid();
    lap(m_phase.grid);
    // This rank's chunks share its rays (each rank's ray count adapts to its own samples, so
    // the ranks' work stays balanced when their views differ).
    const size_t c0 = sched.marched_begin(), n_mine = sched.marched_end() - c0;
    const size_t my_rays = m_budget.rays(sched.rank());
    m_pool.parallel_for(n_mine, [&](size_t i, int) {
        march_chunk(c0 + i, my_rays * (i + 1) / n_mine - my_rays * i / n_mine);
    });
    lap(m_phase.chunks);
    sched.sync();
    lap(m_phase.exchange);
    // The hash-grid forward of every sample of the step, a level per work item (as the
    // backward below): a level's table stays in cache across the step's samples.
    const NerfField& field = m_model.field();
    sched.run(m_gradient_sum.levels(), [&](size_t i, int) {
        const int level = m_gradient_sum.level(i);
        for (size_t c = sched.chunks_begin(); c < sched.chunks_end(); ++c) {
            const ChunkView ch = m_chunks->view(c);
            if (ch.n)
                field.grid().forward_levels(m_model.params().data(), ch.samples.pos, ch.n, ch.enc,
                                            ch.n, level, level + 1);
        }
    });
    lap(m_phase.encoding);
    sched.sync();
    lap(m_phase.exchange);
    // The chunks: compaction, MLP forward, compositing, loss, backward.
    sched.run(sched.chunks_end() - sched.chunks_begin(),
              [&](size_t i, int t) { train_chunk(m_chunks->view(sched.chunks_begin() + i), t); });
    lap(m_phase.chunks);
    sched.sync();
    lap(m_phase.exchange);
    // The gradients, each item whole where it was summed.
    float* grads = m_exchange->gradients();
    const size_t chunks = sched.chunks_end() - sched.chunks_begin();
    sched.run(m_gradient_sum.items(), [&](size_t i, int) {
        sched.hold(i);
        m_gradient_sum.sum(
            i, chunks, [&](size_t c) { return chunk_gradient(c); }, grads);
    });
    lap(m_phase.gradients);
    sched.sync();  // the holders, for every rank's Adam
    lap(m_phase.exchange);
    // Every rank's counts, in one small exchange. Whoever trained a chunk wrote its loss and
    // trained count.
    StepCounts mine;
    for (size_t c = c0; c < c0 + n_mine; ++c) {
        const ChunkView ch = m_chunks->view(c);
        mine.loss += *ch.loss;
        mine.rays += double(m_chunks->marched(c).rays);
        mine.samples += double(m_chunks->marched(c).n());
        mine.trained += double(*ch.trained);
    }
    m_totals.gather(m_comm, mine);
    lap(m_phase.exchange);
    return m_totals.total().loss;
}

double NerfTrainer::loss_and_gradients(std::vector<float>& gradients) {
    RD_CHECK(m_exchange->kind() == ExchangeKind::kLocal);
    Timer phase;
    const double loss =
        forward_backward([&](double& into) { into += phase.seconds(), phase.reset(); });
    float* grads = m_exchange->gradients();
    const size_t n = m_model.field().n_params();
    gradients.assign(grads, grads + n);
    std::fill(grads, grads + n, 0.0f);  // as Adam leaves them
    return loss / double(std::max<size_t>(rays_last_step(), 1) * 3);
}

double NerfTrainer::step() {
    Timer phase;
    auto lap = [&](double& into) {
        into += phase.seconds();
        phase.reset();
    };
    const double loss = forward_backward(lap);
    // ... and the large exchange: gradients summed over ranks, then Adam.
    m_exchange->update(
        m_model.params().data(), *m_adam, m_pool,
        [&](GradientExchange::Phase p) {
            lap(p == GradientExchange::Phase::kExchange ? m_phase.exchange : m_phase.optimizer);
        },
        [this](size_t begin, size_t end) { return gradient_holder(begin, end); });
    m_model.repack();
    lap(m_phase.optimizer);
    ++m_step;
    // Keep each rank's sample count near its part of the target: grow at most 2x a step, and
    // never past one ray per target sample. Marched samples, not trained ones: holding the
    // trained ones to the target (instant-ngp's way) made ~2.2x the rays a step and half the
    // steps, and scored the same or lower (lego-800, 180 s: 30.92 and 30.90 against 30.96 dB).
    for (size_t r = 0; r < m_budget.per_rank().size(); ++r)
        m_budget.adapt(r, m_totals.rank(r).rays, m_totals.rank(r).samples);
    return loss / double(std::max<size_t>(rays_last_step(), 1) * 3);
}

}  // namespace radiant
