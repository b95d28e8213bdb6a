"""How short can one LU column's chain on one warp be? A microbenchmark for docs/performance/rocsolver.md.

The batched register-tile LU (``getrf_block_wide``) and the panel kernel (``getrf_panel``) both
spend each elimination step on one warp's dependent chain: the pivot search over the column's
128 rows (4 a lane), the winner's value and reciprocal, the scaling and a rank-1 update. This
times that chain alone, in SM clock cycles a column, for several ways to search:

* ``fp rounds``: magnitudes compared in FP64, five xor-shuffle rounds (the kernels today);
* ``int rounds``: the magnitudes' bits (plus one) compared as integers, five xor rounds;
* ``int redux``: the same keys reduced by ``redux.sync`` (two maxima and a minimum), NVIDIA sm_80+.

Each runs on 132 blocks, 128 columns a block, the median over blocks, in four shapes:

* ``one warp``: a block of one warp, the chain alone;
* ``16 search``: 16 warps, each running the whole chain on its own column, meeting at a block
  barrier every column;
* ``1 of 16``: 16 warps, as in the LU's step: warp j % 16 searches column j and publishes the
  winner's row and reciprocal through shared memory; after the barrier every warp reads them,
  takes u from the winner's lane (one shuffle pair) and updates its own 4 rows a lane;
* ``1 of 4``: the same among warps 0-3 only, meeting at a named barrier of 128 threads, while
  the block's other 12 warps wait at the final block barrier (a panel factored by 4 warps).

    python scripts/lu_column_chain.py

The numbers are a floor for a step of those kernels: a real step adds the publication through
shared memory and the other register columns' update.
"""

import sys

import numpy

import rocarray as ra
from rocarray._core import backend

SOURCE = r"""
// one column step of a warp holding rows lane + 32 a (a < 4) of a 128-row column, repeated;
// SHAPE 0: one warp; 1: 16 warps, each its whole chain, a barrier a column; 2: 16 warps, warp
// j % 16 searches and publishes the winner, the others update after the barrier; 3: the same
// among warps 0-3 (named barrier 1 of 128 threads), the other warps idle
template <int SEARCH, int SHAPE>
__global__ void ra_lu_column_chain(const double* in, double* out, long long* cycles, int columns) {
    __shared__ int sfrom[2];
    __shared__ double srpiv[2];
    const int lane = ra_lane_id();
    const double* x = in + (ra_i64)blockIdx.x * 2048 + ra_warp_id() * 128;
    double v[4];
    int lab[4];
#pragma unroll
    for (int a = 0; a < 4; ++a) {
        v[a] = x[a * RA_WARP_SIZE + lane];
        lab[a] = a * RA_WARP_SIZE + lane;
    }
    const long long t0 = clock64();
    const int steps = SHAPE == 3 && ra_warp_id() >= 4 ? 0 : columns;
    for (int j = 0; j < steps; ++j) {
        const int jj = j & 127;
        double bval = 0.0;
        int key = 0x7fffffff;
        const bool searches = SHAPE < 2 || ra_warp_id() == (j & (SHAPE == 2 ? 15 : 3));
        if (searches && SEARCH == 0) {
            double best = -1.0;
#pragma unroll
            for (int a = 0; a < 4; ++a) {
                const double m = lab[a] >= jj ? ra_abs(v[a]) : -1.0;
                const int k = lab[a] >= jj ? lab[a] : 0x7fffffff;
                if (m > best || (m == best && k < key)) {
                    best = m;
                    key = k;
                    bval = v[a];
                }
            }
#pragma unroll
            for (int s = RA_WARP_SIZE / 2; s > 0; s >>= 1) {
                const double b2 = ra_shfl_xor(best, s);
                const int k2 = ra_shfl_xor(key, s);
                if (b2 > best || (b2 == best && k2 < key)) {
                    best = b2;
                    key = k2;
                }
            }
        } else if (searches) {
            unsigned long long best = 0;
#pragma unroll
            for (int a = 0; a < 4; ++a) {
                const unsigned long long bits = (unsigned long long)__double_as_longlong(v[a]) & 0x7fffffffffffffffull;
                const unsigned long long m = lab[a] >= jj && bits <= 0x7ff0000000000000ull ? bits + 1ull : 0ull;
                const int k = m != 0 ? lab[a] : 0x7fffffff;
                if (m > best || (m == best && k < key)) {
                    best = m;
                    key = k;
                    bval = v[a];
                }
            }
            if (SEARCH == 1) {
#pragma unroll
                for (int s = RA_WARP_SIZE / 2; s > 0; s >>= 1) {
                    const unsigned long long b2 = ra_shfl_xor(best, s);
                    const int k2 = ra_shfl_xor(key, s);
                    if (b2 > best || (b2 == best && k2 < key)) {
                        best = b2;
                        key = k2;
                    }
                }
            } else {
                const ra_u32 mh = (ra_u32)(best >> 32), ml = (ra_u32)best;
                const ra_u32 hi = ra_warp_max_u32(mh);
                const ra_u32 lo = ra_warp_max_u32(mh == hi ? ml : 0u);
                key = (int)ra_warp_min_u32(mh == hi && ml == lo ? (ra_u32)key : 0x7fffffffu);
            }
        }
        const double rloc = searches ? 1.0 / bval : 0.0;
        int from = (key == 0x7fffffff ? jj : key) % RA_WARP_SIZE;
        double rpiv = ra_shfl(rloc, from);
        if (SHAPE >= 2) {
            if (searches && lane == 0) {
                sfrom[j & 1] = from;
                srpiv[j & 1] = rpiv;
            }
            if (SHAPE == 2) __syncthreads();
            else asm volatile("bar.sync 1, 128;" ::: "memory");
            from = sfrom[j & 1];
            rpiv = srpiv[j & 1];
        }
        const double u = ra_shfl(v[(jj / RA_WARP_SIZE + 1) & 3], from) * 0x1p-20;
#pragma unroll
        for (int a = 0; a < 4; ++a) {
            const double l = v[a] * rpiv;
            v[a] = lab[a] > jj ? ra_fma(-l, u, v[a]) : v[a];
        }
        if (SHAPE == 1) __syncthreads();
    }
    const long long t1 = clock64();
    if (SHAPE == 3) __syncthreads();
    if (lane == 0 && ra_warp_id() == 0) cycles[blockIdx.x] = t1 - t0;
    double* y = out + (ra_i64)blockIdx.x * 2048 + ra_warp_id() * 128;
#pragma unroll
    for (int a = 0; a < 4; ++a) y[a * RA_WARP_SIZE + lane] = v[a];
}
"""

SEARCHES = ("fp rounds", "int rounds", "int redux")
#: (label, threads) of each SHAPE of the kernel
SHAPES = (("one warp", 32), ("16 search", 512), ("1 of 16", 512), ("1 of 4", 512))


def main(argv):
    cupy = backend.cupy()
    if backend.device_info().warp_size != 32:
        print("this microbenchmark is written for 32-lane warps")
        return 1
    names = [f"ra_lu_column_chain<{s}, {shape}>" for s in range(len(SEARCHES)) for shape in range(len(SHAPES))]
    module = ra.RawModule(code=SOURCE, name_expressions=names)
    blocks, columns = 132, 128
    rs = cupy.random.RandomState(5)
    x = rs.uniform(1.0, 2.0, blocks * 2048)   # 16 warps of 128 rows a block
    y = cupy.empty_like(x)
    cycles = cupy.zeros(blocks, numpy.int64)
    print(f"{'search':12s}" + "".join(f"{label:>12s}" for label, _ in SHAPES)
          + f"   (cycles a column, median of {blocks} blocks)")
    for s, label in enumerate(SEARCHES):
        row = []
        for shape, (_, threads) in enumerate(SHAPES):
            kernel = module.get_function(f"ra_lu_column_chain<{s}, {shape}>")
            for _ in range(2):
                kernel((blocks,), (threads,), (x, y, cycles, numpy.int32(columns)))
            cupy.cuda.Device().synchronize()
            row.append(float(numpy.median(cupy.asnumpy(cycles))) / columns)
        print(f"{label:12s}" + "".join(f"{value:12.0f}" for value in row))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
