// Lane id and a global-memory fence through inline PTX, each under a CUDA-only guard with a
// portable branch: hipify must leave the assembly alone and only warn.
extern "C" __global__ void lane_ids(int* out) {
    unsigned lane;
#ifdef __CUDA_ARCH__
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
#else
    lane = threadIdx.x % warpSize;
#endif
    out[blockIdx.x * blockDim.x + threadIdx.x] = (int)lane;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
    asm volatile("fence.acq_rel.gpu;" ::: "memory");
#else
    __threadfence();
#endif
}
