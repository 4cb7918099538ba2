#include <gtest/gtest.h>

#include <cmath>

#include "core/rng.h"
#include "gradcheck.h"
#include "nn/adam.h"
#include "nn/loss.h"

namespace radiant {
namespace {

TEST(Adam, TwoHandComputedSteps) {
    AdamConfig c;
    c.learning_rate = 0.1f;
    c.epsilon = 1e-8f;
    c.l2_reg = 0.0f;
    ThreadPool pool(1);
    Adam adam(c, {{0, 1, false, false}}, 1);
    float p = 1.0f, g = 0.5f;
    adam.step(&p, &g, pool);
    // m = 0.05, v = 0.0025, bias correction sqrt(1 - .99) / (1 - .9) = 1: p = 1 - 0.1
    EXPECT_NEAR(p, 0.9f, 1e-6f);
    EXPECT_EQ(g, 0.0f) << "gradients are consumed";
    g = -0.5f;
    adam.step(&p, &g, pool);
    // m = -0.005, v = 0.004975, correction = sqrt(0.0199) / 0.19 = 0.742457
    // p = 0.9 + 0.1 * 0.742457 * 0.005 / sqrt(0.004975) = 0.9052632
    EXPECT_NEAR(p, 0.9052632f, 1e-6f);
    EXPECT_NEAR(adam.first_moment()[0], -0.005f, 1e-7f);
    EXPECT_NEAR(adam.second_moment()[0], 0.004975f, 1e-8f);
}

TEST(Adam, SparseRangesSkipUntouchedEntriesAndL2OnlyWhereAsked) {
    AdamConfig c;
    c.l2_reg = 0.1f;
    ThreadPool pool(2);
    const size_t n = 40;
    Adam adam(c, {{0, 20, false, true}, {20, 20, true, false}}, n);
    std::vector<float> p(n, 1.0f), g(n, 0.0f);
    g[3] = 1.0f;
    adam.step(p.data(), g.data(), pool);
    EXPECT_EQ(p[0], 1.0f) << "sparse, zero gradient: untouched";
    EXPECT_EQ(adam.first_moment()[0], 0.0f);
    EXPECT_LT(p[3], 1.0f);
    // Dense range with zero gradient still moves through L2 (grad = 0.1 * p).
    EXPECT_LT(p[25], 1.0f);
    EXPECT_NEAR(adam.first_moment()[25], 0.1f * 0.1f, 1e-7f);
}

TEST(Adam, DecaySchedule) {
    AdamConfig c;
    c.learning_rate = 1.0f;
    c.decay_start = 100;
    c.decay_interval = 10;
    c.decay_base = 0.5f;
    EXPECT_FLOAT_EQ(c.learning_rate_at(50), 1.0f);
    EXPECT_FLOAT_EQ(c.learning_rate_at(100), 1.0f);
    EXPECT_FLOAT_EQ(c.learning_rate_at(109), 1.0f);
    EXPECT_FLOAT_EQ(c.learning_rate_at(110), 0.5f);
    EXPECT_FLOAT_EQ(c.learning_rate_at(135), 0.125f);
}

TEST(Adam, SimdMatchesScalar) {
    for (bool sparse : {false, true}) {
        const size_t n = 1000 + 7;
        Pcg32 rng(sparse ? 1 : 2);
        std::vector<float> p(n), g(n), m(n), v(n);
        for (size_t i = 0; i < n; ++i) {
            p[i] = rng.next_float() - 0.5f;
            g[i] = (i % 5 == 0) ? 0.0f : rng.next_float() - 0.5f;
            if (i >= 32 && i < 64) g[i] = 0.0f;  // a whole vector of zeros
            m[i] = rng.next_float() * 0.1f;
            v[i] = rng.next_float() * 0.01f;
        }
        auto p2 = p, g2 = g, m2 = m, v2 = v;
        AdamStepArgs a{0.01f, 0.9f, 0.99f, 1e-15f, 1e-3f, sparse};
        adam_update(a, p.data(), g.data(), m.data(), v.data(), n, KernelImpl::kSimd);
        adam_update(a, p2.data(), g2.data(), m2.data(), v2.data(), n, KernelImpl::kScalar);
        for (size_t i = 0; i < n; ++i) {
            ASSERT_NEAR(p[i], p2[i], 1e-6f) << i;
            ASSERT_NEAR(m[i], m2[i], 1e-7f) << i;
            ASSERT_NEAR(v[i], v2[i], 1e-8f) << i;
            ASSERT_EQ(g[i], 0.0f);
        }
    }
}

class LossTest : public ::testing::TestWithParam<std::tuple<LossType, KernelImpl>> {};

TEST_P(LossTest, GradientMatchesFiniteDifferences) {
    const LossType type = std::get<0>(GetParam());
    const KernelImpl impl = std::get<1>(GetParam());
    LossConfig c;
    c.type = type;
    c.huber_delta = 0.1f;
    const size_t n = 37;
    Pcg32 rng(3);
    std::vector<float> pred(n), target(n), grad(n);
    for (size_t i = 0; i < n; ++i) {
        pred[i] = rng.next_float();
        target[i] = rng.next_float();
    }
    auto loss = [&]() {
        std::vector<float> scratch(n);
        return loss_and_gradient(c, pred.data(), target.data(), n, 1.0f, scratch.data(), impl);
    };
    loss_and_gradient(c, pred.data(), target.data(), n, 1.0f, grad.data(), impl);
    EXPECT_LT(test::gradient_nmse(pred, grad, loss, 1e-3f, test::every_index(n)), 1e-5);
}

INSTANTIATE_TEST_SUITE_P(Types, LossTest,
                         ::testing::Combine(::testing::Values(LossType::kL2, LossType::kHuber),
                                            ::testing::Values(KernelImpl::kSimd,
                                                              KernelImpl::kScalar)));

TEST(Loss, KnownValuesAndSimdAgreement) {
    LossConfig l2, huber;
    huber.type = LossType::kHuber;
    huber.huber_delta = 0.5f;
    const float pred[3] = {1.0f, 0.0f, 2.0f}, target[3] = {0.0f, 0.25f, 2.0f};
    float grad[3];
    EXPECT_NEAR(loss_and_gradient(l2, pred, target, 3, 0.5f, grad, KernelImpl::kScalar), 1.0625,
                1e-7);
    EXPECT_FLOAT_EQ(grad[0], 1.0f);  // 0.5 * 2 * 1
    // Huber: |1| > .5 -> .5 * (1 - .25) = .375; |.25| -> .5 * .0625 = .03125
    EXPECT_NEAR(loss_and_gradient(huber, pred, target, 3, 1.0f, grad, KernelImpl::kScalar), 0.40625,
                1e-7);
    EXPECT_FLOAT_EQ(grad[0], 0.5f);
    EXPECT_FLOAT_EQ(grad[1], -0.25f);
    std::vector<float> p(1001), t(1001), g1(1001), g2(1001);
    Pcg32 rng(4);
    for (size_t i = 0; i < p.size(); ++i) p[i] = rng.next_float(), t[i] = rng.next_float();
    for (const LossConfig& c : {l2, huber}) {
        double a =
            loss_and_gradient(c, p.data(), t.data(), p.size(), 0.1f, g1.data(), KernelImpl::kSimd);
        double b = loss_and_gradient(c, p.data(), t.data(), p.size(), 0.1f, g2.data(),
                                     KernelImpl::kScalar);
        EXPECT_NEAR(a, b, 1e-4 * b);
        for (size_t i = 0; i < p.size(); ++i) ASSERT_NEAR(g1[i], g2[i], 1e-7f);
    }
}

}  // namespace
}  // namespace radiant
