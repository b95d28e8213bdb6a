"""How fast can a GPU gather ``x[col[i]]`` for the SpMV bench matrices' column streams?

A measurement for docs/performance/rocsparse.md: the random-column SpMVs (uniform 4M x 16 and the
power-law 4M) run at about 142 G 32-byte sectors per second, and the question is whether that is
the L2's rate for scattered 4-byte reads or a latency limit of the SpMV kernels. Each kernel here
streams ``col`` (int32) and ``val`` (float32) coalesced, gathers ``x[col[i]]`` and adds the products
into one value per thread (written out so nothing is dropped): an SpMV without rows. Variants: the
number of independent gathers in flight per thread (ILP), blocks per SM, and a stream-only
kernel (no gather) for the streaming part's own rate. Prints one row per variant: time, gathers per
second, and 32-byte sectors per second counted as (gathers + streamed sectors).

    python scripts/gather_rate.py            # both matrices of the bench
"""

import sys
import time

import numpy

import rocarray as ra
from rocarray._checks import rocsparse_spmv as cases

SOURCE = r"""
template <int ILP, bool GATHER>
__global__ void gather_sum(const int* __restrict__ col, const float* __restrict__ val,
                           const float* __restrict__ x, float* __restrict__ out, long long n) {
    const long long stride = (long long)gridDim.x * blockDim.x * ILP;
    float acc = 0.0f;
    for (long long base = (long long)blockIdx.x * blockDim.x * ILP + threadIdx.x; base < n; base += stride) {
        int c[ILP];
        float v[ILP];
#pragma unroll
        for (int k = 0; k < ILP; ++k) {
            const long long i = base + (long long)k * blockDim.x;
            c[k] = i < n ? __ldcs(col + i) : -1;
            v[k] = i < n ? __ldcs(val + i) : 0.0f;
        }
#pragma unroll
        for (int k = 0; k < ILP; ++k) {
            if (GATHER) {
                acc += c[k] >= 0 ? v[k] * __ldg(x + c[k]) : 0.0f;
            } else {
                acc += v[k] + (float)c[k];
            }
        }
    }
    out[(long long)blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
"""

VARIANTS = [(ilp, per_sm, True) for ilp in (4, 8, 16) for per_sm in (4, 8, 16)] + [(8, 8, False)]


def distinct_sectors(col):
    """Sector requests of warp-wide runs of 32 consecutive gathers (same 32-byte sector merged)."""
    n = col.size - col.size % 32
    sectors = (col[:n] // 8).reshape(-1, 32)
    runs = numpy.sort(sectors, axis=1)
    return int((numpy.diff(runs, axis=1) != 0).sum() + runs.shape[0]) + (col.size - n)


def time_kernel(fn, args, grid, block, repeat=20):
    import cupy

    fn((grid,), (block,), args)
    cupy.cuda.Device().synchronize()
    start, stop = cupy.cuda.Event(), cupy.cuda.Event()
    times = []
    for _ in range(repeat):
        start.record()
        fn((grid,), (block,), args)
        stop.record()
        stop.synchronize()
        times.append(cupy.cuda.get_elapsed_time(start, stop) * 1e-3)
    return float(numpy.median(times))


def main():
    import cupy

    names = [f"gather_sum<{i}, {'true' if g else 'false'}>" for i, _, g in VARIANTS]
    module = ra.RawModule(SOURCE, name_expressions=sorted(set(names)))
    sms = cupy.cuda.Device().attributes["MultiProcessorCount"]
    m = 1 << 22
    rows = []
    for label, build in (("uniform 4M x 16", lambda: cases.uniform(m, 16)),
                         ("power law 4M", lambda: cases.power_law(m))):
        t0 = time.perf_counter()
        _, col, val = build()
        n = int(col.size)
        x = cupy.asarray(numpy.random.default_rng(0).standard_normal(m).astype(numpy.float32))
        gathers = distinct_sectors(cupy.asnumpy(col).astype(numpy.int64))
        streamed = n * 8 // 32
        print(f"{label}: n = {n}, gather sectors {gathers / 1e6:.1f}M, streamed sectors {streamed / 1e6:.1f}M "
              f"(setup {time.perf_counter() - t0:.1f} s)", flush=True)
        for (ilp, per_sm, gather), name in zip(VARIANTS, names):
            block = 256
            grid = sms * per_sm
            out = cupy.empty(grid * block, numpy.float32)
            seconds = time_kernel(module.get_function(name), (col, val, x, out, numpy.int64(n)), grid, block)
            sectors = (gathers if gather else 0) + streamed
            rows.append((label, "gather" if gather else "stream only", ilp, per_sm, seconds, n / seconds / 1e9,
                         sectors / seconds / 1e9))
            print(f"  {rows[-1][1]:<11} ILP {ilp:>2} blocks/SM {per_sm:>2}: {seconds * 1e6:8.1f} us  "
                  f"{rows[-1][5]:6.1f} G elements/s  {rows[-1][6]:6.1f} G sectors/s", flush=True)
    print("\ncase              kernel       ILP  blocks/SM      time   G sectors/s")
    for label, kind, ilp, per_sm, seconds, _, rate in rows:
        print(f"{label:<17} {kind:<11} {ilp:>4} {per_sm:>10} {seconds * 1e6:8.1f} us {rate:10.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
