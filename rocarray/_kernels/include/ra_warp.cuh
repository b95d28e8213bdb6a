// Warp (wavefront) collectives that are correct for wave64 (AMD CDNA) and warp32 (NVIDIA, RDNA).
// Ballot masks are always 64-bit; lane counts always come from RA_WARP_SIZE.
#pragma once

typedef ra_u64 ra_lane_mask;

#if defined(RA_HIP)
RA_DEVICE ra_lane_mask ra_ballot(int predicate) { return (ra_lane_mask)__ballot(predicate); }
template <typename T> RA_DEVICE T ra_shfl_prim(T v, int src) { return __shfl(v, src, RA_WARP_SIZE); }
template <typename T> RA_DEVICE T ra_shfl_xor_prim(T v, int m) { return __shfl_xor(v, m, RA_WARP_SIZE); }
template <typename T> RA_DEVICE T ra_shfl_down_prim(T v, unsigned d) { return __shfl_down(v, d, RA_WARP_SIZE); }
template <typename T> RA_DEVICE T ra_shfl_up_prim(T v, unsigned d) { return __shfl_up(v, d, RA_WARP_SIZE); }
RA_DEVICE void ra_warp_sync() { __builtin_amdgcn_wave_barrier(); }
#else
#define RA_FULL_WARP_MASK 0xffffffffu
RA_DEVICE ra_lane_mask ra_ballot(int predicate) {
    return (ra_lane_mask)__ballot_sync(RA_FULL_WARP_MASK, predicate);
}
template <typename T> RA_DEVICE T ra_shfl_prim(T v, int src) {
    return __shfl_sync(RA_FULL_WARP_MASK, v, src, RA_WARP_SIZE);
}
template <typename T> RA_DEVICE T ra_shfl_xor_prim(T v, int m) {
    return __shfl_xor_sync(RA_FULL_WARP_MASK, v, m, RA_WARP_SIZE);
}
template <typename T> RA_DEVICE T ra_shfl_down_prim(T v, unsigned d) {
    return __shfl_down_sync(RA_FULL_WARP_MASK, v, d, RA_WARP_SIZE);
}
template <typename T> RA_DEVICE T ra_shfl_up_prim(T v, unsigned d) {
    return __shfl_up_sync(RA_FULL_WARP_MASK, v, d, RA_WARP_SIZE);
}
RA_DEVICE void ra_warp_sync() { __syncwarp(); }
#endif

RA_DEVICE int ra_popc64(ra_lane_mask m) { return __popcll(m); }

// Shuffles for every element type: scalars go straight through, complex numbers lane by lane.
// ra_shfl reads lane src (0 <= src < RA_WARP_SIZE: HIP does not wrap larger values).
template <typename T> RA_DEVICE T ra_shfl(T v, int src) { return ra_shfl_prim(v, src); }
template <typename T> RA_DEVICE T ra_shfl_xor(T v, int m) { return ra_shfl_xor_prim(v, m); }
template <typename T> RA_DEVICE T ra_shfl_down(T v, unsigned d) { return ra_shfl_down_prim(v, d); }
template <typename T> RA_DEVICE T ra_shfl_up(T v, unsigned d) { return ra_shfl_up_prim(v, d); }
template <typename R> RA_DEVICE ra_complex<R> ra_shfl(ra_complex<R> v, int src) {
    return ra_make_complex<R>(ra_shfl_prim(v.re, src), ra_shfl_prim(v.im, src));
}
template <typename R> RA_DEVICE ra_complex<R> ra_shfl_xor(ra_complex<R> v, int m) {
    return ra_make_complex<R>(ra_shfl_xor_prim(v.re, m), ra_shfl_xor_prim(v.im, m));
}
template <typename R> RA_DEVICE ra_complex<R> ra_shfl_down(ra_complex<R> v, unsigned d) {
    return ra_make_complex<R>(ra_shfl_down_prim(v.re, d), ra_shfl_down_prim(v.im, d));
}
template <typename R> RA_DEVICE ra_complex<R> ra_shfl_up(ra_complex<R> v, unsigned d) {
    return ra_make_complex<R>(ra_shfl_up_prim(v.re, d), ra_shfl_up_prim(v.im, d));
}

// Reduction operators.
struct ra_op_sum { template <typename T> RA_DEVICE T operator()(T a, T b) const { return a + b; } };
struct ra_op_max { template <typename T> RA_DEVICE T operator()(T a, T b) const { return a < b ? b : a; } };
struct ra_op_min { template <typename T> RA_DEVICE T operator()(T a, T b) const { return b < a ? b : a; } };

// Butterfly reduction over the whole warp: every lane ends with the result, in the same order
// on every run (deterministic).
template <typename T, typename Op> RA_DEVICE T ra_warp_reduce(T v, Op op) {
#pragma unroll
    for (int m = RA_WARP_SIZE / 2; m > 0; m >>= 1) v = op(v, ra_shfl_xor(v, m));
    return v;
}

// The largest and the smallest 32-bit unsigned value over the whole warp, in every lane: one
// redux.sync on NVIDIA from sm_80, ra_warp_reduce's butterfly elsewhere (the same result).
RA_DEVICE ra_u32 ra_warp_max_u32(ra_u32 v) {
#if defined(RA_CUDA) && RA_CUDA_ARCH >= 800
    return __reduce_max_sync(RA_FULL_WARP_MASK, v);
#else
    return ra_warp_reduce(v, ra_op_max());
#endif
}
RA_DEVICE ra_u32 ra_warp_min_u32(ra_u32 v) {
#if defined(RA_CUDA) && RA_CUDA_ARCH >= 800
    return __reduce_min_sync(RA_FULL_WARP_MASK, v);
#else
    return ra_warp_reduce(v, ra_op_min());
#endif
}

// Block-wide reduction; BLOCK (a power of two, a whole number of warps) threads, scratch holds
// BLOCK / RA_WARP_SIZE values. The result is valid in thread 0. Callers that reuse scratch
// afterwards must __syncthreads() first.
template <int BLOCK, typename T, typename Op> RA_DEVICE T ra_block_reduce(T v, Op op, T* scratch) {
    static_assert(BLOCK % RA_WARP_SIZE == 0, "block must be a whole number of warps");
    static_assert((BLOCK & (BLOCK - 1)) == 0, "block must be a power of two");
    constexpr int WARPS = BLOCK / RA_WARP_SIZE;
    v = ra_warp_reduce(v, op);
    if (WARPS == 1) return v;
    if (ra_lane_id() == 0) scratch[ra_warp_id()] = v;
    __syncthreads();
    if (ra_warp_id() == 0) {
        T w = scratch[ra_lane_id() < WARPS ? ra_lane_id() : 0];
        // Lanes past WARPS duplicate scratch[0]; mask them by reducing only the first WARPS lanes.
#pragma unroll
        for (int m = 1; m < RA_WARP_SIZE; m <<= 1) {
            T other = ra_shfl_xor(w, m);
            if (m < WARPS) w = ((ra_lane_id() & m) ? op(other, w) : op(w, other));
        }
        v = w;
    }
    return v;
}
