// rocarray portability prelude: pasted first in front of every kernel source by the compile layer.
// The compile layer defines exactly one of RA_HIP / RA_CUDA, plus RA_WARP_SIZE read from the device.
// Kernel sources never #include anything; everything they need from the toolchain is wrapped here.
#pragma once

#if defined(RA_HIP) == defined(RA_CUDA)
#error "exactly one of RA_HIP and RA_CUDA must be defined (the compile layer passes it)"
#endif
#ifndef RA_WARP_SIZE
#error "RA_WARP_SIZE must be defined (the compile layer passes it from the device)"
#endif
#if RA_WARP_SIZE != 32 && RA_WARP_SIZE != 64
#error "RA_WARP_SIZE must be 32 or 64"
#endif

// Fixed-width integers without <stdint.h> (NVRTC has no standard headers built in).
typedef signed char ra_i8;
typedef unsigned char ra_u8;
typedef short ra_i16;
typedef unsigned short ra_u16;
typedef int ra_i32;
typedef unsigned int ra_u32;
typedef long long ra_i64;
typedef unsigned long long ra_u64;

#define RA_DEVICE __device__ __forceinline__
#define RA_HOST_DEVICE __host__ __device__ __forceinline__
#define RA_RESTRICT __restrict__
#define RA_KERNEL extern "C" __global__
#define RA_LAUNCH_BOUNDS(threads) __launch_bounds__(threads)

// 64-bit global indices: sizes may pass 2^31 elements.
RA_DEVICE ra_i64 ra_global_thread_id() {
    return (ra_i64)blockIdx.x * (ra_i64)blockDim.x + (ra_i64)threadIdx.x;
}
RA_DEVICE ra_i64 ra_grid_threads() { return (ra_i64)gridDim.x * (ra_i64)blockDim.x; }
RA_DEVICE int ra_lane_id() { return (int)(threadIdx.x % RA_WARP_SIZE); }
RA_DEVICE int ra_warp_id() { return (int)(threadIdx.x / RA_WARP_SIZE); }

// Offset of element i of a BLAS-style strided vector with n elements and increment inc: a negative
// increment walks the vector from its far end, as in the reference BLAS.
RA_DEVICE ra_i64 ra_strided_offset(ra_i64 i, ra_i64 n, ra_i64 inc) {
    return inc >= 0 ? i * inc : (i - (n - 1)) * inc;
}

// Atomics and fences (integer atomics are the same builtins on both vendors).
RA_DEVICE unsigned int ra_atomic_inc_u32(unsigned int* p) { return atomicAdd(p, 1u); }
RA_DEVICE unsigned int ra_atomic_add_u32(unsigned int* p, unsigned int v) { return atomicAdd(p, v); }
RA_DEVICE ra_u64 ra_atomic_add_u64(ra_u64* p, ra_u64 v) { return atomicAdd(p, v); }
RA_DEVICE int ra_atomic_add_i32(int* p, int v) { return atomicAdd(p, v); }
RA_DEVICE unsigned int ra_atomic_or_u32(unsigned int* p, unsigned int v) { return atomicOr(p, v); }
RA_DEVICE ra_u64 ra_atomic_or_u64(ra_u64* p, ra_u64 v) { return atomicOr(p, v); }
RA_DEVICE unsigned int ra_atomic_cas_u32(unsigned int* p, unsigned int cmp, unsigned int v) {
    return atomicCAS(p, cmp, v);
}
// The first ALIGN-aligned shared-memory address at or after `p`. Dynamic shared memory begins right
// after a kernel's static shared memory, so its base alignment differs per kernel; the shared
// window's base is aligned far beyond ALIGN on both vendors, so the generic address's low bits are
// the offset's, and the pointer only moves forward (it keeps its address space).
template <int ALIGN> RA_DEVICE unsigned char* ra_align_shared(unsigned char* p) {
    const unsigned low = (unsigned)(reinterpret_cast<ra_u64>(p) & (ALIGN - 1));
    return p + ((ALIGN - low) & (ALIGN - 1));
}

// One 16-byte load of read-only data streamed once (reductions): on NVIDIA sm_70+ through the
// non-coherent path without allocating in L1, which the data would only pass through. Elsewhere
// a plain load. P is any 16-byte, 16-byte aligned type.
template <typename P> RA_DEVICE P ra_load_stream16(const P* p) {
    static_assert(sizeof(P) == 16, "ra_load_stream16 moves 16 bytes");
#if defined(RA_CUDA) && RA_CUDA_ARCH >= 700
    unsigned w0, w1, w2, w3;
    asm("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
        : "=r"(w0), "=r"(w1), "=r"(w2), "=r"(w3)
        : "l"(p));
    P r;  // (NVRTC has no memcpy builtin; the words go in through the 16-aligned object)
    unsigned* q = reinterpret_cast<unsigned*>(&r);
    q[0] = w0;
    q[1] = w1;
    q[2] = w2;
    q[3] = w3;
    return r;
#else
    return *p;
#endif
}

RA_DEVICE void ra_threadfence() { __threadfence(); }
RA_DEVICE void ra_syncthreads() { __syncthreads(); }

// Fast math wrappers: one name per operation whatever the vendor.
RA_DEVICE float ra_fast_rsqrt(float x) { return rsqrtf(x); }
RA_DEVICE float ra_fast_exp(float x) { return __expf(x); }
RA_DEVICE float ra_fast_log(float x) { return __logf(x); }
RA_DEVICE float ra_fast_div(float a, float b) { return __fdividef(a, b); }
