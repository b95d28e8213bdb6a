// Maximum of each row with one warp per row, written with warpSize; __any_sync/__all_sync decide
// whether the row holds NaNs.
#include <cuda_runtime.h>
#include <float.h>

extern "C" __global__ void row_max(const float* x, float* out, int* has_nan, int rows, int cols) {
    int lane = threadIdx.x % warpSize;
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / warpSize;
    if (warp >= rows) return;

    float m = -FLT_MAX;
    bool nan_seen = false;
    for (int j = lane; j < cols; j += warpSize) {
        float v = x[(long long)warp * cols + j];
        nan_seen |= (v != v);
        m = fmaxf(m, v);
    }
    for (int mask = warpSize / 2; mask > 0; mask /= 2)
        m = fmaxf(m, __shfl_xor_sync(0xffffffff, m, mask));
    bool any_nan = __any_sync(0xffffffff, nan_seen);
    bool all_finite = __all_sync(0xffffffff, m < INFINITY);
    if (lane == 0) {
        out[warp] = m;
        has_nan[warp] = any_nan ? 1 : (all_finite ? 0 : 2);
    }
}
