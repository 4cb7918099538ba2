// Highway kernels of the hash encoding.
//
// Forward puts *levels* in SIMD lanes: one sample's 16 levels fill an AVX-512 vector, every
// corner is one gather per feature, and the result is already in the row-major [L*F] order
// the MLP reads. Backward puts *samples* in lanes for one level (the unit of work that
// threads own, so scatter-adds never race): indices and weights are computed 16 at a time,
// then added to the table in sample order, exactly as the reference does.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "nn/hash_grid_kernels.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <algorithm>
#include <cstring>

#include "nn/hash_grid.h"

HWY_BEFORE_NAMESPACE();
namespace radiant {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Index within the level and interpolation weight of corner `c` (bit d set: +1 along axis
// d) of the cells in `cell`/`frac`, for every lane.
template <int D, class DF, class DU, class VU = hn::Vec<DU>, class VF = hn::Vec<DF>>
HWY_INLINE void CornerOf(DF df, DU du, int c, const VU* cell, const VF* frac, VU verts,
                         hn::Mask<DU> dense, VU mask, VU& index, VF& weight) {
    const uint32_t primes[3] = {1u, 2654435761u, 805459861u};
    const VF one = hn::Set(df, 1.0f);
    VF w = one;
    VU dense_idx = hn::Zero(du), hash = hn::Zero(du), stride = hn::Set(du, 1u);
    for (int d = 0; d < D; ++d) {
        const bool bit = (c >> d) & 1;
        const VU v = bit ? hn::Add(cell[d], hn::Set(du, 1u)) : cell[d];
        w = hn::Mul(w, bit ? frac[d] : hn::Sub(one, frac[d]));
        dense_idx = hn::Add(dense_idx, hn::Mul(v, stride));
        if (d + 1 < D) stride = hn::Mul(stride, verts);
        hash = hn::Xor(hash, d == 0 ? v : hn::Mul(v, hn::Set(du, primes[d])));
    }
    index = hn::IfThenElse(dense, dense_idx, hn::And(hash, mask));
    weight = w;
}

// Cell (lower corner) and position within it of the clamped point p at the levels in lanes
// [lb, lb + lanes): x = p * scale, cell = floor(x) kept one vertex short of the last.
template <int D, class DF, class DU = hn::RebindToUnsigned<DF>, class VU = hn::Vec<DU>,
          class VF = hn::Vec<DF>>
HWY_INLINE void LevelCells(DF df, const HashGridLanes& g, int lb, const float* p, VU verts,
                           VU* cell, VF* frac) {
    const hn::RebindToSigned<DF> di;
    const DU du;
    const VF scale = hn::LoadU(df, g.scale + lb);
    const auto max_cell = hn::BitCast(di, hn::Sub(verts, hn::Set(du, 2u)));
    for (int d = 0; d < D; ++d) {
        const VF x = hn::Mul(hn::Set(df, p[d]), scale);
        const auto ci = hn::Min(hn::ConvertTo(di, x), max_cell);  // x >= 0: trunc = floor
        cell[d] = hn::BitCast(du, ci);
        frac[d] = hn::Sub(x, hn::ConvertTo(df, ci));
    }
}

template <int D, int F>
void ForwardImpl(const HashGridLanes& g, int n_levels, const float* params, const float* positions,
                 size_t n, float* out, size_t out_stride) {
    const hn::ScalableTag<float> df;
    const hn::RebindToSigned<decltype(df)> di;
    const hn::RebindToUnsigned<decltype(df)> du;
    using VF = hn::Vec<decltype(df)>;
    using VU = hn::Vec<decltype(du)>;
    const size_t L = hn::Lanes(df);
    HWY_ALIGN float tmp[64 * 8];
    HWY_ALIGN float split[8][HWY_MAX_BYTES / sizeof(float)];

    // Hashed levels miss the caches; gathers stall retirement while they wait, so few are in
    // flight. Prefetching a later sample's corners (one per x-pair: x and x+1 share a cache
    // line 7 times in 8) keeps many more misses outstanding.
    constexpr size_t kAhead = 4;
    HWY_ALIGN uint32_t entries[HWY_MAX_BYTES / sizeof(float)];
    auto prefetch_sample = [&](const float* pos) {
        float p[3];
        for (int d = 0; d < D; ++d) p[d] = std::min(std::max(pos[d], 0.0f), 1.0f);
        for (int lb = 0; lb < g.n_levels_padded; lb += static_cast<int>(L)) {
            const VU verts = hn::LoadU(du, g.vertices + lb);
            VU cell[D];
            VF frac[D];
            LevelCells<D>(df, g, lb, p, verts, cell, frac);
            const auto dense = hn::Ne(hn::LoadU(du, g.dense + lb), hn::Zero(du));
            const VU mask = hn::LoadU(du, g.mask + lb);
            const VU offset = hn::LoadU(du, g.offset + lb);
            for (int c = 0; c < (1 << D); c += 2) {
                VU idx;
                VF w;
                CornerOf<D>(df, du, c, cell, frac, verts, dense, mask, idx, w);
                hn::Store(hn::Add(offset, idx), du, entries);
                for (size_t k = 0; k < L; ++k)
                    if (!g.dense[lb + k]) __builtin_prefetch(params + size_t(entries[k]) * F, 0, 3);
            }
        }
    };

    for (size_t i = 0; i < n; ++i) {
        const float* pos = positions + i * D;
        if (F == 2 && D == 3 && i + kAhead < n) prefetch_sample(positions + (i + kAhead) * D);
        float p[3];
        for (int d = 0; d < D; ++d) p[d] = std::min(std::max(pos[d], 0.0f), 1.0f);
        for (int lb = 0; lb < g.n_levels_padded; lb += static_cast<int>(L)) {
            const VU verts = hn::LoadU(du, g.vertices + lb);
            VU cell[D];
            VF frac[D];
            LevelCells<D>(df, g, lb, p, verts, cell, frac);
            const auto dense = hn::Ne(hn::LoadU(du, g.dense + lb), hn::Zero(du));  // Mask<du>
            const VU mask = hn::LoadU(du, g.mask + lb);
            const VU offset = hn::LoadU(du, g.offset + lb);
#if HWY_TARGET != HWY_SCALAR
            if constexpr (F == 2) {
                // Two features are one 8-byte entry: gather entries as 64-bit lanes (half the
                // gathered elements), levels [lb, lb+L/2) in `lo`, the rest in `hi`. The
                // gathered pairs are already in output order (level-major, feature-minor).
                const hn::Repartition<uint64_t, decltype(df)> du64;
                const hn::RebindToSigned<decltype(du64)> di64;
                const hn::Half<decltype(du)> duh;
                const auto* table64 = reinterpret_cast<const uint64_t*>(params);
                VF acc_lo = hn::Zero(df), acc_hi = hn::Zero(df);
                // Duplicates each 32-bit lane of a half vector into a pair of lanes.
                auto pairs_of = [&](hn::Vec<decltype(duh)> half) {
                    const auto w64 = hn::PromoteTo(du64, half);
                    return hn::BitCast(df, hn::Or(w64, hn::ShiftLeft<32>(w64)));
                };
                for (int c = 0; c < (1 << D); ++c) {
                    VU idx;
                    VF w;
                    CornerOf<D>(df, du, c, cell, frac, verts, dense, mask, idx, w);
                    const VU entry = hn::Add(offset, idx);
                    const auto lo =
                        hn::BitCast(di64, hn::PromoteTo(du64, hn::LowerHalf(duh, entry)));
                    const auto hi =
                        hn::BitCast(di64, hn::PromoteTo(du64, hn::UpperHalf(duh, entry)));
                    const VU wbits = hn::BitCast(du, w);
                    acc_lo =
                        hn::MulAdd(pairs_of(hn::LowerHalf(duh, wbits)),
                                   hn::BitCast(df, hn::GatherIndex(du64, table64, lo)), acc_lo);
                    acc_hi =
                        hn::MulAdd(pairs_of(hn::UpperHalf(duh, wbits)),
                                   hn::BitCast(df, hn::GatherIndex(du64, table64, hi)), acc_hi);
                }
                hn::Store(acc_lo, df, tmp + lb * 2);
                hn::Store(acc_hi, df, tmp + lb * 2 + L);
                continue;
            }
#endif
            VF acc[F];
            for (int f = 0; f < F; ++f) acc[f] = hn::Zero(df);
            for (int c = 0; c < (1 << D); ++c) {
                VU idx;
                VF w;
                CornerOf<D>(df, du, c, cell, frac, verts, dense, mask, idx, w);
                const auto base =
                    hn::BitCast(di, hn::Mul(hn::Add(offset, idx), hn::Set(du, uint32_t(F))));
                for (int f = 0; f < F; ++f)
                    acc[f] = hn::MulAdd(w, hn::GatherIndex(df, params + f, base), acc[f]);
            }
            float* dst = tmp + lb * F;
            if constexpr (F == 1) {
                hn::Store(acc[0], df, dst);
            } else if constexpr (F == 2) {
                hn::StoreInterleaved2(acc[0], acc[1], df, dst);
            } else if constexpr (F == 4) {
                hn::StoreInterleaved4(acc[0], acc[1], acc[2], acc[3], df, dst);
            } else {
                for (int f = 0; f < F; ++f) hn::Store(acc[f], df, split[f]);
                for (size_t k = 0; k < L; ++k)
                    for (int f = 0; f < F; ++f) dst[k * F + f] = split[f][k];
            }
        }
        std::memcpy(out + i * out_stride, tmp, sizeof(float) * n_levels * F);
    }
}

void HashGridForward(const HashGridLanes& g, int n_levels, const float* params,
                     const float* positions, size_t n, float* out, size_t out_stride) {
    const int key = g.n_dims * 10 + g.n_features;
    switch (key) {
        case 21:
            return ForwardImpl<2, 1>(g, n_levels, params, positions, n, out, out_stride);
        case 22:
            return ForwardImpl<2, 2>(g, n_levels, params, positions, n, out, out_stride);
        case 24:
            return ForwardImpl<2, 4>(g, n_levels, params, positions, n, out, out_stride);
        case 28:
            return ForwardImpl<2, 8>(g, n_levels, params, positions, n, out, out_stride);
        case 31:
            return ForwardImpl<3, 1>(g, n_levels, params, positions, n, out, out_stride);
        case 32:
            return ForwardImpl<3, 2>(g, n_levels, params, positions, n, out, out_stride);
        case 34:
            return ForwardImpl<3, 4>(g, n_levels, params, positions, n, out, out_stride);
        default:
            return ForwardImpl<3, 8>(g, n_levels, params, positions, n, out, out_stride);
    }
}

// One level for a run of samples, samples in lanes (the backward's layout): the level's table
// stays in cache for the whole run instead of competing with the other levels' tables, as it
// does when forward() walks sample by sample. Output feature-major, out[(level*F + f) * stride +
// i]. Indices and weights are computed 16 samples at a time; the entries of 3-D, two-feature levels
// (NeRF's) are then read by x-pairs of corners with plain loads, the others by gathers.
template <int D, int F>
void ForwardLevelImpl(const HashGridLanes& g, int level, const float* params,
                      const float* positions, size_t n, float* out, size_t out_stride) {
    const hn::ScalableTag<float> df;
    const hn::RebindToSigned<decltype(df)> di;
    const hn::RebindToUnsigned<decltype(df)> du;
    using VF = hn::Vec<decltype(df)>;
    using VU = hn::Vec<decltype(du)>;
    const size_t L = hn::Lanes(df);
    constexpr int kCorners = 1 << D;
    constexpr size_t kMaxLanes = HWY_MAX_BYTES / sizeof(float);
    HWY_ALIGN float pos_buf[3][kMaxLanes];
    HWY_ALIGN float out_buf[F][kMaxLanes];
    HWY_ALIGN uint32_t ahead_idx[kMaxLanes];

    const VF scale = hn::Set(df, g.scale[level]);
    const uint32_t verts_s = g.vertices[level];
    const VU verts = hn::Set(du, verts_s);
    const auto max_cell = hn::Set(di, int32_t(verts_s) - 2);
    const auto dense_mask = hn::Ne(hn::Set(du, g.dense[level]), hn::Zero(du));
    const VU mask = hn::Set(du, g.mask[level]);
    const float* table = params + size_t(g.offset[level]) * F;
    const VF zero = hn::Zero(df), one = hn::Set(df, 1.0f);
    const bool hashed = g.dense[level] == 0;

    auto load_cells = [&](size_t i0, size_t count, VU* cell, VF* frac) {
        VF p[3];
        if (count == L && D == 3) {
            hn::LoadInterleaved3(df, positions + i0 * 3, p[0], p[1], p[2]);
        } else if (count == L && D == 2) {
            hn::LoadInterleaved2(df, positions + i0 * 2, p[0], p[1]);
        } else {
            for (int d = 0; d < D; ++d) {
                for (size_t k = 0; k < L; ++k)
                    pos_buf[d][k] = k < count ? positions[(i0 + k) * D + d] : 0.0f;
                p[d] = hn::Load(df, pos_buf[d]);
            }
        }
        for (int d = 0; d < D; ++d) {
            const VF x = hn::Mul(hn::Min(hn::Max(p[d], zero), one), scale);
            const auto ci = hn::Min(hn::ConvertTo(di, x), max_cell);  // x >= 0: trunc = floor
            cell[d] = hn::BitCast(du, ci);
            frac[d] = hn::Sub(x, hn::ConvertTo(df, ci));
        }
    };
    // Misses of a hashed level: prefetch a later block's entries (one per x-pair) so they
    // overlap with this block's loads.
    constexpr size_t kAheadBlocks = 2;
    auto prefetch_block = [&](size_t j0) {
        const size_t count = std::min(L, n - j0);
        VU cell[D];
        VF frac[D];
        load_cells(j0, count, cell, frac);
        for (int c = 0; c < kCorners; c += 2) {
            VU idx;
            VF w;
            CornerOf<D>(df, du, c, cell, frac, verts, dense_mask, mask, idx, w);
            hn::Store(idx, du, ahead_idx);
            for (size_t k = 0; k < count; ++k)
                __builtin_prefetch(table + size_t(ahead_idx[k]) * F, 0, 3);
        }
    };

    for (size_t i0 = 0; i0 < n; i0 += L) {
        const size_t count = std::min(L, n - i0);
        if (hashed && i0 + kAheadBlocks * L < n) prefetch_block(i0 + kAheadBlocks * L);
        VU cell[D];
        VF frac[D];
        load_cells(i0, count, cell, frac);
        VF acc[F];
        for (int f = 0; f < F; ++f) acc[f] = zero;
#if HWY_TARGET != HWY_SCALAR
        if constexpr (F == 2 && D == 3) {
            // Corners in x-pairs, sample by sample: one 128-bit vector (f0, f1 at x; f0, f1 at
            // x + 1) per pair from two 8-byte loads (one 16-byte load on a dense level), weighted
            // by [1-fx, 1-fx, fx, fx] times the pair's y-z weight. Scalar loads beat AVX-512
            // gathers here: 1.1-1.45x on bench-kernels' ForwardLevelsRays (AMD EPYC, Zen 4).
            const hn::Full128<float> d4;
            const hn::Full128<uint64_t> d2;
            auto entry = [&](uint32_t idx) {  // an entry's two floats as one 8-byte value
                uint64_t v;
                std::memcpy(&v, table + size_t(idx) * 2, sizeof v);
                return hn::Set(d2, v);
            };
            HWY_ALIGN uint32_t idx_buf[kCorners][kMaxLanes];
            HWY_ALIGN float wyz_buf[4][kMaxLanes];
            HWY_ALIGN float fx_buf[kMaxLanes];
            for (int c = 0; c < kCorners; ++c) {
                VU idx;
                VF w;
                CornerOf<D>(df, du, c, cell, frac, verts, dense_mask, mask, idx, w);
                hn::Store(idx, du, idx_buf[c]);
            }
            for (int j = 0; j < 4; ++j) {
                const VF wy = (j & 1) ? frac[1] : hn::Sub(one, frac[1]);
                const VF wz = (j & 2) ? frac[2] : hn::Sub(one, frac[2]);
                hn::Store(hn::Mul(wy, wz), df, wyz_buf[j]);
            }
            hn::Store(frac[0], df, fx_buf);
            HWY_ALIGN static constexpr float kLowHalf[4] = {1.0f, 1.0f, 0.0f, 0.0f};
            const auto lowv = hn::Load(d4, kLowHalf);
            const auto sign = hn::Sub(hn::Set(d4, 1.0f), hn::Add(lowv, lowv));  // [-1, -1, 1, 1]
            float* dst0 = out + size_t(level * F) * out_stride + i0;
            float* dst1 = dst0 + out_stride;
            for (size_t k = 0; k < count; ++k) {
                const auto wx =
                    hn::MulAdd(sign, hn::Set(d4, fx_buf[k]), lowv);  // [1-fx, 1-fx, fx, fx]
                auto a = hn::Zero(d4);
                if (hashed) {
                    for (int j = 0; j < 4; ++j) {
                        const auto v =
                            hn::BitCast(d4, hn::InterleaveLower(d2, entry(idx_buf[2 * j][k]),
                                                                entry(idx_buf[2 * j + 1][k])));
                        a = hn::MulAdd(hn::Mul(hn::Set(d4, wyz_buf[j][k]), wx), v, a);
                    }
                } else {  // a dense level's x + 1 is the next entry: one load per pair
                    for (int j = 0; j < 4; ++j) {
                        const auto v = hn::LoadU(d4, table + size_t(idx_buf[2 * j][k]) * 2);
                        a = hn::MulAdd(hn::Mul(hn::Set(d4, wyz_buf[j][k]), wx), v, a);
                    }
                }
                HWY_ALIGN float r[4];
                hn::Store(a, d4, r);
                dst0[k] = r[0] + r[2];
                dst1[k] = r[1] + r[3];
            }
            continue;
        }
        if constexpr (F == 2) {
            // An entry's two features are one 8-byte element: gather half as many elements
            // (samples [0, L/2) in `lo`, the rest in `hi`, as (f0, f1) pairs), then split.
            const hn::Repartition<uint64_t, decltype(df)> du64;
            const hn::RebindToSigned<decltype(du64)> di64;
            const hn::Half<decltype(du)> duh;
            const auto* table64 = reinterpret_cast<const uint64_t*>(table);
            auto pairs_of = [&](hn::Vec<decltype(duh)> half) {
                const auto w64 = hn::PromoteTo(du64, half);
                return hn::BitCast(df, hn::Or(w64, hn::ShiftLeft<32>(w64)));
            };
            VF acc_lo = zero, acc_hi = zero;
            for (int c = 0; c < kCorners; ++c) {
                VU idx;
                VF w;
                CornerOf<D>(df, du, c, cell, frac, verts, dense_mask, mask, idx, w);
                const auto lo = hn::BitCast(di64, hn::PromoteTo(du64, hn::LowerHalf(duh, idx)));
                const auto hi = hn::BitCast(di64, hn::PromoteTo(du64, hn::UpperHalf(duh, idx)));
                const VU wbits = hn::BitCast(du, w);
                acc_lo = hn::MulAdd(pairs_of(hn::LowerHalf(duh, wbits)),
                                    hn::BitCast(df, hn::GatherIndex(du64, table64, lo)), acc_lo);
                acc_hi = hn::MulAdd(pairs_of(hn::UpperHalf(duh, wbits)),
                                    hn::BitCast(df, hn::GatherIndex(du64, table64, hi)), acc_hi);
            }
            acc[0] = hn::ConcatEven(df, acc_hi, acc_lo);
            acc[1] = hn::ConcatOdd(df, acc_hi, acc_lo);
        } else
#endif
        {
            for (int c = 0; c < kCorners; ++c) {
                VU idx;
                VF w;
                CornerOf<D>(df, du, c, cell, frac, verts, dense_mask, mask, idx, w);
                const auto base = hn::BitCast(di, hn::Mul(idx, hn::Set(du, uint32_t(F))));
                for (int f = 0; f < F; ++f)
                    acc[f] = hn::MulAdd(w, hn::GatherIndex(df, table + f, base), acc[f]);
            }
        }
        for (int f = 0; f < F; ++f) {
            float* dst = out + size_t(level * F + f) * out_stride + i0;
            if (count == L) {
                hn::StoreU(acc[f], df, dst);
            } else {
                hn::Store(acc[f], df, out_buf[f]);
                std::memcpy(dst, out_buf[f], sizeof(float) * count);
            }
        }
    }
}

void HashGridForwardLevel(const HashGridLanes& g, int level, const float* params,
                          const float* positions, size_t n, float* out, size_t out_stride) {
    const int key = g.n_dims * 10 + g.n_features;
    switch (key) {
        case 21:
            return ForwardLevelImpl<2, 1>(g, level, params, positions, n, out, out_stride);
        case 22:
            return ForwardLevelImpl<2, 2>(g, level, params, positions, n, out, out_stride);
        case 24:
            return ForwardLevelImpl<2, 4>(g, level, params, positions, n, out, out_stride);
        case 28:
            return ForwardLevelImpl<2, 8>(g, level, params, positions, n, out, out_stride);
        case 31:
            return ForwardLevelImpl<3, 1>(g, level, params, positions, n, out, out_stride);
        case 32:
            return ForwardLevelImpl<3, 2>(g, level, params, positions, n, out, out_stride);
        case 34:
            return ForwardLevelImpl<3, 4>(g, level, params, positions, n, out, out_stride);
        default:
            return ForwardLevelImpl<3, 8>(g, level, params, positions, n, out, out_stride);
    }
}

template <int D, int F>
void BackwardImpl(const HashGridLanes& g, int level, const float* positions, size_t n,
                  const float* d_enc, size_t d_stride, float* grad) {
    const hn::ScalableTag<float> df;
    const hn::RebindToSigned<decltype(df)> di;
    const hn::RebindToUnsigned<decltype(df)> du;
    using VF = hn::Vec<decltype(df)>;
    using VU = hn::Vec<decltype(du)>;
    const size_t L = hn::Lanes(df);
    constexpr int kCorners = 1 << D;
    constexpr size_t kMaxLanes = HWY_MAX_BYTES / sizeof(float);
    HWY_ALIGN uint32_t idx_buf[kCorners][kMaxLanes];
    HWY_ALIGN float pos_buf[3][kMaxLanes];

    const VF scale = hn::Set(df, g.scale[level]);
    const uint32_t verts_s = g.vertices[level];
    const VU verts = hn::Set(du, verts_s);
    const auto max_cell = hn::Set(di, int32_t(verts_s) - 2);
    const auto dense_mask = hn::Ne(hn::Set(du, g.dense[level]), hn::Zero(du));
    const VU mask = hn::Set(du, g.mask[level]);
    float* table = grad + size_t(g.offset[level]) * F;
    const VF zero = hn::Zero(df), one = hn::Set(df, 1.0f);

    // w_c * dL/d(feature f) per lane: prod[c][f * kMaxLanes + lane], or for F = 2 as
    // (f0, f1) pairs, prod[c][2 * lane + f].
    HWY_ALIGN float prod[kCorners][F * kMaxLanes];

    // Hashed levels miss the caches: prefetch the next block's entries (one per x-pair) before
    // scattering this block, so the misses overlap with the adds.
    const bool hashed = g.dense[level] == 0;
    HWY_ALIGN uint32_t ahead_idx[kMaxLanes];
    HWY_ALIGN float ahead_pos[3][kMaxLanes];
    auto prefetch_block = [&](size_t j0) {
        const size_t count = std::min(L, n - j0);
        for (int d = 0; d < D; ++d)
            for (size_t k = 0; k < L; ++k)
                ahead_pos[d][k] = k < count ? positions[(j0 + k) * D + d] : 0.0f;
        VU cell[D];
        VF frac[D];
        for (int d = 0; d < D; ++d) {
            const VF x = hn::Mul(hn::Min(hn::Max(hn::Load(df, ahead_pos[d]), zero), one), scale);
            cell[d] = hn::BitCast(du, hn::Min(hn::ConvertTo(di, x), max_cell));
            frac[d] = zero;
        }
        for (int c = 0; c < kCorners; c += 2) {
            VU idx;
            VF w;
            CornerOf<D>(df, du, c, cell, frac, verts, dense_mask, mask, idx, w);
            hn::Store(idx, du, ahead_idx);
            for (size_t k = 0; k < count; ++k)
                __builtin_prefetch(table + size_t(ahead_idx[k]) * F, 1, 3);
        }
    };

    constexpr size_t kAheadBlocks = 2;
    for (size_t i0 = 0; i0 < n; i0 += L) {
        const size_t count = std::min(L, n - i0);
        if (hashed && D == 3 && i0 + kAheadBlocks * L < n) prefetch_block(i0 + kAheadBlocks * L);
        VF pv[3];
        if (count == L && D == 3) {
            hn::LoadInterleaved3(df, positions + i0 * 3, pv[0], pv[1], pv[2]);
        } else {
            for (int d = 0; d < D; ++d) {
                for (size_t k = 0; k < L; ++k)
                    pos_buf[d][k] = k < count ? positions[(i0 + k) * D + d] : 0.0f;
                pv[d] = hn::Load(df, pos_buf[d]);
            }
        }
        VU cell[D];
        VF frac[D];
        for (int d = 0; d < D; ++d) {
            const VF p = hn::Min(hn::Max(pv[d], zero), one);
            const VF x = hn::Mul(p, scale);
            const auto ci = hn::Min(hn::ConvertTo(di, x), max_cell);
            cell[d] = hn::BitCast(du, ci);
            frac[d] = hn::Sub(x, hn::ConvertTo(df, ci));
        }
        VF grad_in[F];
        for (int f = 0; f < F; ++f) {
            const float* g = d_enc + size_t(level * F + f) * d_stride + i0;
            if (count == L) {
                grad_in[f] = hn::LoadU(df, g);
            } else {
                for (size_t k = 0; k < L; ++k) pos_buf[0][k] = k < count ? g[k] : 0.0f;
                grad_in[f] = hn::Load(df, pos_buf[0]);
            }
        }
        for (int c = 0; c < kCorners; ++c) {
            VU idx;
            VF w;
            CornerOf<D>(df, du, c, cell, frac, verts, dense_mask, mask, idx, w);
            hn::Store(idx, du, idx_buf[c]);
            if constexpr (F == 2) {  // pairs, so one 8-byte add updates a whole entry
                hn::StoreInterleaved2(hn::Mul(w, grad_in[0]), hn::Mul(w, grad_in[1]), df, prod[c]);
            } else {
                for (int f = 0; f < F; ++f)
                    hn::Store(hn::Mul(w, grad_in[f]), df, prod[c] + f * kMaxLanes);
            }
        }
        // Scatter in sample order, as the reference: deterministic for a given input.
        // A pair of lanes updates a whole F = 2 entry; a 1-lane target (HWY_SCALAR) has no pairs,
        // and the general loop below reads the same interleaved layout for it.
        const hn::CappedTag<float, 2> d2;
        if (F == 2 && hn::Lanes(d2) == 2) {
            for (size_t k = 0; k < count; ++k)
                for (int c = 0; c < kCorners; ++c) {
                    float* entry = table + size_t(idx_buf[c][k]) * 2;
                    hn::StoreU(hn::Add(hn::LoadU(d2, entry), hn::LoadU(d2, prod[c] + 2 * k)), d2,
                               entry);
                }
        } else if constexpr (F == 2) {
            for (size_t k = 0; k < count; ++k)
                for (int c = 0; c < kCorners; ++c) {
                    float* entry = table + size_t(idx_buf[c][k]) * 2;
                    entry[0] += prod[c][2 * k];
                    entry[1] += prod[c][2 * k + 1];
                }
        } else {
            for (size_t k = 0; k < count; ++k)
                for (int c = 0; c < kCorners; ++c) {
                    float* entry = table + size_t(idx_buf[c][k]) * F;
                    for (int f = 0; f < F; ++f) entry[f] += prod[c][f * kMaxLanes + k];
                }
        }
    }
}

void HashGridBackward(const HashGridLanes& g, int level, const float* positions, size_t n,
                      const float* d_enc, size_t d_stride, float* grad) {
    const int key = g.n_dims * 10 + g.n_features;
    switch (key) {
        case 21:
            return BackwardImpl<2, 1>(g, level, positions, n, d_enc, d_stride, grad);
        case 22:
            return BackwardImpl<2, 2>(g, level, positions, n, d_enc, d_stride, grad);
        case 24:
            return BackwardImpl<2, 4>(g, level, positions, n, d_enc, d_stride, grad);
        case 28:
            return BackwardImpl<2, 8>(g, level, positions, n, d_enc, d_stride, grad);
        case 31:
            return BackwardImpl<3, 1>(g, level, positions, n, d_enc, d_stride, grad);
        case 32:
            return BackwardImpl<3, 2>(g, level, positions, n, d_enc, d_stride, grad);
        case 34:
            return BackwardImpl<3, 4>(g, level, positions, n, d_enc, d_stride, grad);
        default:
            return BackwardImpl<3, 8>(g, level, positions, n, d_enc, d_stride, grad);
    }
}

}  // namespace HWY_NAMESPACE
}  // namespace radiant
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace radiant {

HWY_EXPORT(HashGridForward);
HWY_EXPORT(HashGridBackward);
HWY_EXPORT(HashGridForwardLevel);

void hash_grid_forward_simd(const HashGridLanes& lanes, int n_levels, const float* params,
                            const float* positions, size_t n, float* out, size_t out_stride) {
    HWY_DYNAMIC_DISPATCH(HashGridForward)(lanes, n_levels, params, positions, n, out, out_stride);
}

void hash_grid_forward_level_simd(const HashGridLanes& lanes, int level, const float* params,
                                  const float* positions, size_t n, float* out, size_t out_stride) {
    HWY_DYNAMIC_DISPATCH(HashGridForwardLevel)(lanes, level, params, positions, n, out, out_stride);
}

void hash_grid_backward_simd(const HashGridLanes& lanes, int level, const float* positions,
                             size_t n, const float* d_enc, size_t d_stride, float* grad) {
    HWY_DYNAMIC_DISPATCH(HashGridBackward)(lanes, level, positions, n, d_enc, d_stride, grad);
}

}  // namespace radiant
#endif  // HWY_ONCE
