// Test-only kernels for the emulator's own checks (tests/core/test_kernel_emu.py): what it must
// compute right, and the mistakes it must refuse loudly.

// Sum of x over the block: warp butterflies, the block reduction, a double atomicAdd per block.
RA_KERNEL void emu_check_block_sum(const double* x, ra_i64 n, double* out) {
    __shared__ double scratch[256 / RA_WARP_SIZE];
    const ra_i64 i = ra_global_thread_id();
    double v = i < n ? x[i] : 0.0;
    v = ra_block_reduce<256>(v, ra_op_sum(), scratch);
    if (threadIdx.x == 0) atomicAdd(out, v);
}

// Every shuffle direction and the ballot, lane by lane: out[4 * t + k].
RA_KERNEL void emu_check_shuffles(int* out) {
    const int lane = ra_lane_id();
    const int t = (int)ra_global_thread_id();
    out[4 * t + 0] = ra_shfl(lane * 10, (lane + 3) % RA_WARP_SIZE);
    out[4 * t + 1] = ra_shfl_down(lane * 10, 5u);
    out[4 * t + 2] = ra_shfl_up(lane * 10, 2u);
    out[4 * t + 3] = (int)(ra_ballot(lane % 3 == 0) & 0xffffffffu);
}

// Reverses each block's slice through dynamic shared memory; integer atomics on the side.
RA_KERNEL void emu_check_shared_atomics(const float* x, float* y, unsigned long long* stats) {
    extern __shared__ float emu_check_smem[];
    emu_check_smem[threadIdx.x] = x[ra_global_thread_id()];
    __syncthreads();
    y[ra_global_thread_id()] = emu_check_smem[blockDim.x - 1 - threadIdx.x];
    atomicAdd(stats, 1ull);
    atomicMax(stats + 1, (unsigned long long)ra_global_thread_id());
    atomicMin(stats + 2, (unsigned long long)ra_global_thread_id());
    atomicCAS(stats + 3, 0ull, 7ull);
}

// Bug: lanes past n leave before the warp reduction that reads them.
RA_KERNEL void emu_check_exited_lane(const double* x, int n, double* out) {
    if ((int)threadIdx.x >= n) return;
    const double v = ra_warp_reduce(x[threadIdx.x], ra_op_sum());
    if (threadIdx.x == 0) *out = v;
}

// Bug: half a warp waits at __syncthreads while the other half waits in a shuffle of the whole warp.
RA_KERNEL void emu_check_divergent_barrier(int* out) {
    if (ra_lane_id() < 16) __syncthreads();
    else out[threadIdx.x] = ra_shfl((int)threadIdx.x, 0);
}

// Bug: half a warp shuffles, the other half reaches a ballot.
RA_KERNEL void emu_check_mixed_collectives(int* out) {
    if (ra_lane_id() < 16) out[threadIdx.x] = ra_shfl((int)threadIdx.x, 0);
    else out[threadIdx.x] = (int)ra_ballot(1);
}

// Bug: only block 0 writes the shared array that every block reads.
RA_KERNEL void emu_check_uninitialized_shared(float* out) {
    __shared__ float s[32], unused;
    if (blockIdx.x == 0) s[threadIdx.x] = 1.0f;
    __syncthreads();
    out[ra_global_thread_id()] = s[threadIdx.x];
}

// A cooperative launch: every block marks its own static and dynamic shared memory, meets the
// others at a spin-wait grid barrier, then reports its shared memory and the next block's mark.
RA_KERNEL void emu_check_cooperative(unsigned* count, int* marks, int* out) {
    __shared__ int mine;
    extern __shared__ int dyn[];
    const int t = (int)threadIdx.x, g = (int)blockIdx.x, nb = (int)blockDim.x;
    if (t == 0) mine = g;
    dyn[t] = g * 1000 + t;
    marks[g * nb + t] = g + 1;
    __threadfence();
    __syncthreads();
    if (t == 0) {
        atomicAdd(count, 1u);
        while (*(volatile unsigned*)count < gridDim.x) __nanosleep(32);
    }
    __syncthreads();
    const int next = (g + 1) % (int)gridDim.x;
    out[2 * (g * nb + t)] = mine * 1000000 + dyn[t];
    out[2 * (g * nb + t) + 1] = *(volatile int*)&marks[next * nb + t];
}
