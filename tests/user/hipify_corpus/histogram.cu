// 256-bin histogram of bytes: shared-memory privatization with block-scope atomics, merged with
// device atomics.
#include <cuda_runtime.h>
#include <cstdint>

#define BINS 256

extern "C" __global__ void histogram256(const uint8_t* __restrict__ data, size_t n,
                                        unsigned int* __restrict__ hist) {
    __shared__ unsigned int local[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) local[b] = 0;
    __syncthreads();

    size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        atomicAdd_block(&local[data[i]], 1u);
    __syncthreads();

    for (int b = threadIdx.x; b < BINS; b += blockDim.x) {
        unsigned int c = local[b];
        if (c) atomicAdd(&hist[b], c);
    }
}
