// Sum of a float array: a warp reduction with __shfl_down_sync, then one atomicAdd per block.
#include <cuda_runtime.h>

#define FULL_MASK 0xffffffff

__inline__ __device__ float warpReduceSum(float val) {
    for (int offset = 16; offset > 0; offset /= 2)
        val += __shfl_down_sync(FULL_MASK, val, offset);
    return val;
}

extern "C" __global__ void block_sum(const float* __restrict__ in, float* out, int n) {
    __shared__ float partial[32];  // one slot per warp
    int lane = threadIdx.x % 32;
    int warp_id = threadIdx.x / 32;
    int num_warps = (blockDim.x + 31) / 32;

    float sum = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        sum += in[i];
    sum = warpReduceSum(sum);
    if (lane == 0) partial[warp_id] = sum;
    __syncthreads();

    if (warp_id == 0) {
        sum = (lane < num_warps) ? partial[lane] : 0.0f;
        sum = warpReduceSum(sum);
        if (lane == 0) atomicAdd(out, sum);
    }
}
