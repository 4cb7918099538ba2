// BF16 matrix products on Intel AMX (Sapphire Rapids and later), for the fused MLP's
// optional mixed-precision path: bf16 inputs, fp32 accumulation, fp32 master weights.
//
// Operand layouts (bf16 stored as uint16_t):
//   A: row-major [M][K] (lda elements per row);
//   B: "VNNI" pairs [K/2][N][2]: element (k, n) at ((k/2) * N + n) * 2 + k%2;
//   C: fp32 row-major [M][N] (ldc floats per row).
// M and N must be multiples of 16, K a multiple of 32.
#pragma once

#include <cstddef>
#include <cstdint>

namespace radiant::amx {

// True when the CPU has AMX-BF16 and AVX512-BF16 and the OS grants the tile state.
bool available();

// C (+)= A * B.
void matmul(size_t M, size_t N, size_t K, const uint16_t* A, size_t lda, const uint16_t* B,
            float* C, size_t ldc, bool accumulate);

// Conversions from fp32 (rows x cols, `src_stride` floats per row; cols a multiple of 16).
// relu: clamp at zero first.
void to_bf16_rows(const float* src, size_t rows, size_t cols, size_t src_stride, uint16_t* dst,
                  size_t dst_stride, bool relu);
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
