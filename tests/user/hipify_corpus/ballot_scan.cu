// Block-wide exclusive scan of flags (stream compaction): __ballot_sync and __popc per warp,
// a shuffle scan of the warp totals.
#include <cuda_runtime.h>
#include <stdint.h>

extern "C" __global__ void compact_positive(const float* in, float* out, uint32_t* count, int n) {
    __shared__ int warp_totals[32];
    __shared__ int block_base;
    const unsigned lane = threadIdx.x & 31;
    const unsigned warp = threadIdx.x >> 5;
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const bool keep = i < n && in[i] > 0.0f;

    unsigned mask = __ballot_sync(0xffffffff, keep);
    unsigned lanemask_lt = (1u << lane) - 1;
    int rank = __popc(mask & lanemask_lt);   // position among the kept values of this warp
    if (lane == 0) warp_totals[warp] = __popc(mask);
    __syncthreads();

    if (warp == 0) {
        int nwarps = blockDim.x / 32;
        int total = lane < nwarps ? warp_totals[lane] : 0;
        // inclusive scan of the warp totals
        for (int d = 1; d < 32; d <<= 1) {
            int up = __shfl_up_sync(0xffffffff, total, d);
            if (lane >= d) total += up;
        }
        if (lane < nwarps) warp_totals[lane] = total;
        if (lane == 31) block_base = atomicAdd(count, (uint32_t)total);
    }
    __syncthreads();

    int before = warp == 0 ? 0 : warp_totals[warp - 1];
    if (keep) out[block_base + before + rank] = in[i];
}
