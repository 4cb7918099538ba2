// BF16 matrix products for the fused MLP's mixed-precision path: bf16 inputs, fp32
// accumulation, fp32 master weights. Two backends, picked once per process: Intel AMX tiles
// (Sapphire Rapids and later), else AVX512-BF16 dot products (`vdpbf16ps`: AMD Zen 4 and later,
// Cooper Lake), which run ~1.9x the fp32 FMA rate on Zen 4 (BENCHMARKS.md, peak probe).
// (The namespace and file keep the name of the first backend.)
//
// Operand layouts (bf16 stored as uint16_t):
//   A: row-major [M][K] (lda elements per row);
//   B: "VNNI" pairs [K/2][N][2]: element (k, n) at ((k/2) * N + n) * 2 + k%2;
//   C: fp32 row-major [M][N] (ldc floats per row).
// M and N must be multiples of 16, K a multiple of 32 (the AMX tile shapes; the AVX512-BF16
// kernel would take any even M and K).
#pragma once

#include <cstddef>
#include <cstdint>

namespace radiant::amx {

enum class Bf16Backend { kNone, kAmx, kAvx512 };
// kAmx when the CPU has AMX-BF16 and AVX512-BF16 and the OS grants the tile state; else kAvx512
// when it has AVX512-BF16; else kNone (the MLP then runs fp32).
Bf16Backend backend();
const char* backend_name();  // "AMX", "AVX512-BF16" or "none"
bool available();            // backend() != kNone

// C (+)= A * B on backend().
void matmul(size_t M, size_t N, size_t K, const uint16_t* A, size_t lda, const uint16_t* B,
            float* C, size_t ldc, bool accumulate);
// The same on one named backend (tests and benchmarks compare them); the CPU must have it.
void matmul_amx(size_t M, size_t N, size_t K, const uint16_t* A, size_t lda, const uint16_t* B,
                float* C, size_t ldc, bool accumulate);
void matmul_avx512(size_t M, size_t N, size_t K, const uint16_t* A, size_t lda, const uint16_t* B,
                   float* C, size_t ldc, bool accumulate);

// Conversions from fp32 (rows x cols, `src_stride` floats per row; cols a multiple of 16).
// relu: clamp at zero first.
void to_bf16_rows(const float* src, size_t rows, size_t cols, size_t src_stride, uint16_t* dst,
                  size_t dst_stride, bool relu);
// The same from a strided source, element (r, c) at src[r * row_stride + c * col_stride] (the
// hash grid's feature-major encoding), with the same rounding.
void to_bf16_rows_strided(const float* src, size_t rows, size_t cols, size_t row_stride,
                          size_t col_stride, uint16_t* dst, size_t dst_stride);
// VNNI pairs of rows: dst[(r/2) * cols + c][r % 2] (rows even).
void to_bf16_vnni(const float* src, size_t rows, size_t cols, size_t src_stride, uint16_t* dst,
                  bool relu);
// bf16 row-major [rows][cols] (rows even) -> VNNI pairs of rows, as to_bf16_vnni.
void bf16_rows_to_vnni(const uint16_t* src, size_t rows, size_t cols, uint16_t* dst);
// d[r][c] = y[r][c] > 0 ? d[r][c] : 0 (ReLU backward), fp32, `stride` floats per row.
void relu_mask(float* d, const float* y, size_t rows, size_t cols, size_t stride);
// Transpose: dst[c * dst_stride + r] (rows a multiple of 32, dst_stride even).
void to_bf16_transposed(const float* src, size_t rows, size_t cols, size_t src_stride,
                        uint16_t* dst, size_t dst_stride);

// Scalar helpers (round to nearest even), for weight packing and tests.
uint16_t float_to_bf16(float x);
float bf16_to_float(uint16_t x);

}  // namespace radiant::amx
