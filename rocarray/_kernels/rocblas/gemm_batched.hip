// rocBLAS level 3: batched gemm for small matrices (and a tiled pointer-array fallback).
//
//   C_b := alpha * op(A_b) * op(B_b) + beta * C_b,   b = 0 .. batch-1,   op(X) = X, X^T or X^H,
//
// column-major as in the reference BLAS: element (i, j) of C_b is C_b[i + j * ldc] (64-bit
// offsets); op(A_b) is M x K, op(B_b) is K x N. Matrix b of an operand is either X + b * stride_x
// (strided-batched mode, X_ptrs == nullptr) or the device pointer X_ptrs[b] (pointer-array mode).
// The Python layer (rocarray/rocblas/_gemm/batched.py, batched_kernels.py) has checked every bound and
// handles the no-op cases; it passes K = 0 when alpha == 0 (then A and B are not read and
// C := beta * C). beta == 0 never reads C (NaN in C does not propagate), as in the reference BLAS.
//
// One template, ra_rocblas_gemm_batched<T, S>: a block of RA_ROCBLAS_GB_BLOCK (256) threads owns
// an S x S tile of C in each of MB = 256 / (S/R)^2 consecutive matrices of the batch, with an
// R x R micro-tile per thread (R = 2 for S <= 16, else 4: S = 8 takes 16 matrices a block, S = 64
// one; _gemm/batched_kernels.py lists every configuration), so a small matrix is computed by one block
// from start to end and the loads of many matrices are in flight at once. M and N larger than S
// make several tiles per matrix (grid = tiles x groups of MB matrices): with S = 64 this is the
// generic tiled kernel of the pointer-array mode.
//  * k is walked in chunks of KC = min(S, 128 bytes / sizeof(T)) (shared memory stays under
//    40 KB for every type). Per chunk each operand tile is read from global memory into
//    registers (all of the thread's elements before any is stored: many loads in flight), a
//    barrier, stored to shared memory, a barrier, multiplied.
//  * Both operand tiles are stored k-major in shared memory, sA[kk][i] and sB[kk][j], rows padded
//    by 16 bytes (rows stay 16-byte aligned). Thread (tx, ty) of its matrix accumulates the R x R
//    micro-tile of rows R*tx .. R*tx+R-1 and columns R*ty .. R*ty+R-1 in registers, reading R
//    consecutive elements of each tile row as one vector load per operand per k step.
//  * Global loads run along the operand's contiguous dimension. When that dimension is also
//    the tile row ('N' A, 'T'/'C' B: "direct"), consecutive lanes take consecutive elements of
//    a stored column. When it is k ('T'/'C' A, 'N' B: "transposed" while stored), consecutive
//    lanes take runs of one sector (2 x 16 bytes) along k and then the next columns: the global
//    reads are still whole sectors, and with the 16-byte row padding the transposed shared stores
//    of a float warp hit distinct banks. 'C' conjugates while loading. Out-of-range elements (past M,
//    N or K, or matrices past the batch) load as zero, so the inner loop has no guards.
//  * C is written (and read when beta != 0) R consecutive rows at a time, as one vector access
//    where the address is aligned to it.
// ra_rocblas_gemm_batched_stream<T, S> (at the end) runs the same configuration, loader, multiply
// and C update as a grid-stride loop over the work items that issues the next step's global
// loads before the current multiply (see there; _gemm/batched_kernels.py picks the kernel).

#define RA_ROCBLAS_GB_BLOCK 256
#define RA_ROCBLAS_GB_PAD_BYTES 16
#define RA_ROCBLAS_GB_SECTOR_BYTES (2 * RA_ROCBLAS_GB_PAD_BYTES)
#define RA_ROCBLAS_GB_CHUNK_BYTES 128

// flag bits (mirrored in _gemm/batched_kernels.py; the same values as gemm.hip's)
#define RA_ROCBLAS_GB_TRANS_A 0x01   // op(A) = A^T (or A^H with CONJ_A)
#define RA_ROCBLAS_GB_CONJ_A 0x02
#define RA_ROCBLAS_GB_TRANS_B 0x04   // op(B) = B^T (or B^H with CONJ_B)
#define RA_ROCBLAS_GB_CONJ_B 0x08

// Geometry of the S x S tile for element type T.
template <typename T, int S> struct ra_rocblas_gb_cfg {
    static constexpr int R = S <= 16 ? 2 : 4;                     // micro-tile R x R per thread
    static constexpr int TD = S / R;                              // threads per tile dimension
    static constexpr int TPM = TD * TD;                           // threads per matrix
    static constexpr int MB = RA_ROCBLAS_GB_BLOCK / TPM;          // matrices per block
    static constexpr int KC0 = RA_ROCBLAS_GB_CHUNK_BYTES / (int)sizeof(T);
    static constexpr int KC = S < KC0 ? S : KC0;                  // k chunk
    static constexpr int PAD = RA_ROCBLAS_GB_PAD_BYTES / (int)sizeof(T);
    static constexpr int LD = S + PAD;                            // shared row length
    static constexpr int SEC0 = RA_ROCBLAS_GB_SECTOR_BYTES / (int)sizeof(T);
    static constexpr int SEC = KC < SEC0 ? KC : SEC0;             // run of lanes along k ("transposed")
    static constexpr int ELEMS = MB * S * KC / RA_ROCBLAS_GB_BLOCK;  // per thread per operand tile
    static constexpr int VALIGN = R * (int)sizeof(T) < 16 ? R * (int)sizeof(T) : 16;
    static_assert(TPM * MB == RA_ROCBLAS_GB_BLOCK, "threads per block");
    static_assert(MB * S * KC % RA_ROCBLAS_GB_BLOCK == 0, "tile loads");
    static_assert(LD * (int)sizeof(T) % 16 == 0, "16-byte aligned shared rows");
};

// R consecutive elements of a shared tile row, read as one (or two) vector loads.
template <typename T, int R, int ALIGN> struct alignas(ALIGN) ra_rocblas_gb_vec {
    T v[R];
};

RA_DEVICE float ra_rocblas_gb_madd(float a, float b, float c) { return ra_fma(a, b, c); }
RA_DEVICE double ra_rocblas_gb_madd(double a, double b, double c) { return ra_fma(a, b, c); }
template <typename R>
RA_DEVICE ra_complex<R> ra_rocblas_gb_madd(ra_complex<R> a, ra_complex<R> b, ra_complex<R> c) {
    return ra_make_complex<R>(ra_fma(a.re, b.re, ra_fma(-a.im, b.im, c.re)),
                              ra_fma(a.re, b.im, ra_fma(a.im, b.re, c.im)));
}

RA_DEVICE float ra_rocblas_gb_conj_if(float a, bool) { return a; }
RA_DEVICE double ra_rocblas_gb_conj_if(double a, bool) { return a; }
template <typename R> RA_DEVICE ra_complex<R> ra_rocblas_gb_conj_if(ra_complex<R> a, bool conj) {
    return conj ? ra_conj(a) : a;
}

RA_DEVICE bool ra_rocblas_gb_is_zero(float a) { return a == 0.0f; }
RA_DEVICE bool ra_rocblas_gb_is_zero(double a) { return a == 0.0; }
template <typename R> RA_DEVICE bool ra_rocblas_gb_is_zero(ra_complex<R> a) {
    return a.re == R(0) && a.im == R(0);
}

// Matrix b of an operand: X_ptrs[b] in pointer-array mode, else X + b * stride.
template <typename T>
RA_DEVICE T* ra_rocblas_gb_matrix(T* X, ra_i64 stride, const ra_u64* __restrict__ ptrs, ra_i64 b) {
    return ptrs != nullptr ? reinterpret_cast<T*>(ptrs[b]) : X + b * stride;
}

// The operand tiles of one k chunk for the block's MB matrices: tile (o, kk) of op(X) for o in
// [o0, o0 + S) (rows i of op(A), or columns j of op(B)) and kk in [k0, k0 + KC), stored as
// s[mb][kk][o]. DIRECT: X(o, k) = X[o + k * ld] (o contiguous); else X(o, k) = X[k + o * ld]
// (k contiguous; the tile is transposed while it is stored). Stored tile: SR x SC elements with
// rows (the contiguous dimension) SR; lanes run RUN elements down a stored column, then across
// columns, so every warp reads whole sectors.
template <typename T, int S, bool DIRECT> struct ra_rocblas_gb_loader {
    typedef ra_rocblas_gb_cfg<T, S> C;
    static constexpr int SR = DIRECT ? S : C::KC;
    static constexpr int SC = DIRECT ? C::KC : S;
    static constexpr int RUN = DIRECT ? S : C::SEC;
    static_assert(SR % RUN == 0, "runs tile the stored rows");

    static constexpr int NH = SR / RUN;                 // runs per stored column
    static constexpr int LB = RA_ROCBLAS_GB_BLOCK / RUN;  // lines (one run each) a block loads per step
    static constexpr int PL = SC * NH;                    // lines per matrix, columns fastest
    static_assert(LB % PL == 0 || PL % LB == 0, "lines per step and per matrix nest");
    static_assert(LB % SC == 0 || SC % LB == 0, "lines per step and columns nest");

    // (mb, stored row, stored column) of this thread's element e: line q = t / RUN + LB * e, row
    // t % RUN + RUN * h. Split into the thread's fixed part and e's compile-time part, so the
    // unrolled loads share one address computation.
    RA_DEVICE static void where(int e, int& mb, int& r, int& c) {
        const unsigned t = threadIdx.x;
        const unsigned q0 = t / RUN;
        unsigned h;
        if (LB >= PL) {
            const unsigned w = q0 % PL;
            mb = (int)(q0 / PL) + (LB / PL) * e;
            c = (int)(w % SC);
            h = w / SC;
        } else {
            const int j = e % (PL / LB);
            mb = e / (PL / LB);
            if (LB <= SC) {
                c = (int)q0 + LB * (j % (SC / LB));
                h = (unsigned)(j / (SC / LB));
            } else {
                c = (int)(q0 % SC);
                h = q0 / SC + (LB / SC) * j;
            }
        }
        r = (int)(t % RUN + RUN * h);
    }

    RA_DEVICE static void load(T (&v)[C::ELEMS], T* const* mats, ra_i64 ld, bool conj, ra_i64 o0,
                               ra_i64 outer, ra_i64 k0, ra_i64 K) {
#pragma unroll
        for (int e = 0; e < C::ELEMS; ++e) {
            int mb, r, c;
            where(e, mb, r, c);
            const T* X = mats[mb];
            const ra_i64 o = o0 + (DIRECT ? r : c);
            const ra_i64 k = k0 + (DIRECT ? c : r);
            T x = ra_traits<T>::zero();
            if (X != nullptr && o < outer && k < K)
                x = ra_rocblas_gb_conj_if(DIRECT ? X[o + k * ld] : X[k + o * ld], conj);
            v[e] = x;
        }
    }

    RA_DEVICE static void store(const T (&v)[C::ELEMS], T (*s)[C::KC][C::LD]) {
#pragma unroll
        for (int e = 0; e < C::ELEMS; ++e) {
            int mb, r, c;
            where(e, mb, r, c);
            if (DIRECT) s[mb][c][r] = v[e];
            else s[mb][r][c] = v[e];
        }
    }
};

template <typename T, int S> struct alignas(16) ra_rocblas_gb_smem {
    typedef ra_rocblas_gb_cfg<T, S> C;
    T a[C::MB][C::KC][C::LD];
    T b[C::MB][C::KC][C::LD];
    T* mat_a[C::MB];
    T* mat_b[C::MB];
};

// Both orientations of the loader, picked by a runtime (block-uniform) transpose flag.
template <typename T, int S>
RA_DEVICE void ra_rocblas_gb_load(bool direct, T (&v)[ra_rocblas_gb_cfg<T, S>::ELEMS], T* const* mats, ra_i64 ld,
                                  bool conj, ra_i64 o0, ra_i64 outer, ra_i64 k0, ra_i64 K) {
    if (direct) ra_rocblas_gb_loader<T, S, true>::load(v, mats, ld, conj, o0, outer, k0, K);
    else ra_rocblas_gb_loader<T, S, false>::load(v, mats, ld, conj, o0, outer, k0, K);
}

template <typename T, int S>
RA_DEVICE void ra_rocblas_gb_store(bool direct, const T (&v)[ra_rocblas_gb_cfg<T, S>::ELEMS],
                                   T (*s)[ra_rocblas_gb_cfg<T, S>::KC][ra_rocblas_gb_cfg<T, S>::LD]) {
    if (direct) ra_rocblas_gb_loader<T, S, true>::store(v, s);
    else ra_rocblas_gb_loader<T, S, false>::store(v, s);
}

// Thread (tx, ty) of matrix mb of the block. Up to 8 threads per row of micro-tiles, a warp covers
// whole rows of them; with 16 (S = 64) a warp takes an 8-wide slab, so its vector loads of the A row
// span 128 bytes and of the B row RA_WARP_SIZE / 8 vectors (fewer shared wavefronts per FMA).
template <typename T, int S> struct ra_rocblas_gb_thread {
    typedef ra_rocblas_gb_cfg<T, S> C;
    static constexpr int WX = C::TD < 8 ? C::TD : 8;
    static constexpr int WY = RA_WARP_SIZE / WX < C::TD ? RA_WARP_SIZE / WX : C::TD;
    int mb, tx, ty;
    RA_DEVICE ra_rocblas_gb_thread() {
        const int t = (int)threadIdx.x;
        const int u = t % C::TPM;
        mb = t / C::TPM;
        tx = u % WX + WX * ((u / (WX * WY)) % (C::TD / WX));
        ty = (u / WX) % WY + WY * (u / (WX * WY * (C::TD / WX)));
    }
};

// The thread's share of the multiply and of the C update, for both kernels.
template <typename T, int S> struct ra_rocblas_gb_ops {
    typedef ra_rocblas_gb_cfg<T, S> C;
    static constexpr int R = C::R;
    typedef ra_rocblas_gb_vec<T, R, C::VALIGN> V;
    typedef T Acc[R][R];
    typedef const T (*Tile)[C::LD];

    RA_DEVICE static void zero(Acc& acc) {
#pragma unroll
        for (int r = 0; r < R; ++r)
#pragma unroll
            for (int c = 0; c < R; ++c) acc[r][c] = ra_traits<T>::zero();
    }

    // acc += the thread's R x R share of the staged chunk (both tiles k-major in shared memory).
    RA_DEVICE static void multiply(Acc& acc, Tile sa, Tile sb, int tx, int ty) {
#pragma unroll 8
        for (int kk = 0; kk < C::KC; ++kk) {
            const V a = *reinterpret_cast<const V*>(&sa[kk][R * tx]);
            const V b = *reinterpret_cast<const V*>(&sb[kk][R * ty]);
#pragma unroll
            for (int r = 0; r < R; ++r)
#pragma unroll
                for (int c = 0; c < R; ++c) acc[r][c] = ra_rocblas_gb_madd(a.v[r], b.v[c], acc[r][c]);
        }
    }

    // C_b (rows m0 + R tx .., columns n0 + R ty ..) := alpha acc + beta C_b (alpha acc alone when
    // beta == 0; beta C_b when K == 0). Each thread writes R consecutive rows of R columns: one vector
    // store per column where the address allows it (16-byte aligned for float; any ldc, checked per
    // column), else R scalars. col_step > 0: the thread's columns are n0 + ty + col_step c instead.
    RA_DEVICE static void write(const Acc& acc, T* Cb, ra_i64 ldc, ra_i64 M, ra_i64 N, ra_i64 m0, ra_i64 n0,
                                int tx, int ty, bool have_k, T alpha, T beta, int col_step = 0) {
        const bool read_c = !ra_rocblas_gb_is_zero(beta);
        const ra_i64 i0 = m0 + R * tx;
        if (i0 >= M) return;
#pragma unroll
        for (int c = 0; c < R; ++c) {
            const ra_i64 j = n0 + (col_step > 0 ? ty + col_step * c : R * ty + c);
            if (j >= N) continue;
            T* p = Cb + i0 + j * ldc;
            if (i0 + R <= M && (ra_u64)p % C::VALIGN == 0) {
                V out;
                if (read_c) out = *reinterpret_cast<const V*>(p);
#pragma unroll
                for (int r = 0; r < R; ++r) {
                    T x = have_k ? alpha * acc[r][c] : ra_traits<T>::zero();
                    if (read_c) x = x + beta * out.v[r];
                    out.v[r] = x;
                }
                *reinterpret_cast<V*>(p) = out;
            } else {
#pragma unroll
                for (int r = 0; r < R; ++r) {
                    if (i0 + r >= M) break;
                    T x = have_k ? alpha * acc[r][c] : ra_traits<T>::zero();
                    if (read_c) x = x + beta * p[r];
                    p[r] = x;
                }
            }
        }
    }
};

#define RA_ROCBLAS_GB_ARGS                                                                               \
    ra_i64 M, ra_i64 N, ra_i64 K, T alpha,                                                               \
    const T* __restrict__ A, ra_i64 lda, ra_i64 stride_a, const ra_u64* __restrict__ A_ptrs,             \
    const T* __restrict__ B, ra_i64 ldb, ra_i64 stride_b, const ra_u64* __restrict__ B_ptrs,             \
    T beta, T* __restrict__ Cmat, ra_i64 ldc, ra_i64 stride_c, const ra_u64* __restrict__ C_ptrs,        \
    ra_i64 batch, int flags

// C_b := alpha * op(A_b) op(B_b) + beta * C_b for an M x N C_b, b < batch; K == 0: C_b := beta C_b.
// Grid: tiles of M fastest, then tiles of N, then groups of MB matrices.
template <typename T, int S>
__global__ void __launch_bounds__(RA_ROCBLAS_GB_BLOCK) ra_rocblas_gemm_batched(RA_ROCBLAS_GB_ARGS) {
    typedef ra_rocblas_gb_cfg<T, S> C;
    constexpr int R = C::R;
    constexpr int KC = C::KC;

    __shared__ ra_rocblas_gb_smem<T, S> sm;

    // unsigned int block arithmetic: the grid (tiles_m * tiles_n * groups) is below 2^31
    const unsigned tiles_m = (unsigned)((M + S - 1) / S);
    const unsigned tiles_n = (unsigned)((N + S - 1) / S);
    unsigned bid = blockIdx.x;
    const ra_i64 m0 = (ra_i64)(bid % tiles_m) * S;
    bid /= tiles_m;
    const ra_i64 n0 = (ra_i64)(bid % tiles_n) * S;
    const ra_i64 b0 = (ra_i64)(bid / tiles_n) * C::MB;

    const int t = (int)threadIdx.x;
    const ra_rocblas_gb_thread<T, S> th;

    const bool a_direct = (flags & RA_ROCBLAS_GB_TRANS_A) == 0;   // op(A)(i, k) = A[i + k*lda]
    const bool b_direct = (flags & RA_ROCBLAS_GB_TRANS_B) != 0;   // op(B)(k, j) = B[j + k*ldb]
    const bool a_conj = (flags & RA_ROCBLAS_GB_CONJ_A) != 0;
    const bool b_conj = (flags & RA_ROCBLAS_GB_CONJ_B) != 0;

    T acc[R][R];
    ra_rocblas_gb_ops<T, S>::zero(acc);

    if (K > 0) {
        if (t < C::MB) {
            const bool ok = b0 + t < batch;
            sm.mat_a[t] = ok ? ra_rocblas_gb_matrix(const_cast<T*>(A), stride_a, A_ptrs, b0 + t) : nullptr;
            sm.mat_b[t] = ok ? ra_rocblas_gb_matrix(const_cast<T*>(B), stride_b, B_ptrs, b0 + t) : nullptr;
        }
        __syncthreads();
        for (ra_i64 k0 = 0; k0 < K; k0 += KC) {
            T va[C::ELEMS], vb[C::ELEMS];
            // every load of both tiles before the barrier: they are in flight while the block waits
            ra_rocblas_gb_load<T, S>(a_direct, va, sm.mat_a, lda, a_conj, m0, M, k0, K);
            ra_rocblas_gb_load<T, S>(b_direct, vb, sm.mat_b, ldb, b_conj, n0, N, k0, K);
            if (k0 > 0) __syncthreads();   // the previous chunk is no longer read
            ra_rocblas_gb_store<T, S>(a_direct, va, sm.a);
            ra_rocblas_gb_store<T, S>(b_direct, vb, sm.b);
            __syncthreads();
            ra_rocblas_gb_ops<T, S>::multiply(acc, sm.a[th.mb], sm.b[th.mb], th.tx, th.ty);
        }
    }

    const ra_i64 b = b0 + th.mb;
    if (b >= batch) return;
    ra_rocblas_gb_ops<T, S>::write(acc, ra_rocblas_gb_matrix(Cmat, stride_c, C_ptrs, b), ldc, M, N, m0, n0, th.tx,
                                   th.ty, K > 0, alpha, beta);
}

// The streaming form (K > 0 only; the Python layer sends K == 0 to the kernel above): a grid of
// about one resident wave, each block walking work items (tile of M, tile of N, group of MB
// matrices; the order of the grid above) blockIdx.x, blockIdx.x + gridDim.x, ..., and in each
// the chunks of k. The global loads of the NEXT (item, chunk) step are issued into registers
// right after the current chunk is in shared memory, so they are in flight while the block
// multiplies the current chunk and writes its C: every resident block keeps a whole step of
// loads (both operand tiles of its MB matrices: 8 KB per float matrix of S = 2^5) in flight
// nearly all the time, where the one-shot kernel has none during its multiply and C stores.
// One shared tile buffer (two barriers a step); the per-matrix pointer tables are
// double-buffered because the next item's table is written while the current one may be read.
template <typename T, int S> struct alignas(16) ra_rocblas_gb_stream_smem {
    typedef ra_rocblas_gb_cfg<T, S> C;
    T a[C::MB][C::KC][C::LD];
    T b[C::MB][C::KC][C::LD];
    T* mat_a[2][C::MB];
    T* mat_b[2][C::MB];
};

template <typename T> constexpr int ra_rocblas_gb_stream_min_blocks = sizeof(T) == 4 ? 3 : 2;

template <typename T, int S>
__global__ void __launch_bounds__(RA_ROCBLAS_GB_BLOCK, ra_rocblas_gb_stream_min_blocks<T>)
ra_rocblas_gemm_batched_stream(RA_ROCBLAS_GB_ARGS) {
    typedef ra_rocblas_gb_cfg<T, S> C;
    constexpr int R = C::R;
    constexpr int KC = C::KC;

    __shared__ ra_rocblas_gb_stream_smem<T, S> sm;

    const ra_i64 tiles_m = (M + S - 1) / S;
    const ra_i64 tiles_n = (N + S - 1) / S;
    const ra_i64 items = tiles_m * tiles_n * ((batch + C::MB - 1) / C::MB);
    const ra_i64 chunks = (K + KC - 1) / KC;
    const ra_i64 step = (ra_i64)gridDim.x;
    ra_i64 item = (ra_i64)blockIdx.x;
    if (item >= items) return;

    const int t = (int)threadIdx.x;
    const ra_rocblas_gb_thread<T, S> th;
    const bool a_direct = (flags & RA_ROCBLAS_GB_TRANS_A) == 0;
    const bool b_direct = (flags & RA_ROCBLAS_GB_TRANS_B) != 0;
    const bool a_conj = (flags & RA_ROCBLAS_GB_CONJ_A) != 0;
    const bool b_conj = (flags & RA_ROCBLAS_GB_CONJ_B) != 0;

    // item -> (m0, n0, b0); the thread t < MB fills pointer table buf with its matrix of the item
    ra_i64 m0, n0, b0;
    const bool one_tile = tiles_m == 1 && tiles_n == 1;   // no 64-bit division per item
    auto place = [&](ra_i64 w, int buf) {
        if (one_tile) {
            m0 = n0 = 0;
            b0 = w * C::MB;
        } else {
            m0 = (w % tiles_m) * S;
            w /= tiles_m;
            n0 = (w % tiles_n) * S;
            b0 = (w / tiles_n) * C::MB;
        }
        if (t < C::MB) {
            const bool ok = b0 + t < batch;
            sm.mat_a[buf][t] = ok ? ra_rocblas_gb_matrix(const_cast<T*>(A), stride_a, A_ptrs, b0 + t) : nullptr;
            sm.mat_b[buf][t] = ok ? ra_rocblas_gb_matrix(const_cast<T*>(B), stride_b, B_ptrs, b0 + t) : nullptr;
        }
    };

    int p = 0;
    place(item, p);
    __syncthreads();
    T va[C::ELEMS], vb[C::ELEMS];
    ra_rocblas_gb_load<T, S>(a_direct, va, sm.mat_a[p], lda, a_conj, m0, M, 0, K);
    ra_rocblas_gb_load<T, S>(b_direct, vb, sm.mat_b[p], ldb, b_conj, n0, N, 0, K);

    T acc[R][R];
    ra_rocblas_gb_ops<T, S>::zero(acc);

    ra_i64 chunk = 0;
    for (;;) {
        __syncthreads();   // the previous chunk is no longer read; this item's table is visible
        ra_rocblas_gb_store<T, S>(a_direct, va, sm.a);
        ra_rocblas_gb_store<T, S>(b_direct, vb, sm.b);
        // the next step: the next chunk of this item, or the first of the block's next item
        const ra_i64 cm0 = m0, cn0 = n0, cb0 = b0;
        const bool last = chunk + 1 == chunks;
        const ra_i64 next_item = last ? item + step : item;
        const ra_i64 next_chunk = last ? 0 : chunk + 1;
        const bool more = next_item < items;
        if (more && last) {
            p ^= 1;
            place(next_item, p);
        }
        __syncthreads();   // the chunk is in shared memory; the next item's table is visible
        if (more) {        // in flight during the multiply and the C stores below
            ra_rocblas_gb_load<T, S>(a_direct, va, sm.mat_a[p], lda, a_conj, m0, M, next_chunk * KC, K);
            ra_rocblas_gb_load<T, S>(b_direct, vb, sm.mat_b[p], ldb, b_conj, n0, N, next_chunk * KC, K);
        }
        ra_rocblas_gb_ops<T, S>::multiply(acc, sm.a[th.mb], sm.b[th.mb], th.tx, th.ty);
        if (last) {
            const ra_i64 b = cb0 + th.mb;
            if (b < batch)
                ra_rocblas_gb_ops<T, S>::write(acc, ra_rocblas_gb_matrix(Cmat, stride_c, C_ptrs, b), ldc, M, N,
                                               cm0, cn0, th.tx, th.ty, true, alpha, beta);
            ra_rocblas_gb_ops<T, S>::zero(acc);
        }
        if (!more) break;
        item = next_item;
        chunk = next_chunk;
    }
}

// ---------------------------------------------------------------------------------------------
// square float32 products with the operands moved by the bulk copy engine
// ---------------------------------------------------------------------------------------------
// ra_rocblas_gemm_batched_bulk<S, B_TRANS>: C_b := alpha A_b op(B_b) + beta C_b for M = N = K = S
// (S of 4 x 4 micro-tiles; the host launches S = 2^6, products of 2^5 run the team kernel below),
// op(A) = A with lda = S, op(B) = B (B_TRANS false) or B^T (true) with ldb = S, every A and B
// matrix 16-byte aligned (the Python layer checks all of it; ldc and stride_c are free). Each
// operand matrix is then one contiguous block of S * S floats, which one thread hands to the bulk
// copy engine (sm_90): no registers hold loads, and a ring of STAGES groups of MB matrices (the
// configuration of ra_rocblas_gb_cfg<float, S>: one matrix of 2^6, 2^15 bytes a group) keeps the
// loads of the next groups in flight while a block multiplies and writes C. (The streaming kernel
// above moves its loads through registers, which is slower here: docs/performance/rocblas.md.)
//
// A grid of about one resident wave; block blk walks the groups blk, blk + gridDim.x, ...; group
// i of the block sits in stage i % STAGES, whose barrier completes phase i / STAGES % 2 when its
// bytes have landed. Per group: wait for the stage, multiply (thread (mb, tx, ty) of
// ra_rocblas_gb_bulk_thread: the 4 x 4 block of C_b at rows 4 tx, columns 4 ty, k in order as in the
// kernels above, so the results are the same), a barrier (the stage is read), thread 0 refills
// the stage with the block's group STAGES steps ahead, then C is written from registers.
// In shared memory A_b keeps its column-major layout (A(i, k) at i + S k: a float4 over four rows
// of one column, consecutive lanes on consecutive rows); so does B_b: B(k, j) at k + S j, read as
// a float4 over four k of one column (lanes that share ty share the address: a broadcast), or
// for B^T, B(k, j) at j + S k, a float4 over four columns.
// The host launches it as a programmatic dependent of the previous kernel in the stream
// (rocarray._core.driver.DependentLaunch): its blocks are placed while that kernel's last blocks
// finish and wait for it (ra_grid_dependency_wait) before their first copy.
// Without the copy engine (other targets) the block's threads copy each group in 16-byte vectors
// through one stage, two barriers a group; the host launches this kernel on sm_90 only.
// (HIP reads the second launch bound as waves per SIMD; the host launches this kernel on NVIDIA.)
// The ring's alignment in dynamic shared memory: 1024 bytes, faster than the bulk copy's 16 bytes
// alone (docs/performance/rocblas.md).
#define RA_ROCBLAS_GB_BULK_ALIGN 1024

template <int S> struct ra_rocblas_gb_bulk_cfg {
    typedef ra_rocblas_gb_cfg<float, S> C;
    static_assert(C::R == 4, "the bulk kernel reads float4 micro-tile rows");
    static constexpr int MB = C::MB;
    static constexpr int MAT = S * S;                 // floats of one operand matrix
    static constexpr int STAGE = 2 * MB * MAT;        // a ring stage: the group's A, then its B
    static constexpr unsigned BYTES = MAT * sizeof(float);
    // Ring stages and resident blocks per multiprocessor: the fastest pairs timed
    // (docs/performance/rocblas.md).
    static constexpr int STAGES = MB > 1 ? 4 : 3;
    static constexpr int BLOCKS = MB > 1 ? 1 : 2;
};

// Thread t: matrix mb of the group, rows 4 tx .., columns 4 ty .. of its C. Lanes run over tx
// first, so a warp spans as few ty as the tile allows (4 for S = 2^5, 2 for 2^6): B(k, j) of the
// untransposed B, a float4 along k of column j, is then read at as few addresses of one bank
// group as possible (faster than the mapping of ra_rocblas_gb_thread, 4 ty a warp).
template <int S> struct ra_rocblas_gb_bulk_thread {
    static constexpr int TD = S / 4;
    int mb, tx, ty;
    RA_DEVICE ra_rocblas_gb_bulk_thread() {
        const int t = (int)threadIdx.x;
        const int u = t % (TD * TD);
        mb = t / (TD * TD);
        tx = u % TD;
        ty = u / TD;
    }
};

template <int S, bool B_TRANS>
RA_DEVICE void ra_rocblas_gb_bulk_multiply(float (&acc)[4][4], const float* sa, const float* sb, int tx, int ty) {
    typedef ra_rocblas_gb_vec<float, 4, 16> V;
#pragma unroll 4
    for (int q = 0; q < S / 4; ++q) {   // k = 4 q .. 4 q + 3
        V a[4], b[4];
#pragma unroll
        for (int kk = 0; kk < 4; ++kk) a[kk] = *reinterpret_cast<const V*>(sa + (4 * q + kk) * S + 4 * tx);
#pragma unroll
        for (int u = 0; u < 4; ++u)
            b[u] = B_TRANS ? *reinterpret_cast<const V*>(sb + (4 * q + u) * S + 4 * ty)    // b[kk].v[c]
                           : *reinterpret_cast<const V*>(sb + (4 * ty + u) * S + 4 * q);   // b[c].v[kk]
#pragma unroll
        for (int kk = 0; kk < 4; ++kk)
#pragma unroll
            for (int r = 0; r < 4; ++r)
#pragma unroll
                for (int c = 0; c < 4; ++c)
                    acc[r][c] = ra_fma(a[kk].v[r], B_TRANS ? b[kk].v[c] : b[c].v[kk], acc[r][c]);
    }
}

#if defined(RA_BULK_COPY)
// Thread 0: the operands of group g (its matrices below batch) into `stage`, completing on `bar`.
template <int S>
RA_DEVICE void ra_rocblas_gb_bulk_issue(float* stage, unsigned bar, const float* A, ra_i64 stride_a,
                                        const float* B, ra_i64 stride_b, ra_i64 g, ra_i64 batch) {
    typedef ra_rocblas_gb_bulk_cfg<S> G;
    const ra_i64 b0 = g * G::MB;
    const int count = (int)(batch - b0 < G::MB ? batch - b0 : G::MB);
    ra_mbar_expect_tx(bar, (unsigned)(2 * count) * G::BYTES);
    for (int m = 0; m < count; ++m) {
        ra_bulk_load(ra_shared_address(stage + m * G::MAT), A + (b0 + m) * stride_a, G::BYTES, bar);
        ra_bulk_load(ra_shared_address(stage + (G::MB + m) * G::MAT), B + (b0 + m) * stride_b, G::BYTES, bar);
    }
}
#endif

template <int S, bool B_TRANS>
__global__ void __launch_bounds__(RA_ROCBLAS_GB_BLOCK, (ra_rocblas_gb_bulk_cfg<S>::BLOCKS))
ra_rocblas_gemm_batched_bulk(float alpha, const float* __restrict__ A, ra_i64 stride_a,
                             const float* __restrict__ B, ra_i64 stride_b,
                             float beta, float* __restrict__ Cmat,
                             ra_i64 ldc, ra_i64 stride_c, ra_i64 batch) {
    typedef ra_rocblas_gb_bulk_cfg<S> G;
    extern __shared__ unsigned char ra_rocblas_gb_bulk_smem[];
    float* const ring = reinterpret_cast<float*>(ra_align_shared<RA_ROCBLAS_GB_BULK_ALIGN>(ra_rocblas_gb_bulk_smem));
    const ra_i64 groups = (batch + G::MB - 1) / G::MB;
    const ra_i64 step = (ra_i64)gridDim.x;
    const ra_rocblas_gb_bulk_thread<S> th;
#if defined(RA_BULK_COPY)
    constexpr int STAGES = G::STAGES;
    __shared__ ra_u64 bars[G::STAGES];
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) ra_mbar_init(ra_shared_address(&bars[s]), 1u);
        ra_mbar_init_fence();
    }
    // Launched as a programmatic dependent: wait for the previous grid before any global access,
    // then let the next launch be scheduled as this grid's blocks leave (it waits likewise).
    ra_grid_dependency_wait();
    ra_grid_dependents_launch();
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            const ra_i64 g = (ra_i64)blockIdx.x + s * step;
            if (g < groups)
                ra_rocblas_gb_bulk_issue<S>(ring + s * G::STAGE, ra_shared_address(&bars[s]), A, stride_a, B,
                                            stride_b, g, batch);
        }
    }
    __syncthreads();   // the barriers are initialized before anyone waits on them
#else
    constexpr int STAGES = 1;
#endif
    int i = 0;
    for (ra_i64 g = (ra_i64)blockIdx.x; g < groups; g += step, ++i) {
        const int s = i % STAGES;
        float* const stage = ring + s * G::STAGE;
#if defined(RA_BULK_COPY)
        ra_mbar_wait(ra_shared_address(&bars[s]), (unsigned)((i / STAGES) & 1));
#else
        {
            typedef ra_rocblas_gb_vec<float, 4, 16> V;
            constexpr int VM = G::MAT / 4;   // float4 vectors per matrix
            const ra_i64 b0 = g * G::MB;
            for (int e = (int)threadIdx.x; e < G::STAGE / 4; e += RA_ROCBLAS_GB_BLOCK) {
                const int op = e / (G::MB * VM), m = (e / VM) % G::MB;
                if (b0 + m >= batch) continue;
                const float* src = op == 0 ? A + (b0 + m) * stride_a : B + (b0 + m) * stride_b;
                reinterpret_cast<V*>(stage)[e] = reinterpret_cast<const V*>(src)[e % VM];
            }
            __syncthreads();
        }
#endif
        const ra_i64 b = g * G::MB + th.mb;
        float acc[4][4];
        ra_rocblas_gb_ops<float, S>::zero(acc);
        if (b < batch)
            ra_rocblas_gb_bulk_multiply<S, B_TRANS>(acc, stage + th.mb * G::MAT,
                                                           stage + (G::MB + th.mb) * G::MAT, th.tx, th.ty);
        __syncthreads();   // every thread is done with the stage
#if defined(RA_BULK_COPY)
        if (threadIdx.x == 0 && g + STAGES * step < groups)   // in flight while C is written
            ra_rocblas_gb_bulk_issue<S>(stage, ra_shared_address(&bars[s]), A, stride_a, B, stride_b,
                                        g + STAGES * step, batch);
#endif
        if (b < batch)
            ra_rocblas_gb_ops<float, S>::write(acc, Cmat + b * stride_c, ldc, S, S, 0, 0, th.tx, th.ty, true, alpha,
                                               beta);
    }
}

// ---------------------------------------------------------------------------------------------
// square float32 products of 2^5, one team of threads a product
// ---------------------------------------------------------------------------------------------
// ra_rocblas_gemm_batched_team<B_TRANS>: C_b := alpha A_b op(B_b) + beta C_b for M = N = K = S = 2^5,
// with the bulk kernel's layout rules: op(A) = A with lda = S, op(B) = B (B_TRANS false) or B^T
// (true) with ldb = S, every A and B matrix 16-byte aligned (checked by the Python layer; ldc and
// stride_c are free). A block is one team of RA_ROCBLAS_GB_TEAM (8 x 4) threads and owns product
// blockIdx.x from start to end: its threads load both operand matrices (eight float4 of each a
// thread, 512 contiguous bytes a load instruction) into registers, store them to the block's
// 8 KiB of shared memory, meet at a barrier, multiply and write C. No loop and no ring: many teams
// are resident on a multiprocessor, each with up to 8 KiB of loads in flight, and the hardware
// starts the next product's team as soon as one leaves, so the loads, multiplies and C stores of
// different products interleave finely and the grid has neither a ramp nor a ragged end: the
// products move about as fast as a plain float4 stream moves the same bytes
// (docs/performance/rocblas.md). The loads pass through L1, so the host sets the shared-memory
// carveout (rocblas/_gemm/batched_kernels.py, TEAM_CARVEOUT) for 18 resident teams, the count
// that leaves L1 the room it needs.
// Thread (tx, ty) = (t % 8, t / 8): rows 4 tx .. 4 tx + 3 and eight columns, the k order of every
// sum that of the kernels above (the results are the same). A_b keeps its column-major layout (a
// float4 over four rows of one column: the eight tx read 128 contiguous bytes). op(B) = B: a
// column of B_b is one 128-byte row of shared memory, stored with chunk q (k = 4 q .. 4 q + 3) of
// column j at chunk q ^ (j % 8) (ra_rocblas_gb_team_swizzled); the thread's columns are ty + 4 c,
// so the four ty that read one chunk of their columns at once read four different bank groups.
// op(B) = B^T: B_b(k, j) at j + S k as loaded; the thread's columns are 4 ty .. 4 ty + 3 and
// 16 + 4 ty .. 16 + 4 ty + 3, one float4 of a row each.
// The host launches it on NVIDIA from sm_90 (on a 64-wide wavefront a team would fill half of one).
// The team: RA_ROCBLAS_GB_TEAM_TX threads down the rows (four rows each) by RA_ROCBLAS_GB_TEAM_TY
// across the columns (eight each); a thread count of the design, not of the hardware's warps.
#define RA_ROCBLAS_GB_TEAM_TX 8
#define RA_ROCBLAS_GB_TEAM_TY 4
#define RA_ROCBLAS_GB_TEAM (RA_ROCBLAS_GB_TEAM_TX * RA_ROCBLAS_GB_TEAM_TY)

// Float offset of chunk q (four floats) of 128-byte row j in the swizzled layout above.
RA_DEVICE int ra_rocblas_gb_team_swizzled(int j, int q) { return (j * 8 + (q ^ (j % 8))) * 4; }

template <bool B_TRANS>
__global__ void __launch_bounds__(RA_ROCBLAS_GB_TEAM)
ra_rocblas_gemm_batched_team(float alpha, const float* __restrict__ A, ra_i64 stride_a, const float* __restrict__ B,
                             ra_i64 stride_b, float beta, float* __restrict__ Cmat, ra_i64 ldc, ra_i64 stride_c) {
    constexpr int S = 4 * RA_ROCBLAS_GB_TEAM_TX;
    constexpr int VECS = S * S / 4 / RA_ROCBLAS_GB_TEAM;   // float4 of one operand per thread
    typedef ra_rocblas_gb_vec<float, 4, 16> V;
    __shared__ V sa[S * S / 4], sb[S * S / 4];
    const int t = (int)threadIdx.x;
    const ra_i64 b = (ra_i64)blockIdx.x;   // the grid is the batch: one block a product
    // Launched as a programmatic dependent where the driver has it: wait for the previous grid.
    ra_dependent_grid_enter();
    {
        const V* const a = reinterpret_cast<const V*>(A + b * stride_a);
        const V* const bm = reinterpret_cast<const V*>(B + b * stride_b);
        V va[VECS], vb[VECS];   // every load before the first store: all of them in flight at once
#pragma unroll
        for (int r = 0; r < VECS; ++r) {
            va[r] = a[t + RA_ROCBLAS_GB_TEAM * r];
            vb[r] = bm[t + RA_ROCBLAS_GB_TEAM * r];
        }
#pragma unroll
        for (int r = 0; r < VECS; ++r) {
            const int e = t + RA_ROCBLAS_GB_TEAM * r;   // float4 e: chunk e % 8 of column (row) e / 8
            sa[e] = va[r];
            sb[B_TRANS ? e : ra_rocblas_gb_team_swizzled(e / 8, e % 8) / 4] = vb[r];
        }
    }
    __syncthreads();
    const float* const fa = reinterpret_cast<const float*>(sa);
    const float* const fb = reinterpret_cast<const float*>(sb);
    const int tx = t % RA_ROCBLAS_GB_TEAM_TX, ty = t / RA_ROCBLAS_GB_TEAM_TX;
    float acc[2][4][4];   // [half h][row][column]: columns 16 h + (B_TRANS ? 4 ty + c : ty + 4 c)
#pragma unroll
    for (int h = 0; h < 2; ++h) ra_rocblas_gb_ops<float, S>::zero(acc[h]);
#pragma unroll 4
    for (int q = 0; q < S / 4; ++q) {   // k = 4 q .. 4 q + 3
        V a[4], bv[2][4];
#pragma unroll
        for (int kk = 0; kk < 4; ++kk) a[kk] = *reinterpret_cast<const V*>(fa + (4 * q + kk) * S + 4 * tx);
#pragma unroll
        for (int h = 0; h < 2; ++h)
#pragma unroll
            for (int u = 0; u < 4; ++u)   // B_TRANS: bv[h][kk].v[c]; else bv[h][c].v[kk]
                bv[h][u] = *reinterpret_cast<const V*>(
                    fb + (B_TRANS ? (4 * q + u) * S + 16 * h + 4 * ty : ra_rocblas_gb_team_swizzled(16 * h + ty + 4 * u, q)));
#pragma unroll
        for (int kk = 0; kk < 4; ++kk)
#pragma unroll
            for (int h = 0; h < 2; ++h)
#pragma unroll
                for (int c = 0; c < 4; ++c)
#pragma unroll
                    for (int r = 0; r < 4; ++r)
                        acc[h][r][c] = ra_fma(a[kk].v[r], B_TRANS ? bv[h][kk].v[c] : bv[h][c].v[kk], acc[h][r][c]);
    }
    float* const cb = Cmat + b * stride_c;
#pragma unroll
    for (int h = 0; h < 2; ++h)
        ra_rocblas_gb_ops<float, S>::write(acc[h], cb, ldc, S, S, 0, 16 * h, tx, ty, true, alpha, beta,
                                           B_TRANS ? 0 : 4);
}
