// The training step as a whole: the same bits whatever the thread count, and a gradient that is
// the derivative of the step's loss (through marching, compositing, the MLPs and the hash grid).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "core/thread_pool.h"
#include "small_demo_scene.h"
#include "train/trainer.h"

namespace radiant {
namespace {

NerfModelConfig small_config(const Dataset& d) {
    NerfModelConfig c = test::small_model_config(d);
    c.field.precision =
        MlpPrecision::kFp32;  // bf16 products would round the finite differences away
    return c;
}

NerfTrainConfig small_train() { return test::small_train_config(); }

// Counts the elements whose bits differ (float or double).
template <class T>
size_t differing_bits(const std::vector<T>& a, const std::vector<T>& b) {
    size_t differ = a.size() > b.size() ? a.size() - b.size() : b.size() - a.size();
    for (size_t i = 0; i < std::min(a.size(), b.size()); ++i)
        differ += std::memcmp(&a[i], &b[i], sizeof(T)) != 0;
    return differ;
}

struct ThreadedRun {
    std::vector<double> losses;  // every step's
    std::vector<float> params, densities;
    size_t marched = 0, trained = 0;  // samples, over all steps
};

ThreadedRun train_on_threads(const test::SmallDemoScene& scene, int threads, int steps) {
    ThreadPool pool(threads);
    NerfTrainConfig tc = small_train();
    tc.drop_occluded_samples = true;
    NerfModel model(small_config(scene.train));
    model.init_params(tc.seed);
    NerfTrainer trainer(scene.images, model, tc, pool);
    ThreadedRun run;
    for (int i = 0; i < steps; ++i) {
        run.losses.push_back(trainer.step());
        run.marched += trainer.samples_last_step();
        run.trained += trainer.samples_trained_last_step();
    }
    run.params.assign(model.params().begin(), model.params().end());
    run.densities = model.grid().densities();
    return run;
}

// Chunks are fixed whatever the threads, MLP gradients are summed over chunks in order and each
// hash level over all chunks in order, so one thread and three train the same bits: through grid
// updates in warm-up (steps 0, 16, 32, 48) and after it (64, sampled cells), with occluded
// samples dropped in per-thread scratch.
TEST(NerfTrainer, SameBitsForOneAndThreeThreads) {
    ThreadPool staging(2);
    const test::SmallDemoScene scene(staging);
    const int steps = 70;
    const ThreadedRun one = train_on_threads(scene, 1, steps),
                      three = train_on_threads(scene, 3, steps);
    EXPECT_EQ(differing_bits(one.losses, three.losses), 0u);
    EXPECT_EQ(differing_bits(one.params, three.params), 0u)
        << "of " << one.params.size() << " parameters";
    EXPECT_EQ(differing_bits(one.densities, three.densities), 0u)
        << "of " << one.densities.size() << " cells";
    EXPECT_LT(one.trained, one.marched) << "some samples were dropped behind opaque surfaces";
}

// loss_and_gradients() against central differences of the same step's loss, through marching,
// compositing, both MLPs and the hash grid. The loss must be a smooth function of the parameters:
// fp32 MLPs, L2, no near-camera scaling (not a true gradient), and the checked step is not a
// multiple of grid_update_interval, so no grid update runs in it and every evaluation marches the
// same samples (rays depend only on seed and step). It comes before rays turn opaque: compositing
// stops at T < 1e-4, and a sample crossing that line takes its whole weight along at once (a jump).
TEST(NerfTrainer, WholeStepGradientMatchesFiniteDifferences) {
    ThreadPool pool(2);
    const test::SmallDemoScene scene(pool);
    NerfTrainConfig tc = small_train();
    tc.near_gradient_distance = 0.0f;
    tc.loss.type = LossType::kL2;
    NerfModel trained(small_config(scene.train));
    trained.init_params(tc.seed);
    const int checked_step = 20;  // after the grid updates of steps 0 and 16
    ASSERT_NE(checked_step % tc.grid_update_interval, 0);
    size_t next_rays = 0;
    {
        NerfTrainer trainer(scene.images, trained, tc, pool);
        for (int i = 0; i < checked_step; ++i) trainer.step();
        next_rays = trainer.next_ray_count();
    }
    // The checked step's loss and gradient from a fresh copy of the trained model, parameter i
    // moved by delta (i past the end: none), and a fresh trainer at the same step.
    size_t rays_traced = 0, marched = 0, kept = 0;
    auto evaluate = [&](size_t i, float delta, std::vector<float>& gradients, double* moved_by) {
        NerfModel model(trained);
        if (i < model.params().size()) {
            const float at = model.params()[i];
            model.params()[i] = at + delta;
            *moved_by = double(model.params()[i]) - double(at);  // the step float arithmetic took
            model.repack();
        }
        NerfTrainer trainer(scene.images, model, tc, pool);
        trainer.restore_progress(uint64_t(checked_step), next_rays);
        const double loss = trainer.loss_and_gradients(gradients);
        EXPECT_EQ(trainer.steps(), uint64_t(checked_step)) << "loss_and_gradients takes no step";
        if (rays_traced == 0) {
            rays_traced = trainer.rays_last_step();
            marched = trainer.samples_last_step();
            kept = trainer.samples_trained_last_step();
        }
        EXPECT_EQ(trainer.rays_last_step(), rays_traced) << "every evaluation traces the same rays";
        EXPECT_EQ(trainer.samples_last_step(), marched) << "and marches the same samples";
        return loss;
    };
    std::vector<float> grad, again;
    const size_t none = trained.params().size();
    const double loss = evaluate(none, 0, grad, nullptr);
    EXPECT_EQ(evaluate(none, 0, again, nullptr), loss) << "evaluations repeat to the bit";
    EXPECT_EQ(differing_bits(again, grad), 0u);
    ASSERT_GT(rays_traced, 0u);
    ASSERT_GT(loss, 0.0);
    // The loss is the squared error summed over the rays traced, / (rays_traced * 3); the gradient
    // is that of the L2 loss (dL/dC = 2 (C - target)) summed likewise, scaled by
    // 1 / (planned rays * 3). So gradient = d(loss)/d(param) * rays_traced / planned rays.
    const double to_gradient = double(rays_traced) / double(next_rays);

    // In three hash levels (the dense coarsest, two hashed ones) the two entries with the largest
    // |gradient| (entries the step touched), and in each layer of each MLP the weight with the
    // largest. (The finest levels' entries, each seen by a sample or two, get ~100x less gradient
    // and sit in the noise.)
    const NerfField& field = trained.field();
    struct Checked {
        size_t index;
        float eps;
        const char* what;
    };
    std::vector<Checked> checked;
    auto largest_in = [&](size_t begin, size_t end, int count, float eps, const char* what) {
        std::vector<size_t> order;
        for (size_t j = begin; j < end; ++j) order.push_back(j);
        std::partial_sort(
            order.begin(), order.begin() + count, order.end(),
            [&](size_t a, size_t b) { return std::abs(grad[a]) > std::abs(grad[b]); });
        for (int k = 0; k < count; ++k) {
            EXPECT_NE(grad[order[size_t(k)]], 0.0f)
                << what << " " << order[size_t(k)] << ": the step touches it";
            checked.push_back({order[size_t(k)], eps, what});
        }
    };
    // Steps: long enough that float32 compositing's noise (alpha = 1 - exp(-sigma dt) with sigma dt
    // ~ 1e-3 leaves ~1e-7 of the loss uncertain) stays small, short enough that the MLPs' ReLU
    // kinks bias little: the colour MLP's first layer, fed unit-sized SH values, takes the
    // shortest.
    const float hash_eps = 1e-2f, density_eps = 1e-2f, color_eps = 1e-3f;
    const auto& levels = field.grid().levels();
    const size_t F = size_t(field.grid().config().n_features_per_level);
    for (size_t level : {size_t(0), levels.size() / 4, levels.size() / 2}) {
        const size_t begin = levels[level].param_offset;
        largest_in(begin, begin + size_t(levels[level].n_entries) * F, 2, hash_eps, "hash entry");
    }
    auto each_layer = [&](const FusedMlp& mlp, size_t offset, size_t end, float mlp_eps,
                          const char* what) {
        for (int j = 0; j < mlp.n_layers(); ++j)
            largest_in(offset + mlp.layer_param_offset(j),
                       j + 1 < mlp.n_layers() ? offset + mlp.layer_param_offset(j + 1) : end, 1,
                       mlp_eps, what);
    };
    each_layer(field.density_mlp(), field.density_offset(), field.color_offset(), density_eps,
               "density MLP weight");
    each_layer(field.color_mlp(), field.color_offset(), field.n_params(), color_eps,
               "colour MLP weight");

    // Relative tolerance for kinks and curvature (seeds 11-18, steps 20-29: at most 1.2%), plus a
    // floor for the loss's float32 noise (kLossNoise of it, twice, over the central difference's 2
    // eps).
    const double rel_tol = 2e-2, kLossNoise = 2e-7;
    double worst = 0;
    std::vector<float> unused;
    for (const Checked& c : checked) {
        double up_by = 0, down_by = 0;
        const double up = evaluate(c.index, c.eps, unused, &up_by);
        const double down = evaluate(c.index, -c.eps, unused, &down_by);
        const double numeric = (up - down) / (up_by - down_by) * to_gradient;
        const double analytic = grad[c.index], err = std::abs(analytic - numeric);
        const double floor = kLossNoise * loss * to_gradient / double(c.eps);
        worst = std::max(worst, err / std::abs(numeric));
        EXPECT_LE(err, rel_tol * std::abs(numeric) + floor)
            << c.what << " " << c.index << ": analytic " << analytic << ", numeric " << numeric
            << " (step eps " << c.eps << "; " << kept << " of " << marched
            << " samples in front of opacity)";
    }
    std::printf("[ grad ] %zu parameters, loss %.6f over %zu rays; worst relative error %.2e\n",
                checked.size(), loss, rays_traced, worst);
}

}  // namespace
}  // namespace radiant
