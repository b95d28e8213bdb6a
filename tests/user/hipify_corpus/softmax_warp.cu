// Row softmax for rows of up to 1024 columns, one warp per row: max and sum through butterfly
// shuffles, a template over the element count per lane.
#include <cuda_runtime.h>
#include <math_constants.h>

#define WARP_SIZE 32

template <int ITEMS>
__global__ void softmax_rows(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
    const int lane = threadIdx.x & (WARP_SIZE - 1);
    const int row = blockIdx.x * (blockDim.x / WARP_SIZE) + threadIdx.x / WARP_SIZE;
    if (row >= rows) return;
    float v[ITEMS];
    float m = -CUDART_INF_F;
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        int j = lane + k * WARP_SIZE;
        v[k] = j < cols ? x[(long long)row * cols + j] : -CUDART_INF_F;
        m = fmaxf(m, v[k]);
    }
#pragma unroll
    for (int o = WARP_SIZE / 2; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xFFFFFFFF, m, o));
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        v[k] = __expf(v[k] - m);
        s += v[k];
    }
#pragma unroll
    for (int o = WARP_SIZE / 2; o > 0; o >>= 1) s += __shfl_xor_sync(0xFFFFFFFF, s, o);
    __syncwarp();
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        int j = lane + k * WARP_SIZE;
        if (j < cols) y[(long long)row * cols + j] = v[k] / s;
    }
}
// instantiate: softmax_rows<1>
// instantiate: softmax_rows<4>
