// Asynchronous copies into shared memory that complete on a shared-memory barrier (NVIDIA sm_90+:
// mbarrier and the bulk copy engine). Kernels use them under `#if defined(RA_BULK_COPY)` and keep
// a portable path (plain loads and __syncthreads) for every other target.
#pragma once

// A TMA tensor map (the driver's CUtensorMap): 128 opaque bytes, passed to a kernel by value. Its
// type exists on every target so that kernel signatures do; only NVIDIA sm_90+ reads it.
struct alignas(64) ra_tensor_map { ra_u64 words[16]; };

#if defined(RA_CUDA) && RA_CUDA_ARCH >= 700
#define RA_GRID_CONSTANT __grid_constant__
#else
#define RA_GRID_CONSTANT
#endif

#if defined(RA_CUDA) && RA_CUDA_ARCH >= 900
#define RA_BULK_COPY 1

// mbarrier in shared memory (shared address `bar`), expecting `count` arrivals per phase.
RA_DEVICE void ra_mbar_init(unsigned bar, unsigned count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
// Makes initialized barriers visible to the copy engine (and to the other threads after a barrier).
RA_DEVICE void ra_mbar_init_fence() { asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory"); }
RA_DEVICE void ra_mbar_arrive(unsigned bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
// One arrival that also expects `bytes` of asynchronous copies to complete on the barrier.
RA_DEVICE void ra_mbar_expect_tx(unsigned bar, unsigned bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}
// Wait for the completion of the barrier's phase of parity `parity`.
RA_DEVICE void ra_mbar_wait(unsigned bar, unsigned parity) {
    unsigned done = 0;
    while (!done) {
        asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                     "selp.u32 %0, 1, 0, p;\n}\n"
                     : "=r"(done)
                     : "r"(bar), "r"(parity)
                     : "memory");
    }
}
// Bulk copy of `bytes` (a multiple of 16, both addresses 16-byte aligned) from global memory to
// shared address `dst`, completing its bytes on `bar`.
RA_DEVICE void ra_bulk_load(unsigned dst, const void* src, unsigned bytes, unsigned bar) {
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n"
                 ::"r"(dst), "l"(src), "r"(bytes), "r"(bar)
                 : "memory");
}
// TMA: the box at coordinates (c0, c1, c2) of a 3-D tensor map (a __grid_constant__ kernel
// parameter) into shared memory at `dst`, completing its bytes on `bar`.
RA_DEVICE void ra_tma_load_3d(unsigned dst, const ra_tensor_map* map, int c0, int c1, int c2, unsigned bar) {
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3, %4}], [%5];\n"
                 :: "r"(dst), "l"(map), "r"(c0), "r"(c1), "r"(c2), "r"(bar)
                 : "memory");
}
// The same for a 4-D tensor map (coordinates c0 .. c3).
RA_DEVICE void ra_tma_load_4d(unsigned dst, const ra_tensor_map* map, int c0, int c1, int c2, int c3, unsigned bar) {
    asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3, %4, %5}], [%6];\n"
                 :: "r"(dst), "l"(map), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(bar)
                 : "memory");
}
RA_DEVICE unsigned ra_shared_address(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }
// Programmatic dependent launch (rocarray/_core/dependent_launch.py). The wait returns once the
// previous grid in the stream has completed and its writes are visible (at once for a plain
// launch): a kernel launched as a dependent calls it before it touches global memory. The
// signal lets the next kernel, if it is launched as a dependent, be scheduled before this grid
// ends (it still waits for this grid's completion before touching memory).
RA_DEVICE void ra_grid_dependency_wait() { asm volatile("griddepcontrol.wait;\n" ::: "memory"); }
RA_DEVICE void ra_grid_dependents_launch() { asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory"); }
#endif

// The first statement of a kernel that the host may launch as a programmatic dependent
// (PreparedLaunch(..., dependent=True)): wait for the previous grid in the stream (its writes are
// then visible), then let the next such launch be scheduled while this grid runs. Targets without
// griddepcontrol launch plainly and compile nothing here.
RA_DEVICE void ra_dependent_grid_enter() {
#if defined(RA_BULK_COPY)
    ra_grid_dependency_wait();
    ra_grid_dependents_launch();
#endif
}
