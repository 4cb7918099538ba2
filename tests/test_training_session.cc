// The training session: schedule, stop conditions, validation, checkpoints, and resume that
// continues both step-bounded runs (bit-exactly) and time-bounded ones (their clock).
#include <gtest/gtest.h>

#include <cstring>

#include "core/thread_pool.h"
#include "demo/demo_scene.h"
#include "io/staging.h"
#include "io/transforms.h"
#include "nerf/model_io.h"
#include "small_demo_scene.h"
#include "test_util.h"
#include "train/training_session.h"

namespace radiant {
namespace {

struct Fixture {
    ThreadPool pool{2};
    test::SmallDemoScene scene{pool};
    test::TempDir& dir = scene.dir;
    const Dataset& train = scene.train;
    const ImageSet &images = scene.images, &val = scene.val;
    NerfTrainConfig config;
    Fixture() {
        config.target_samples = 1 << 12;
        config.initial_rays = 256;
        config.seed = 11;
    }
    std::unique_ptr<NerfModel> fresh_model() const {
        NerfModelConfig c = NerfModelConfig::for_dataset(train, 14);
        c.grid_resolution = 32;
        auto m = std::make_unique<NerfModel>(c);
        m->init_params(config.seed);
        return m;
    }
    TrainingPlan plan(uint64_t steps) const {
        TrainingPlan p;
        p.steps = steps;
        p.val_every = 0;
        p.checkpoint_every = 0;
        p.snapshot_path = dir / "run.radiant";
        return p;
    }
};

TEST(TrainingSession, LearningRateScheduleKnownAnswers) {
    EXPECT_EQ(learning_rate_scale(0.0), 1.0f);
    EXPECT_EQ(learning_rate_scale(0.7), 1.0f);
    EXPECT_EQ(learning_rate_scale(0.75), 1.0f);  // halved at 0.76, 0.82, 0.88, 0.94 and 1.0
    EXPECT_EQ(learning_rate_scale(0.76), 0.5f);
    EXPECT_EQ(learning_rate_scale(0.85), 0.25f);
    EXPECT_EQ(learning_rate_scale(0.99), 1.0f / 16);
    EXPECT_EQ(learning_rate_scale(1.0), 1.0f / 32);
    EXPECT_EQ(learning_rate_scale(2.0), 1.0f / 32);
}

TEST(TrainingSession, StoppedAndResumedEqualsUninterrupted) {
    Fixture f;
    TrainingSession straight(f.images, f.val, f.fresh_model(), f.config, f.plan(40), {}, f.pool);
    while (straight.status() == TrainingSession::Status::kRunning) straight.step();
    EXPECT_EQ(straight.status(), TrainingSession::Status::kFinished);
    EXPECT_EQ(straight.steps(), 40u);

    TrainingPlan first_plan = f.plan(40);
    first_plan.stop_at_step = 23;
    double saved_seconds = 0;
    std::vector<HistoryPoint> saved_history;
    {
        TrainingSession first(f.images, f.val, f.fresh_model(), f.config, first_plan,
                              {{"note", "x"}}, f.pool);
        while (first.status() == TrainingSession::Status::kRunning) first.step();
        EXPECT_EQ(first.status(), TrainingSession::Status::kStopped);
        EXPECT_EQ(first.steps(), 23u);
        EXPECT_FALSE(first.saved_any());
        first.save();
        EXPECT_TRUE(first.saved_any());
        saved_seconds = first.seconds();
        saved_history = first.history();
    }
    LoadedModel loaded = load_model_snapshot(f.dir / "run.radiant");
    EXPECT_EQ(loaded.file.header()["info"]["note"], "x");
    TrainingSession resumed(f.images, f.val, std::move(loaded.model), f.config, f.plan(40), {},
                            f.pool);
    resumed.resume_from(loaded.file);
    EXPECT_EQ(resumed.steps(), 23u);
    EXPECT_EQ(resumed.seconds(), saved_seconds);  // the clock continues
    ASSERT_EQ(resumed.history().size(), saved_history.size());
    EXPECT_EQ(resumed.history().back().step, 20u);
    EXPECT_EQ(resumed.history().back().loss, saved_history.back().loss);
    while (resumed.status() == TrainingSession::Status::kRunning) resumed.step();
    EXPECT_EQ(resumed.steps(), 40u);
    EXPECT_GT(resumed.seconds(), saved_seconds);
    const auto &a = straight.model().params(), &b = resumed.model().params();
    ASSERT_EQ(a.size(), b.size());
    EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0);
    EXPECT_EQ(resumed.history().size(), straight.history().size());
}

TEST(TrainingSession, TimeBoundedRunsKeepTheirBudgetAcrossAResume) {
    Fixture f;
    TrainingPlan p = f.plan(0);
    p.seconds = 1e9;
    p.stop_at_step = 5;
    double spent = 0;
    {
        TrainingSession s(f.images, f.val, f.fresh_model(), f.config, p, {}, f.pool);
        while (s.status() == TrainingSession::Status::kRunning) s.step();
        s.save();
        spent = s.seconds();
        EXPECT_GT(spent, 0.0);
    }
    // Resumed with a budget of exactly the time already spent: nothing is left to train
    // (a restarted clock would train another full budget).
    LoadedModel loaded = load_model_snapshot(p.snapshot_path);
    TrainingPlan again = f.plan(0);
    again.seconds = spent;
    TrainingSession s(f.images, f.val, std::move(loaded.model), f.config, again, {}, f.pool);
    s.resume_from(loaded.file);
    EXPECT_EQ(s.status(), TrainingSession::Status::kFinished);
    EXPECT_EQ(s.steps(), 5u);
}

TEST(TrainingSession, ValidatesAndCheckpointsOnSchedule) {
    Fixture f;
    TrainingPlan p = f.plan(12);
    p.val_every = 5;
    p.val_views = 1;
    p.checkpoint_every = 4;
    TrainingSession s(f.images, f.val, f.fresh_model(), f.config, p, {}, f.pool);
    std::vector<uint64_t> validated, saved;
    while (s.status() == TrainingSession::Status::kRunning) {
        const auto r = s.step();
        if (r.psnr) validated.push_back(r.step);
        if (r.saved) saved.push_back(r.step);
    }
    EXPECT_EQ(validated, (std::vector<uint64_t>{5, 10}));
    EXPECT_EQ(saved, (std::vector<uint64_t>{4, 8}));  // the last step is the caller's save
    EXPECT_TRUE(s.validation_psnr(2).has_value());
    EXPECT_GT(*s.validation_psnr(2), 5.0);
    ASSERT_FALSE(s.history().empty());
    EXPECT_EQ(s.history().back().step, 12u);
    EXPECT_TRUE(s.history()[0].psnr.has_value());  // step 5's point carries its PSNR
    EXPECT_EQ(load_model_snapshot(p.snapshot_path).file.header()["training"]["step"], 8);
}

TEST(TrainingSession, DivergenceStopsWithoutSaving) {
    Fixture f;
    f.config.adam.learning_rate = 1e30f;
    TrainingPlan p = f.plan(50);
    TrainingSession s(f.images, f.val, f.fresh_model(), f.config, p, {}, f.pool);
    while (s.status() == TrainingSession::Status::kRunning) s.step();
    EXPECT_EQ(s.status(), TrainingSession::Status::kDiverged);
    EXPECT_LT(s.steps(), 50u);
    EXPECT_FALSE(s.saved_any());
}

}  // namespace
}  // namespace radiant
