// (GCC 12 reports false "may be used uninitialized" warnings inside avx512fintrin.h.)
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
// Intel AMX kernels. Compiled with per-function target attributes so the rest of the build
// stays portable; callers must check available() first.
#include "nn/amx.h"

#include <cstring>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "core/error.h"

namespace radiant::amx {

uint16_t float_to_bf16(float x) {
    uint32_t u;
    std::memcpy(&u, &x, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u) return uint16_t((u >> 16) | 0x40);  // quiet NaN
    u += 0x7fffu + ((u >> 16) & 1u);
    return uint16_t(u >> 16);
}

float bf16_to_float(uint16_t x) {
    uint32_t u = uint32_t(x) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

#if defined(__x86_64__)

#define RD_AMX_TARGET \
    __attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16,amx-tile,amx-bf16")))
#define RD_BF16_TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16")))

namespace {

bool cpu_has_amx() {
    unsigned a, b, c, d;
    __asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(7), "c"(0));
    const bool amx_bf16 = (d >> 22) & 1, amx_tile = (d >> 24) & 1, avx512bw = (b >> 30) & 1;
    __asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(7), "c"(1));
    const bool avx512_bf16 = (a >> 5) & 1;
    return amx_bf16 && amx_tile && avx512bw && avx512_bf16;
}

bool request_tile_permission() {
    constexpr long kArchReqXcompPerm = 0x1023, kXfeatureXtiledata = 18;
    return syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0;
}

struct TileConfig {
    uint8_t palette_id;
    uint8_t start_row;
    uint8_t reserved[14];
    uint16_t colsb[16];
    uint8_t rows[16];
};

// Every tile is 16 rows x 64 bytes: C 16x16 fp32, A 16x32 bf16, B 16 pairs x 16 columns.
RD_AMX_TARGET void configure_tiles_once() {
    thread_local bool configured = false;
    if (configured) return;
    TileConfig cfg;
    std::memset(&cfg, 0, sizeof(cfg));
    cfg.palette_id = 1;
    for (int t = 0; t < 8; ++t) {
        cfg.rows[t] = 16;
        cfg.colsb[t] = 64;
    }
    _tile_loadconfig(&cfg);
    configured = true;
}

// One 16-row block of C across NT column tiles (NT <= 4): tiles 0..NT-1 accumulate,
// tile 4 holds A, tiles 5 and 6 alternate B.
template <int NT>
RD_AMX_TARGET inline void block_row(size_t K, const uint16_t* A, size_t lda, const uint16_t* B,
                                    size_t N, float* C, size_t ldc, bool accumulate) {
    const size_t a_stride = lda * 2, b_stride = N * 4, c_stride = ldc * 4;
    if (accumulate) {
        _tile_loadd(0, C, c_stride);
        if constexpr (NT > 1) _tile_loadd(1, C + 16, c_stride);
        if constexpr (NT > 2) _tile_loadd(2, C + 32, c_stride);
        if constexpr (NT > 3) _tile_loadd(3, C + 48, c_stride);
    } else {
        _tile_zero(0);
        if constexpr (NT > 1) _tile_zero(1);
        if constexpr (NT > 2) _tile_zero(2);
        if constexpr (NT > 3) _tile_zero(3);
    }
    for (size_t k = 0; k < K; k += 32) {
        _tile_loadd(4, A + k, a_stride);
        const uint16_t* b = B + (k / 2) * N * 2;  // row k/2 of the pair layout
        _tile_loadd(5, b, b_stride);
        _tile_dpbf16ps(0, 4, 5);
        if constexpr (NT > 1) {
            _tile_loadd(6, b + 32, b_stride);
            _tile_dpbf16ps(1, 4, 6);
        }
        if constexpr (NT > 2) {
            _tile_loadd(5, b + 64, b_stride);
            _tile_dpbf16ps(2, 4, 5);
        }
        if constexpr (NT > 3) {
            _tile_loadd(6, b + 96, b_stride);
            _tile_dpbf16ps(3, 4, 6);
        }
    }
    _tile_stored(0, C, c_stride);
    if constexpr (NT > 1) _tile_stored(1, C + 16, c_stride);
    if constexpr (NT > 2) _tile_stored(2, C + 32, c_stride);
    if constexpr (NT > 3) _tile_stored(3, C + 48, c_stride);
}

// kRows x kVecs vectors of C in registers across the whole K loop: per pair of k, kVecs loads
// of B pairs, kRows broadcasts of an A pair, kRows * kVecs vdpbf16ps (32 products each).
template <int kRows, int kVecs>
RD_BF16_TARGET inline void dot_block(size_t K, const uint16_t* A, size_t lda, const uint16_t* B,
                                     size_t N, float* C, size_t ldc, bool accumulate) {
    __m512 c[kRows][kVecs];
    for (int r = 0; r < kRows; ++r)
        for (int v = 0; v < kVecs; ++v)
            c[r][v] = accumulate ? _mm512_loadu_ps(C + r * ldc + v * 16) : _mm512_setzero_ps();
    for (size_t k = 0; k < K; k += 2) {
        const uint16_t* b = B + (k / 2) * N * 2;
        __m512bh bv[kVecs];
        for (int v = 0; v < kVecs; ++v) bv[v] = (__m512bh)_mm512_loadu_si512(b + v * 32);
        for (int r = 0; r < kRows; ++r) {
            uint32_t pair;
            std::memcpy(&pair, A + r * lda + k, 4);
            const __m512bh av = (__m512bh)_mm512_set1_epi32(int(pair));
            for (int v = 0; v < kVecs; ++v) c[r][v] = _mm512_dpbf16_ps(c[r][v], av, bv[v]);
        }
    }
    for (int r = 0; r < kRows; ++r)
        for (int v = 0; v < kVecs; ++v) _mm512_storeu_ps(C + r * ldc + v * 16, c[r][v]);
}

// One panel of kVecs column vectors over all M rows (M even): blocks of kRows, then 4 and 2.
template <int kRows, int kVecs>
RD_BF16_TARGET inline void dot_panel(size_t M, size_t K, const uint16_t* A, size_t lda,
                                     const uint16_t* B, size_t N, float* C, size_t ldc,
                                     bool accumulate) {
    size_t m = 0;
    for (; m + kRows <= M; m += kRows)
        dot_block<kRows, kVecs>(K, A + m * lda, lda, B, N, C + m * ldc, ldc, accumulate);
    if constexpr (kRows > 4) {
        for (; m + 4 <= M; m += 4)
            dot_block<4, kVecs>(K, A + m * lda, lda, B, N, C + m * ldc, ldc, accumulate);
    }
    for (; m + 2 <= M; m += 2)
        dot_block<2, kVecs>(K, A + m * lda, lda, B, N, C + m * ldc, ldc, accumulate);
}

bool cpu_has_avx512_bf16() {
    return __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
           __builtin_cpu_supports("avx512bf16");
}

Bf16Backend detect_backend() {
    if (cpu_has_amx() && request_tile_permission()) return Bf16Backend::kAmx;
    if (cpu_has_avx512_bf16()) return Bf16Backend::kAvx512;
    return Bf16Backend::kNone;
}

}  // namespace

Bf16Backend backend() {
    static const Bf16Backend b = detect_backend();
    return b;
}

RD_BF16_TARGET void matmul_avx512(size_t M, size_t N, size_t K, const uint16_t* A, size_t lda,
                                  const uint16_t* B, float* C, size_t ldc, bool accumulate) {
    RD_DCHECK(M % 2 == 0 && N % 16 == 0 && K % 2 == 0);
    size_t n = 0;
    for (; n + 64 <= N; n += 64)
        dot_panel<6, 4>(M, K, A, lda, B + n * 2, N, C + n, ldc, accumulate);
    for (; n + 32 <= N; n += 32)
        dot_panel<8, 2>(M, K, A, lda, B + n * 2, N, C + n, ldc, accumulate);
    for (; n < N; n += 16) dot_panel<8, 1>(M, K, A, lda, B + n * 2, N, C + n, ldc, accumulate);
}

void matmul(size_t M, size_t N, size_t K, const uint16_t* A, size_t lda, const uint16_t* B,
            float* C, size_t ldc, bool accumulate) {
    switch (backend()) {
        case Bf16Backend::kAmx:
            return matmul_amx(M, N, K, A, lda, B, C, ldc, accumulate);
        case Bf16Backend::kAvx512:
            return matmul_avx512(M, N, K, A, lda, B, C, ldc, accumulate);
        case Bf16Backend::kNone:
            break;
    }
    RD_CHECK_MSG(false, "bf16 matrix products are not available on this CPU");
}

RD_AMX_TARGET void matmul_amx(size_t M, size_t N, size_t K, const uint16_t* A, size_t lda,
                              const uint16_t* B, float* C, size_t ldc, bool accumulate) {
    RD_DCHECK(M % 16 == 0 && N % 16 == 0 && K % 32 == 0);
    RD_CHECK(backend() == Bf16Backend::kAmx);
    configure_tiles_once();
    for (size_t m = 0; m < M; m += 16) {
        const uint16_t* a = A + m * lda;
        float* c = C + m * ldc;
        size_t n = 0;
        for (; n + 64 <= N; n += 64) block_row<4>(K, a, lda, B + n * 2, N, c + n, ldc, accumulate);
        switch ((N - n) / 16) {
            case 1:
                block_row<1>(K, a, lda, B + n * 2, N, c + n, ldc, accumulate);
                break;
            case 2:
                block_row<2>(K, a, lda, B + n * 2, N, c + n, ldc, accumulate);
                break;
            case 3:
                block_row<3>(K, a, lda, B + n * 2, N, c + n, ldc, accumulate);
                break;
            default:
                break;
        }
    }
}

RD_AMX_TARGET void to_bf16_rows(const float* src, size_t rows, size_t cols, size_t src_stride,
                                uint16_t* dst, size_t dst_stride, bool relu) {
    const __m512 zero = _mm512_setzero_ps();
    for (size_t r = 0; r < rows; ++r)
        for (size_t c = 0; c < cols; c += 16) {
            __m512 v = _mm512_loadu_ps(src + r * src_stride + c);
            if (relu) v = _mm512_max_ps(v, zero);
            __m256bh h = _mm512_cvtneps_pbh(v);
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + r * dst_stride + c), (__m256i)h);
        }
}

RD_AMX_TARGET void to_bf16_rows_strided(const float* src, size_t rows, size_t cols,
                                        size_t row_stride, size_t col_stride, uint16_t* dst,
                                        size_t dst_stride) {
    alignas(64) float lanes[16];
    for (size_t r = 0; r < rows; ++r)
        for (size_t c = 0; c < cols; c += 16) {
            for (size_t k = 0; k < 16; ++k) lanes[k] = src[r * row_stride + (c + k) * col_stride];
            __m256bh h = _mm512_cvtneps_pbh(_mm512_load_ps(lanes));
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + r * dst_stride + c), (__m256i)h);
        }
}

RD_AMX_TARGET void to_bf16_vnni(const float* src, size_t rows, size_t cols, size_t src_stride,
                                uint16_t* dst, bool relu) {
    const __m512 zero = _mm512_setzero_ps();
    // Interleave 16-bit lanes: [a0, b0, a1, b1, ...] from [a0..a15, b0..b15].
    alignas(64) static const uint16_t kIdx[32] = {0,  16, 1,  17, 2,  18, 3,  19, 4,  20, 5,
                                                  21, 6,  22, 7,  23, 8,  24, 9,  25, 10, 26,
                                                  11, 27, 12, 28, 13, 29, 14, 30, 15, 31};
    const __m512i idx = _mm512_load_si512(kIdx);
    for (size_t r = 0; r < rows; r += 2)
        for (size_t c = 0; c < cols; c += 16) {
            __m512 a = _mm512_loadu_ps(src + r * src_stride + c);
            __m512 b = _mm512_loadu_ps(src + (r + 1) * src_stride + c);
            if (relu) {
                a = _mm512_max_ps(a, zero);
                b = _mm512_max_ps(b, zero);
            }
            __m512i ab = (__m512i)_mm512_cvtne2ps_pbh(b, a);
            _mm512_storeu_si512(dst + ((r / 2) * cols + c) * 2, _mm512_permutexvar_epi16(idx, ab));
        }
}

RD_AMX_TARGET void bf16_rows_to_vnni(const uint16_t* src, size_t rows, size_t cols, uint16_t* dst) {
    alignas(64) static const uint16_t kIdx[32] = {0,  16, 1,  17, 2,  18, 3,  19, 4,  20, 5,
                                                  21, 6,  22, 7,  23, 8,  24, 9,  25, 10, 26,
                                                  11, 27, 12, 28, 13, 29, 14, 30, 15, 31};
    const __m512i idx = _mm512_load_si512(kIdx);
    for (size_t r = 0; r < rows; r += 2)
        for (size_t c = 0; c < cols; c += 16) {
            __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + r * cols + c));
            __m256i b =
                _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + (r + 1) * cols + c));
            __m512i ab = _mm512_inserti64x4(_mm512_castsi256_si512(a), b, 1);
            _mm512_storeu_si512(dst + ((r / 2) * cols + c) * 2, _mm512_permutexvar_epi16(idx, ab));
        }
}

RD_AMX_TARGET void relu_mask(float* d, const float* y, size_t rows, size_t cols, size_t stride) {
    const __m512 zero = _mm512_setzero_ps();
    for (size_t r = 0; r < rows; ++r)
        for (size_t c = 0; c < cols; c += 16) {
            const __mmask16 keep =
                _mm512_cmp_ps_mask(_mm512_loadu_ps(y + r * stride + c), zero, _CMP_GT_OQ);
            float* p = d + r * stride + c;
            _mm512_storeu_ps(p, _mm512_maskz_mov_ps(keep, _mm512_loadu_ps(p)));
        }
}

// 16x16 transpose of 32-bit elements in registers: 32-bit and 64-bit interleaves inside
// 128-bit lanes, then two rounds of lane shuffles.
RD_AMX_TARGET inline void transpose16x16_32(const uint32_t* src, size_t src_stride, uint32_t* dst,
                                            size_t dst_stride) {
    __m512i r[16], t[16], u[16];
    for (int i = 0; i < 16; ++i) r[i] = _mm512_loadu_si512(src + i * src_stride);
    for (int i = 0; i < 8; ++i) {
        t[2 * i] = _mm512_unpacklo_epi32(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
    }
    for (int i = 0; i < 4; ++i) {
        u[4 * i] = _mm512_unpacklo_epi64(t[4 * i], t[4 * i + 2]);
        u[4 * i + 1] = _mm512_unpackhi_epi64(t[4 * i], t[4 * i + 2]);
        u[4 * i + 2] = _mm512_unpacklo_epi64(t[4 * i + 1], t[4 * i + 3]);
        u[4 * i + 3] = _mm512_unpackhi_epi64(t[4 * i + 1], t[4 * i + 3]);
    }
    // u[4g + k], lane L, holds column 4L + k of rows 4g..4g+3.
    for (int k = 0; k < 4; ++k) {
        const __m512i x0 = _mm512_shuffle_i32x4(u[k], u[4 + k], 0x88);
        const __m512i y0 = _mm512_shuffle_i32x4(u[8 + k], u[12 + k], 0x88);
        const __m512i x1 = _mm512_shuffle_i32x4(u[k], u[4 + k], 0xdd);
        const __m512i y1 = _mm512_shuffle_i32x4(u[8 + k], u[12 + k], 0xdd);
        _mm512_storeu_si512(dst + k * dst_stride, _mm512_shuffle_i32x4(x0, y0, 0x88));
        _mm512_storeu_si512(dst + (8 + k) * dst_stride, _mm512_shuffle_i32x4(x0, y0, 0xdd));
        _mm512_storeu_si512(dst + (4 + k) * dst_stride, _mm512_shuffle_i32x4(x1, y1, 0x88));
        _mm512_storeu_si512(dst + (12 + k) * dst_stride, _mm512_shuffle_i32x4(x1, y1, 0xdd));
    }
}

RD_AMX_TARGET void to_bf16_transposed(const float* src, size_t rows, size_t cols, size_t src_stride,
                                      uint16_t* dst, size_t dst_stride) {
    // A bf16 transpose is a 32-bit transpose of sample pairs: pack pairs of rows (VNNI,
    // [rows/2][cols] 32-bit units), then transpose those units into [cols][rows/2].
    thread_local std::vector<uint16_t> pairs;
    pairs.resize(rows * cols);
    to_bf16_vnni(src, rows, cols, src_stride, pairs.data(), false);
    const auto* p = reinterpret_cast<const uint32_t*>(pairs.data());
    auto* d = reinterpret_cast<uint32_t*>(dst);
    for (size_t r = 0; r < rows / 2; r += 16)
        for (size_t c = 0; c < cols; c += 16)
            transpose16x16_32(p + r * cols + c, cols, d + c * (dst_stride / 2) + r, dst_stride / 2);
}

#else  // not x86-64: AMX never available

Bf16Backend backend() { return Bf16Backend::kNone; }
void matmul(size_t, size_t, size_t, const uint16_t*, size_t, const uint16_t*, float*, size_t,
            bool) {
    RD_CHECK_MSG(false, "bf16 matrix products are not available on this architecture");
}
void matmul_amx(size_t, size_t, size_t, const uint16_t*, size_t, const uint16_t*, float*, size_t,
                bool) {
    RD_CHECK_MSG(false, "AMX is not available on this architecture");
}
void matmul_avx512(size_t, size_t, size_t, const uint16_t*, size_t, const uint16_t*, float*, size_t,
                   bool) {
    RD_CHECK_MSG(false, "AVX512-BF16 is not available on this architecture");
}
void to_bf16_rows(const float*, size_t, size_t, size_t, uint16_t*, size_t, bool) {
    RD_CHECK(false);
}
void to_bf16_vnni(const float*, size_t, size_t, size_t, uint16_t*, bool) { RD_CHECK(false); }
void to_bf16_rows_strided(const float*, size_t, size_t, size_t, size_t, uint16_t*, size_t) {
    RD_CHECK(false);
}
void to_bf16_transposed(const float*, size_t, size_t, size_t, uint16_t*, size_t) {
    RD_CHECK(false);
}
void bf16_rows_to_vnni(const uint16_t*, size_t, size_t, uint16_t*) { RD_CHECK(false); }
void relu_mask(float*, const float*, size_t, size_t, size_t) { RD_CHECK(false); }

#endif

bool available() { return backend() != Bf16Backend::kNone; }

const char* backend_name() {
    switch (backend()) {
        case Bf16Backend::kAmx:
            return "AMX";
        case Bf16Backend::kAvx512:
            return "AVX512-BF16";
        case Bf16Backend::kNone:
            break;
    }
    return "none";
}

}  // namespace radiant::amx
