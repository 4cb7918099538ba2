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

// Epilogue variants are template flags so the block compiles to straight-line code with the
// accumulators in registers (runtime flags made GCC spill them around the K loop).
// kDynamic reads the three flags from GemmArgs at run time: the rare combinations use it, so
// only the four the MLP runs every step are compiled as straight-line variants.
enum Flags : int { kAccumulate = 1, kRelu = 2, kMask = 4, kDynamic = 8 };

template <int kFlags>
HWY_INLINE bool HasFlag(const GemmArgs& g, int flag) {
    if constexpr ((kFlags & kDynamic) != 0) {
        return flag == kAccumulate ? g.accumulate : flag == kRelu ? g.relu : g.relu_mask != nullptr;
    } else {
        return (kFlags & flag) != 0;
    }
}

template <int kRows, int kVecs, int kFlags, class D>
HWY_INLINE void GemmBlock(D d, const GemmArgs& g, size_t i0, size_t j0) {
    using V = hn::Vec<D>;
    const size_t L = hn::Lanes(d);
    V c[kRows][kVecs];
    float* HWY_RESTRICT cp = g.C + i0 * g.ldc + j0;
    for (int r = 0; r < kRows; ++r)
        for (int v = 0; v < kVecs; ++v)
            c[r][v] = HasFlag<kFlags>(g, kAccumulate) ? hn::LoadU(d, cp + r * g.ldc + v * L)
                                                      : hn::Zero(d);
    const float* HWY_RESTRICT a = g.A + i0 * g.a_row_stride;
    const float* HWY_RESTRICT b = g.B + j0;
    const size_t ars = g.a_row_stride, acs = g.a_col_stride, ldb = g.ldb;
    for (size_t k = 0; k < g.K; ++k) {
        V bv[kVecs];
        for (int v = 0; v < kVecs; ++v) bv[v] = hn::LoadU(d, b + v * L);
        for (int r = 0; r < kRows; ++r) {
            const V av = hn::Set(d, a[r * ars]);
            for (int v = 0; v < kVecs; ++v) c[r][v] = hn::MulAdd(av, bv[v], c[r][v]);
        }
        a += acs;
        b += ldb;
    }
    for (int r = 0; r < kRows; ++r) {
        for (int v = 0; v < kVecs; ++v) {
            V out = c[r][v];
            if (HasFlag<kFlags>(g, kRelu)) out = hn::Max(out, hn::Zero(d));
            if (HasFlag<kFlags>(g, kMask)) {
                const V m = hn::LoadU(d, g.relu_mask + (i0 + r) * g.ld_mask + j0 + v * L);
                out = hn::IfThenElseZero(hn::Gt(m, hn::Zero(d)), out);
            }
            hn::StoreU(out, d, cp + r * g.ldc + v * L);
        }
    }
}

// All rows for one column panel of kVecs vectors: full row blocks, then the remaining rows
// in blocks of 4, 2 and 1 (so M = 3 or M = 64 with 6-row blocks do not fall to single rows).
template <int kRows, int kVecs, int kFlags, class D>
HWY_INLINE void GemmPanel(D d, const GemmArgs& g, size_t j0) {
    size_t i = 0;
    for (; i + kRows <= g.M; i += kRows) GemmBlock<kRows, kVecs, kFlags>(d, g, i, j0);
    if constexpr (kRows > 4) {
        for (; i + 4 <= g.M; i += 4) GemmBlock<4, kVecs, kFlags>(d, g, i, j0);
    }
    if constexpr (kRows > 2) {
        for (; i + 2 <= g.M; i += 2) GemmBlock<2, kVecs, kFlags>(d, g, i, j0);
    }
    for (; i < g.M; ++i) GemmBlock<1, kVecs, kFlags>(d, g, i, j0);
}

template <int kFlags>
void GemmWithFlags(const GemmArgs& g) {
    const hn::ScalableTag<float> d;
    const size_t L = hn::Lanes(d);
    // Register budget: 32 vector registers with AVX-512/NEON, 16 with AVX2/SSE.
    constexpr bool kManyRegs = HWY_TARGET <= HWY_AVX3 || HWY_ARCH_ARM;
    size_t j = 0;
    for (; j + 4 * L <= g.N; j += 4 * L) {
        if constexpr (kManyRegs)
            GemmPanel<6, 4, kFlags>(d, g, j);
        else
            GemmPanel<2, 4, kFlags>(d, g, j);
    }
    for (; j + 2 * L <= g.N; j += 2 * L) {
        if constexpr (kManyRegs)
            GemmPanel<8, 2, kFlags>(d, g, j);
        else
            GemmPanel<4, 2, kFlags>(d, g, j);
    }
    for (; j < g.N; j += L) GemmPanel<8, 1, kFlags>(d, g, j);
}

void Gemm(const GemmArgs& g) {
    const int flags =
        (g.accumulate ? kAccumulate : 0) | (g.relu ? kRelu : 0) | (g.relu_mask ? kMask : 0);
    switch (flags) {
        case 0:
            return GemmWithFlags<0>(g);  // output layer, input grads
        case kRelu:
            return GemmWithFlags<kRelu>(g);  // hidden layers forward
        case kAccumulate:
            return GemmWithFlags<kAccumulate>(g);  // weight gradients
        case kMask:
            return GemmWithFlags<kMask>(g);  // ReLU backward
        default:
            return GemmWithFlags<kDynamic>(g);
    }
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
