// Grid-wide coordination of a cooperative launch (every block co-resident): a bounded grid
// barrier, reads past the non-coherent caches of values another block wrote, and the pause of a
// waiting thread. Used by the device-wide panel factorizations (rocsolver lu.hip, qr.hip).
#pragma once

// A thread that waits lets the others of its multiprocessor issue.
RA_DEVICE void ra_grid_pause() {
#if defined(RA_HIP)
    __builtin_amdgcn_s_sleep(2);
#else
    __nanosleep(64);
#endif
}

// *p read past the non-coherent caches (another block wrote it), one real part at a time.
template <typename T> RA_DEVICE T ra_load_volatile(const volatile T* p) {
    typedef typename ra_real_of<T>::type R;
    T r;
    R* d = reinterpret_cast<R*>(&r);
    const volatile R* s = reinterpret_cast<const volatile R*>(p);
#pragma unroll
    for (int c = 0; c < (int)(sizeof(T) / sizeof(R)); ++c) d[c] = s[c];
    return r;
}

// Grid-wide barrier of the co-resident blocks of a cooperative launch. sync[0] counts the
// arrivals since the launch began, so barrier k is passed once it reaches target = G * (k + 1)
// (the last arriver's increment is the release: no reset, no second word to write); sync[2] is
// the error flag: a block that waits longer than `limit` clock cycles (or sees the flag) sets it
// and the barrier returns false in every thread of that block (through the block's shared
// `sflag`). The block's global writes are made visible device-wide before it arrives.
RA_DEVICE bool ra_grid_sync(unsigned* sync, unsigned target, ra_i64 limit, int* sflag) {
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) {
        volatile unsigned* vs = sync;
        int failed = 0;
        if (atomicAdd(&sync[0], 1u) + 1u < target) {
            const long long start = clock64();
            while (vs[0] < target) {
                if (vs[2] != 0u || clock64() - start > limit) {
                    atomicExch(&sync[2], 1u);
                    failed = 1;
                    break;
                }
                ra_grid_pause();
            }
        }
        __threadfence();
        *sflag = failed;
    }
    __syncthreads();
    return *sflag == 0;
}
