// Highway GEMM micro-kernels. Compiled once per SIMD target (foreach_target) and dispatched
// at run time. A block of kRows x kVecs vectors of C stays in registers across the whole K
// loop: per k, kVecs loads of B and kRows broadcasts of A feed kRows*kVecs FMAs.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "nn/gemm_kernels.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include "nn/gemm.h"

HWY_BEFORE_NAMESPACE();
namespace radiant {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <int kRows, int kVecs, class D>
HWY_INLINE void GemmBlock(D d, const GemmArgs& g, size_t i0, size_t j0) {
    using V = hn::Vec<D>;
    const size_t L = hn::Lanes(d);
    V c[kRows][kVecs];
    for (int r = 0; r < kRows; ++r)
        for (int v = 0; v < kVecs; ++v)
            c[r][v] = g.accumulate ? hn::LoadU(d, g.C + (i0 + r) * g.ldc + j0 + v * L) : hn::Zero(d);
    const float* a = g.A + i0 * g.a_row_stride;
    const float* b = g.B + j0;
    for (size_t k = 0; k < g.K; ++k) {
        V bv[kVecs];
        for (int v = 0; v < kVecs; ++v) bv[v] = hn::LoadU(d, b + v * L);
        for (int r = 0; r < kRows; ++r) {
            const V av = hn::Set(d, a[r * g.a_row_stride]);
            for (int v = 0; v < kVecs; ++v) c[r][v] = hn::MulAdd(av, bv[v], c[r][v]);
        }
        a += g.a_col_stride;
        b += g.ldb;
    }
    const V zero = hn::Zero(d);
    for (int r = 0; r < kRows; ++r) {
        for (int v = 0; v < kVecs; ++v) {
            V out = c[r][v];
            if (g.relu) out = hn::Max(out, zero);
            if (g.relu_mask) {
                const V m = hn::LoadU(d, g.relu_mask + (i0 + r) * g.ld_mask + j0 + v * L);
                out = hn::IfThenElseZero(hn::Gt(m, zero), out);
            }
            hn::StoreU(out, d, g.C + (i0 + r) * g.ldc + j0 + v * L);
        }
    }
}

// All rows for one column panel of kVecs vectors: full row blocks, then single rows.
template <int kRows, int kVecs, class D>
HWY_INLINE void GemmPanel(D d, const GemmArgs& g, size_t j0) {
    size_t i = 0;
    for (; i + kRows <= g.M; i += kRows) GemmBlock<kRows, kVecs>(d, g, i, j0);
    for (; i < g.M; ++i) GemmBlock<1, kVecs>(d, g, i, j0);
}

void Gemm(const GemmArgs& g) {
    const hn::ScalableTag<float> d;
    const size_t L = hn::Lanes(d);
    const size_t vecs = g.N / L;  // N is a multiple of 16, hence of L
    // Register budget: 32 vector registers with AVX-512/NEON/SVE, 16 with AVX2/SSE.
    constexpr bool kManyRegs = HWY_TARGET <= HWY_AVX3 || HWY_ARCH_ARM;
    size_t j = 0;
    if (vecs >= 4) {
        for (; j + 4 * L <= g.N; j += 4 * L) {
            if constexpr (kManyRegs) GemmPanel<6, 4>(d, g, j);
            else GemmPanel<2, 4>(d, g, j);
        }
    }
    for (; j + 2 * L <= g.N; j += 2 * L) {
        if constexpr (kManyRegs) GemmPanel<8, 2>(d, g, j);
        else GemmPanel<4, 2>(d, g, j);
    }
    for (; j < g.N; j += L) GemmPanel<8, 1>(d, g, j);
}

}  // namespace HWY_NAMESPACE
}  // namespace radiant
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace radiant {

HWY_EXPORT(Gemm);

void gemm_reference(const GemmArgs& g) {
    for (size_t i = 0; i < g.M; ++i) {
        for (size_t j = 0; j < g.N; ++j) {
            float acc = g.accumulate ? g.C[i * g.ldc + j] : 0.0f;
            for (size_t k = 0; k < g.K; ++k)
                acc += g.A[i * g.a_row_stride + k * g.a_col_stride] * g.B[k * g.ldb + j];
            if (g.relu && acc < 0) acc = 0;
            if (g.relu_mask && !(g.relu_mask[i * g.ld_mask + j] > 0)) acc = 0;
            g.C[i * g.ldc + j] = acc;
        }
    }
}

void gemm(const GemmArgs& args, KernelImpl impl) {
    if (impl == KernelImpl::kScalar) return gemm_reference(args);
    HWY_DYNAMIC_DISPATCH(Gemm)(args);
}

}  // namespace radiant
#endif  // HWY_ONCE
