// One-sided (Hestenes) Jacobi SVD kernels of rocsolver gesvdj (rocarray/rocsolver/_svd.py).
//
// Every matrix of a batch has a work pair: W (p x q, p >= q, column-major, leading dimension p,
// matrices p*q apart) and V (q x q, leading dimension q, q*q apart). W starts as A (or A^H) and V
// as the identity; each rotation J of a column pair (i, j) updates [w_i w_j] := [w_i w_j] J and
// [v_i v_j] := [v_i v_j] J, so A V stays W. At convergence the columns of W are mutually
// orthogonal: their norms are the singular values, the normalized columns the left vectors.
// V may be null (no vectors of that side wanted): the rotations then touch W only.
//
// Pairs follow the round-robin (circle) tournament on qe = q rounded up to even: round r of qe - 1
// pairs column qe - 1 with r and (r + k) with (r - k) (mod qe - 1), k = 1 .. qe/2 - 1, so the qe/2
// pairs of a round are disjoint and every pair meets once per sweep; a pair with the pad column q
// (q odd) is skipped.
//
// The rotation of a pair with alpha = |w_i|^2, beta = |w_j|^2, gamma = w_i^H w_j (Hestenes; the
// complex form with e = gamma / |gamma|):
//   off  = |gamma| / (sqrt(alpha) sqrt(beta)); rotate only if off > tol
//   zeta = (beta - alpha) / (2 |gamma|), t = sign(zeta) / (|zeta| + sqrt(1 + zeta^2)),
//   c = 1 / sqrt(1 + t^2), s = c t
//   w_i := c w_i - s conj(e) w_j,   w_j := s e w_i + c w_j   (which makes w_i^H w_j zero)
// A pair with a non-finite alpha, beta or |gamma| is never rotated and reports off = +inf, so a
// matrix holding NaN or inf stops at once with info = 1 rather than iterating.

#define RA_SVD_BLOCK 256
#define RA_SVD_WARPS (RA_SVD_BLOCK / RA_WARP_SIZE)

// ---- element helpers (real and complex) -------------------------------------------------------

RA_DEVICE float ra_svd_abs2(float x) { return x * x; }
RA_DEVICE double ra_svd_abs2(double x) { return x * x; }
template <typename R> RA_DEVICE R ra_svd_abs2(ra_complex<R> z) { return z.re * z.re + z.im * z.im; }

RA_DEVICE float ra_svd_conj(float x) { return x; }
RA_DEVICE double ra_svd_conj(double x) { return x; }
template <typename R> RA_DEVICE ra_complex<R> ra_svd_conj(ra_complex<R> z) { return ra_conj(z); }

RA_DEVICE float ra_svd_re(float x) { return x; }
RA_DEVICE double ra_svd_re(double x) { return x; }
template <typename R> RA_DEVICE R ra_svd_re(ra_complex<R> z) { return z.re; }

template <typename T> struct ra_svd_elem {
    static RA_DEVICE T from_real(T r) { return r; }
};
template <typename R> struct ra_svd_elem<ra_complex<R> > {
    static RA_DEVICE ra_complex<R> from_real(R r) { return ra_make_complex<R>(r, R(0)); }
};

RA_DEVICE bool ra_svd_finite(float x) { return x - x == 0.0f; }
template <typename R> RA_DEVICE R ra_svd_inf();
template <> RA_DEVICE float ra_svd_inf<float>() { return __int_as_float(0x7f800000); }
template <> RA_DEVICE double ra_svd_inf<double>() { return __longlong_as_double(0x7ff0000000000000LL); }
RA_DEVICE bool ra_svd_finite(double x) { return x - x == 0.0; }

// ---- the pair tournament and the rotation ------------------------------------------------------

// Columns (i, j) of pair k in round r of the tournament on qe (even) columns.
RA_DEVICE void ra_svd_pair(ra_i64 r, ra_i64 k, ra_i64 qe, ra_i64& i, ra_i64& j) {
    const ra_i64 n1 = qe - 1;
    if (k == 0) {
        i = r;
        j = n1;
    } else {
        i = (r + k) % n1;
        j = (r - k + n1) % n1;
    }
}

// The rotation of a pair from its sums; false (no rotation) below the tolerance or for non-finite
// sums. `off` gets the pair's relative off-diagonal value (+inf for non-finite sums).
template <typename T, typename R>
RA_DEVICE bool ra_svd_rotation(R alpha, R beta, T gamma, R tol, R& c, T& se, T& sec, R& off) {
    const R g = ra_sqrt(ra_svd_abs2(gamma));
    if (!(ra_svd_finite(alpha) && ra_svd_finite(beta) && ra_svd_finite(g))) {
        off = ra_svd_inf<R>();
        return false;
    }
    if (alpha == R(0) || beta == R(0)) {  // a zero column is orthogonal to everything
        off = R(0);
        return false;
    }
    off = g / (ra_sqrt(alpha) * ra_sqrt(beta));
    if (!(off > tol)) return false;
    const R zeta = (beta - alpha) / (R(2) * g);
    const R az = ra_abs(zeta);
    // past 1e15, sqrt(1 + zeta^2) is |zeta| to working precision (and zeta^2 could overflow)
    R t = az > R(1e15) ? R(0.5) / az : R(1) / (az + ra_sqrt(R(1) + zeta * zeta));
    if (zeta < R(0)) t = -t;
    c = R(1) / ra_sqrt(R(1) + t * t);
    const R s = c * t;
    const T e = (R(1) / g) * gamma;
    se = s * e;
    sec = s * ra_svd_conj(e);
    return true;
}

// One element row x of a rotated pair: (a, b) := (c a - sec b, se a + c b).
template <typename T, typename R> RA_DEVICE void ra_svd_rotate(T* a, T* b, R c, T se, T sec) {
    const T x = *a, y = *b;
    *a = c * x - sec * y;
    *b = se * x + c * y;
}

// Bit pattern of a non-negative double, ordered as the value (for an atomic maximum).
RA_DEVICE ra_u64 ra_svd_order_bits(double v) { return (ra_u64)__double_as_longlong(v); }

// ---- load: W := A or A^H, V := I --------------------------------------------------------------

// A is the q x p (trans) or p x q matrix of each batch element, lda, strideA apart.
template <typename T>
__global__ void __launch_bounds__(RA_SVD_BLOCK)
ra_rocsolver_svd_load(ra_i64 p, ra_i64 q, ra_i64 batch, const T* RA_RESTRICT A, ra_i64 lda, ra_i64 strideA,
                      int trans, T* RA_RESTRICT W, T* RA_RESTRICT V) {
    const ra_i64 wsize = p * q, vsize = q * q;
    for (ra_i64 t = ra_global_thread_id(); t < batch * wsize; t += ra_grid_threads()) {
        const ra_i64 b = t / wsize, e = t - b * wsize;
        const ra_i64 j = e / p, i = e - j * p;
        const T* a = A + b * strideA;
        W[t] = trans ? ra_svd_conj(a[j + i * lda]) : a[i + j * lda];
    }
    for (ra_i64 t = ra_global_thread_id(); V != nullptr && t < batch * vsize; t += ra_grid_threads()) {
        const ra_i64 e = t % vsize;
        const ra_i64 j = e / q, i = e - j * q;
        V[t] = ra_svd_elem<T>::from_real(i == j ? 1 : 0);
    }
}

// ---- whole iteration of small matrices: one block per matrix ----------------------------------

// Sweeps until a sweep finds every pair at or below tol (info 0), a non-finite pair, or max_sweeps
// (info 1). Each warp takes pairs of a round in turn; rounds are separated by barriers. With
// in_shared the matrix and V live in dynamic shared memory ((p*q + q*q) elements, or p*q
// without V, 16-aligned)
// and are copied back at the end. Writes residual (the largest off of the last sweep), n_sweeps
// and info of its matrix.
template <typename T>
__global__ void __launch_bounds__(RA_SVD_BLOCK)
ra_rocsolver_gesvdj_small(ra_i64 p, ra_i64 q, T* RA_RESTRICT W, T* RA_RESTRICT V,
                          typename ra_real_of<T>::type tol, int max_sweeps, int in_shared,
                          typename ra_real_of<T>::type* RA_RESTRICT residual, int* RA_RESTRICT n_sweeps,
                          int* RA_RESTRICT info) {
    typedef typename ra_real_of<T>::type R;
    extern __shared__ unsigned char ra_svd_dynamic_smem[];
    __shared__ R warp_off[RA_SVD_WARPS];
    const ra_i64 b = blockIdx.x;
    T* const gw = W + b * p * q;
    T* const gv = V != nullptr ? V + b * q * q : nullptr;
    T* w = gw;
    T* v = gv;
    if (in_shared) {
        w = reinterpret_cast<T*>(ra_align_shared<16>(ra_svd_dynamic_smem));
        v = gv != nullptr ? w + p * q : nullptr;
        for (ra_i64 t = threadIdx.x; t < p * q; t += RA_SVD_BLOCK) w[t] = gw[t];
        for (ra_i64 t = threadIdx.x; v != nullptr && t < q * q; t += RA_SVD_BLOCK) v[t] = gv[t];
        __syncthreads();
    }
    const int lane = ra_lane_id(), warp = ra_warp_id();
    const ra_i64 qe = q + (q & 1), half = qe / 2;
    int sweep = 0;
    R worst = R(0);
    bool done = q < 2;
    while (!done && sweep < max_sweeps) {
        R my_off = R(0);  // the same in every lane of a warp
        for (ra_i64 r = 0; r < qe - 1; ++r) {
            for (ra_i64 k = warp; k < half; k += RA_SVD_WARPS) {
                ra_i64 i, j;
                ra_svd_pair(r, k, qe, i, j);
                if (i >= q || j >= q) continue;
                T* wi = w + i * p;
                T* wj = w + j * p;
                R alpha = R(0), beta = R(0);
                T gamma = ra_svd_elem<T>::from_real(R(0));
                for (ra_i64 x = lane; x < p; x += RA_WARP_SIZE) {
                    const T a = wi[x], bb = wj[x];
                    alpha += ra_svd_abs2(a);
                    beta += ra_svd_abs2(bb);
                    gamma = gamma + ra_svd_conj(a) * bb;
                }
                // butterfly sums: every lane holds the same bits, so the decision is warp-uniform
                alpha = ra_warp_reduce(alpha, ra_op_sum());
                beta = ra_warp_reduce(beta, ra_op_sum());
                gamma = ra_warp_reduce(gamma, ra_op_sum());
                R c = R(1), off = R(0);
                T se = gamma, sec = gamma;
                if (ra_svd_rotation(alpha, beta, gamma, tol, c, se, sec, off)) {
                    for (ra_i64 x = lane; x < p; x += RA_WARP_SIZE) ra_svd_rotate(wi + x, wj + x, c, se, sec);
                    if (v != nullptr) {
                        T* vi = v + i * q;
                        T* vj = v + j * q;
                        for (ra_i64 x = lane; x < q; x += RA_WARP_SIZE) ra_svd_rotate(vi + x, vj + x, c, se, sec);
                    }
                }
                my_off = ra_max(my_off, off);
            }
            __syncthreads();
        }
        if (lane == 0) warp_off[warp] = my_off;
        __syncthreads();
        worst = R(0);
        for (int u = 0; u < RA_SVD_WARPS; ++u) worst = ra_max(worst, warp_off[u]);
        ++sweep;
        done = worst <= tol || !ra_svd_finite(worst);
        __syncthreads();  // warp_off is rewritten by the next sweep
    }
    if (in_shared) {
        for (ra_i64 t = threadIdx.x; t < p * q; t += RA_SVD_BLOCK) gw[t] = w[t];
        for (ra_i64 t = threadIdx.x; v != nullptr && t < q * q; t += RA_SVD_BLOCK) gv[t] = v[t];
    }
    if (threadIdx.x == 0) {
        residual[b] = worst;
        n_sweeps[b] = sweep;
        info[b] = worst <= tol ? 0 : 1;
    }
}

// ---- one round of large matrices: one block per pair ------------------------------------------

// Block x takes pair x % (qe/2) of matrix x / (qe/2) in round r, and raises off_bits[matrix] to
// its pair's off (as ordered double bits; the host resets them each sweep).
template <typename T>
__global__ void __launch_bounds__(RA_SVD_BLOCK)
ra_rocsolver_gesvdj_round(ra_i64 p, ra_i64 q, ra_i64 r, T* RA_RESTRICT W, T* RA_RESTRICT V,
                          typename ra_real_of<T>::type tol, ra_u64* RA_RESTRICT off_bits) {
    typedef typename ra_real_of<T>::type R;
    __shared__ R scratch_a[RA_SVD_WARPS], scratch_b[RA_SVD_WARPS];
    __shared__ T scratch_g[RA_SVD_WARPS];
    __shared__ R s_c;
    __shared__ T s_se, s_sec;
    __shared__ int s_rot;
    const ra_i64 qe = q + (q & 1), half = qe / 2;
    const ra_i64 b = (ra_i64)blockIdx.x / half, k = (ra_i64)blockIdx.x - b * half;
    ra_i64 i, j;
    ra_svd_pair(r, k, qe, i, j);
    if (i >= q || j >= q) return;  // the whole block leaves together
    T* wi = W + b * p * q + i * p;
    T* wj = W + b * p * q + j * p;
    R alpha = R(0), beta = R(0);
    T gamma = ra_svd_elem<T>::from_real(R(0));
    for (ra_i64 x = threadIdx.x; x < p; x += RA_SVD_BLOCK) {
        const T a = wi[x], bb = wj[x];
        alpha += ra_svd_abs2(a);
        beta += ra_svd_abs2(bb);
        gamma = gamma + ra_svd_conj(a) * bb;
    }
    alpha = ra_block_reduce<RA_SVD_BLOCK>(alpha, ra_op_sum(), scratch_a);
    beta = ra_block_reduce<RA_SVD_BLOCK>(beta, ra_op_sum(), scratch_b);
    gamma = ra_block_reduce<RA_SVD_BLOCK>(gamma, ra_op_sum(), scratch_g);
    if (threadIdx.x == 0) {
        R c = R(1), off = R(0);
        T se = gamma, sec = gamma;
        s_rot = ra_svd_rotation(alpha, beta, gamma, tol, c, se, sec, off) ? 1 : 0;
        s_c = c;
        s_se = se;
        s_sec = sec;
        if (off > R(0)) atomicMax(off_bits + b, ra_svd_order_bits((double)off));
    }
    __syncthreads();
    if (s_rot) {
        const R c = s_c;
        const T se = s_se, sec = s_sec;
        for (ra_i64 x = threadIdx.x; x < p; x += RA_SVD_BLOCK) ra_svd_rotate(wi + x, wj + x, c, se, sec);
        if (V != nullptr) {
            T* vi = V + b * q * q + i * q;
            T* vj = V + b * q * q + j * q;
            for (ra_i64 x = threadIdx.x; x < q; x += RA_SVD_BLOCK) ra_svd_rotate(vi + x, vj + x, c, se, sec);
        }
    }
}

// ---- results: column norms, then the sorted outputs -------------------------------------------

// norms[b*q + j] := |w_j| of matrix b; block x takes column x % q of matrix x / q.
template <typename T>
__global__ void __launch_bounds__(RA_SVD_BLOCK)
ra_rocsolver_svd_norms(ra_i64 p, ra_i64 q, const T* RA_RESTRICT W, typename ra_real_of<T>::type* RA_RESTRICT norms) {
    typedef typename ra_real_of<T>::type R;
    __shared__ R scratch[RA_SVD_WARPS];
    const T* w = W + (ra_i64)blockIdx.x * p;  // column x of the batch's columns, p apart
    R sum = R(0);
    for (ra_i64 x = threadIdx.x; x < p; x += RA_SVD_BLOCK) sum += ra_svd_abs2(w[x]);
    sum = ra_block_reduce<RA_SVD_BLOCK>(sum, ra_op_sum(), scratch);
    if (threadIdx.x == 0) norms[blockIdx.x] = ra_sqrt(sum);
}

// Block x takes column j = x % q of matrix b = x / q: its place in descending order of the norms
// (NaN last, ties by index) is rank; S[b*strideS + rank] := norms_j; when X is given, vector rank
// of X (column rank, or row rank conjugated when xrow) := w_j / norms_j (zero when the norm is 0
// or not finite); when Y is given, vector rank of Y := v_j likewise.
template <typename T>
__global__ void __launch_bounds__(RA_SVD_BLOCK)
ra_rocsolver_svd_sort(ra_i64 p, ra_i64 q, const T* RA_RESTRICT W, const T* RA_RESTRICT V,
                      const typename ra_real_of<T>::type* RA_RESTRICT norms, typename ra_real_of<T>::type* RA_RESTRICT S,
                      ra_i64 strideS, T* RA_RESTRICT X, ra_i64 ldx, ra_i64 strideX, int xrow, T* RA_RESTRICT Y,
                      ra_i64 ldy, ra_i64 strideY, int yrow) {
    typedef typename ra_real_of<T>::type R;
    __shared__ int scratch[RA_SVD_WARPS];
    __shared__ int s_rank;
    const ra_i64 b = (ra_i64)blockIdx.x / q, j = (ra_i64)blockIdx.x - b * q;
    const R* nb = norms + b * q;
    const R sj = nb[j];
    const R kj = ra_isnan(sj) ? R(-1) : sj;
    int count = 0;
    for (ra_i64 k = threadIdx.x; k < q; k += RA_SVD_BLOCK) {
        const R kk = ra_isnan(nb[k]) ? R(-1) : nb[k];
        count += (kk > kj || (kk == kj && k < j)) ? 1 : 0;
    }
    count = ra_block_reduce<RA_SVD_BLOCK>(count, ra_op_sum(), scratch);
    if (threadIdx.x == 0) {
        s_rank = count;
        S[b * strideS + count] = sj;
    }
    __syncthreads();
    const ra_i64 rank = s_rank;
    if (X != nullptr) {
        const R inv = (sj > R(0) && ra_svd_finite(sj)) ? R(1) / sj : R(0);
        const T* w = W + b * p * q + j * p;
        T* x = X + b * strideX;
        for (ra_i64 e = threadIdx.x; e < p; e += RA_SVD_BLOCK) {
            const T val = inv * w[e];
            if (xrow) {
                x[rank + e * ldx] = ra_svd_conj(val);
            } else {
                x[e + rank * ldx] = val;
            }
        }
    }
    if (Y != nullptr) {
        const T* v = V + b * q * q + j * q;
        T* y = Y + b * strideY;
        for (ra_i64 e = threadIdx.x; e < q; e += RA_SVD_BLOCK) {
            if (yrow) {
                y[rank + e * ldy] = ra_svd_conj(v[e]);
            } else {
                y[e + rank * ldy] = v[e];
            }
        }
    }
}

// ---- block Jacobi on large matrices: three launches per round ---------------------------------
//
// The q columns form nb = ceil(q / RA_SVD_BC) blocks of RA_SVD_BC columns; the blocks follow the
// tournament of ra_svd_pair on nbe = nb rounded up to even, so a round is nbe/2 disjoint block
// pairs. Columns past q (the last block's padding, and the pad block nb when nb is odd) read as
// zero and are never written: a zero column never rotates, so a block paired with the pad block
// rotates its own columns only (with nb = 1 that is the whole iteration). A pair's
// RA_SVD_PC = 2 RA_SVD_BC columns X = [W_i W_j] are rotated at once:
//   gram:   G = X^H X (PC x PC), a partial sum per slice of the p rows
//   eig:    sums the slices, takes the largest relative off |G_uv| / sqrt(G_uu G_vv) of the pair
//           (the same test as a column pair's, for every column pair inside X), and when it is
//           above tol runs cyclic Jacobi sweeps on G (each rotation is the one a column pair of
//           X would get, ra_svd_rotation), accumulating J with G := J^H G J
//   rotate: [W_i W_j] := [W_i W_j] J and [V_i V_j] := [V_i V_j] J, in row tiles, for the pairs
//           the eig launch marked.
// Pair index x (all three launches) = b * (nbe/2) + k: block pair k of matrix b.

#define RA_SVD_BC 16
#define RA_SVD_PC (2 * RA_SVD_BC)
#define RA_SVD_GRAM_ROWS 64
#define RA_SVD_ROT_ROWS 32
static_assert(RA_SVD_BLOCK == 256 && RA_SVD_PC == 32, "the gram launch's 2 x 2 patches cover G with 256 threads");
static_assert(RA_SVD_BLOCK * 4 == RA_SVD_ROT_ROWS * RA_SVD_PC, "the rotate launch's 2 x 2 patches cover a tile");

// Column c (0 .. PC-1) of block pair (bi, bj): its index in W.
RA_DEVICE ra_i64 ra_svd_block_col(ra_i64 bi, ra_i64 bj, int c) {
    return c < RA_SVD_BC ? bi * RA_SVD_BC + c : bj * RA_SVD_BC + (c - RA_SVD_BC);
}

// Block x: slice s = x % splits of pair x / splits; G[(s * pairs + pair) * PC * PC + u + v * PC]
// := sum over the slice's rows of conj(X[row, u]) X[row, v]. Each thread sums a 2 x 2 patch.
template <typename T>
__global__ void __launch_bounds__(RA_SVD_BLOCK)
ra_rocsolver_gesvdj_block_gram(ra_i64 p, ra_i64 q, ra_i64 r, ra_i64 pairs, ra_i64 splits,
                               const T* RA_RESTRICT W, T* RA_RESTRICT G) {
    __shared__ T tile[RA_SVD_PC * (RA_SVD_GRAM_ROWS + 1)];  // tile[c * (rows + 1) + row]
    const ra_i64 nb = (q + RA_SVD_BC - 1) / RA_SVD_BC, nbe = nb + (nb & 1), half = nbe / 2;
    const ra_i64 pair = (ra_i64)blockIdx.x / splits, s = (ra_i64)blockIdx.x - pair * splits;
    const ra_i64 b = pair / half, k = pair - b * half;
    ra_i64 bi, bj;
    ra_svd_pair(r, k, nbe, bi, bj);
    const ra_i64 per = (p + splits - 1) / splits;
    const ra_i64 lo = s * per, hi = ra_min(p, lo + per);
    const T* w = W + b * p * q;
    const T zero = ra_svd_elem<T>::from_real(0);
    const int t = threadIdx.x;
    const int u0 = 2 * (t / (RA_SVD_PC / 2)), v0 = 2 * (t % (RA_SVD_PC / 2));
    T acc00 = zero, acc01 = zero, acc10 = zero, acc11 = zero;
    for (ra_i64 row0 = lo; row0 < hi; row0 += RA_SVD_GRAM_ROWS) {
        for (int e = t; e < RA_SVD_PC * RA_SVD_GRAM_ROWS; e += RA_SVD_BLOCK) {
            const int c = e / RA_SVD_GRAM_ROWS, x = e - c * RA_SVD_GRAM_ROWS;
            const ra_i64 col = ra_svd_block_col(bi, bj, c), row = row0 + x;
            tile[c * (RA_SVD_GRAM_ROWS + 1) + x] = (col < q && row < hi) ? w[col * p + row] : zero;
        }
        __syncthreads();
        for (int x = 0; x < RA_SVD_GRAM_ROWS; ++x) {
            const T a0 = ra_svd_conj(tile[u0 * (RA_SVD_GRAM_ROWS + 1) + x]);
            const T a1 = ra_svd_conj(tile[(u0 + 1) * (RA_SVD_GRAM_ROWS + 1) + x]);
            const T b0 = tile[v0 * (RA_SVD_GRAM_ROWS + 1) + x];
            const T b1 = tile[(v0 + 1) * (RA_SVD_GRAM_ROWS + 1) + x];
            acc00 = acc00 + a0 * b0;
            acc01 = acc01 + a0 * b1;
            acc10 = acc10 + a1 * b0;
            acc11 = acc11 + a1 * b1;
        }
        __syncthreads();
    }
    T* g = G + (s * pairs + pair) * (RA_SVD_PC * RA_SVD_PC);
    g[u0 + v0 * RA_SVD_PC] = acc00;
    g[u0 + (v0 + 1) * RA_SVD_PC] = acc01;
    g[u0 + 1 + v0 * RA_SVD_PC] = acc10;
    g[u0 + 1 + (v0 + 1) * RA_SVD_PC] = acc11;
}

// One block per pair: G (the sum of the splits slices) -> J (PC x PC, column-major, at J + pair *
// PC * PC) and rotate[pair] (1: apply J; 0: the pair is at or below tol, or its G is not finite).
// Raises off_bits[b] to the pair's largest off (+inf when G is not finite). At most inner_sweeps
// cyclic sweeps, each PC - 1 rounds of PC/2 disjoint rotations (parameters from G before the
// round, then G's columns and J's, then G's rows); ends early after a sweep with no rotation.
template <typename T>
__global__ void __launch_bounds__(RA_SVD_BLOCK)
ra_rocsolver_gesvdj_block_eig(ra_i64 q, ra_i64 r, ra_i64 pairs, ra_i64 splits, const T* RA_RESTRICT G,
                              T* RA_RESTRICT J, int* RA_RESTRICT rotate, typename ra_real_of<T>::type tol,
                              int inner_sweeps, ra_u64* RA_RESTRICT off_bits) {
    typedef typename ra_real_of<T>::type R;
    constexpr int PC = RA_SVD_PC, NP = PC / 2;
    __shared__ T g[PC * PC];
    __shared__ T jm[PC * PC];
    __shared__ R s_c[NP];
    __shared__ T s_se[NP], s_sec[NP];
    __shared__ int s_rot[NP];
    __shared__ R scratch[RA_SVD_WARPS];
    __shared__ int iscratch[RA_SVD_WARPS];
    __shared__ R s_worst;
    __shared__ int s_any;
    const ra_i64 nb = (q + RA_SVD_BC - 1) / RA_SVD_BC, nbe = nb + (nb & 1), half = nbe / 2;
    const ra_i64 pair = blockIdx.x, b = pair / half, k = pair - b * half;
    ra_i64 bi, bj;
    ra_svd_pair(r, k, nbe, bi, bj);
    const int t = threadIdx.x;
    for (int e = t; e < PC * PC; e += RA_SVD_BLOCK) {
        T sum = G[pair * PC * PC + e];
        for (ra_i64 s = 1; s < splits; ++s) sum = sum + G[(s * pairs + pair) * PC * PC + e];
        g[e] = sum;
        jm[e] = ra_svd_elem<T>::from_real(e % (PC + 1) == 0 ? 1 : 0);
    }
    __syncthreads();
    // the pair's largest off and whether every entry of G is finite
    R my_off = R(0);
    int bad = 0;
    for (int e = t; e < PC * PC; e += RA_SVD_BLOCK) {
        const int u = e % PC, v = e / PC;
        const R gabs = ra_sqrt(ra_svd_abs2(g[e]));
        if (!ra_svd_finite(gabs)) bad = 1;
        if (u < v) {
            const R a = ra_svd_re(g[u * (PC + 1)]), bb = ra_svd_re(g[v * (PC + 1)]);
            if (a > R(0) && bb > R(0)) my_off = ra_max(my_off, gabs / (ra_sqrt(a) * ra_sqrt(bb)));
        }
    }
    const R worst = ra_block_reduce<RA_SVD_BLOCK>(my_off, ra_op_max(), scratch);
    const int any_bad = ra_block_reduce<RA_SVD_BLOCK>(bad, ra_op_sum(), iscratch);
    if (t == 0) {
        const R off = any_bad ? ra_svd_inf<R>() : worst;
        s_worst = any_bad ? ra_svd_inf<R>() : off;
        if (off > R(0)) atomicMax(off_bits + b, ra_svd_order_bits((double)off));
        rotate[pair] = (!any_bad && off > tol) ? 1 : 0;
    }
    __syncthreads();
    if (!(s_worst > tol) || !ra_svd_finite(s_worst)) return;
    if (t == 0) s_any = 0;
    __syncthreads();
    for (int sweep = 0; sweep < inner_sweeps; ++sweep) {
        for (int ir = 0; ir < PC - 1; ++ir) {
            if (t < NP) {
                ra_i64 i, j;
                ra_svd_pair(ir, t, PC, i, j);
                R c = R(1), off = R(0);
                T se = g[i + j * PC], sec = se;
                const int rot = ra_svd_rotation(ra_svd_re(g[i * (PC + 1)]), ra_svd_re(g[j * (PC + 1)]),
                                                g[i + j * PC], tol, c, se, sec, off) ? 1 : 0;
                s_rot[t] = rot;
                s_c[t] = c;
                s_se[t] = se;
                s_sec[t] = sec;
                if (rot) s_any = 1;
            }
            __syncthreads();
            // G := G J_round and J := J J_round (columns i, j of each rotated pair)
            for (int e = t; e < NP * PC; e += RA_SVD_BLOCK) {
                const int kk = e / PC, x = e - kk * PC;
                if (!s_rot[kk]) continue;
                ra_i64 i, j;
                ra_svd_pair(ir, kk, PC, i, j);
                ra_svd_rotate(g + x + i * PC, g + x + j * PC, s_c[kk], s_se[kk], s_sec[kk]);
                ra_svd_rotate(jm + x + i * PC, jm + x + j * PC, s_c[kk], s_se[kk], s_sec[kk]);
            }
            __syncthreads();
            // G := J_round^H G (rows i, j: the conjugate rotation)
            for (int e = t; e < NP * PC; e += RA_SVD_BLOCK) {
                const int kk = e / PC, y = e - kk * PC;
                if (!s_rot[kk]) continue;
                ra_i64 i, j;
                ra_svd_pair(ir, kk, PC, i, j);
                ra_svd_rotate(g + i + y * PC, g + j + y * PC, s_c[kk], s_sec[kk], s_se[kk]);
            }
            __syncthreads();
        }
        const int any = s_any;
        __syncthreads();  // every thread has read s_any before it is reset
        if (!any) break;
        if (t == 0) s_any = 0;
        __syncthreads();
    }
    for (int e = t; e < PC * PC; e += RA_SVD_BLOCK) J[pair * PC * PC + e] = jm[e];
}

// Block x: row tile x % tiles of pair x / tiles, tiles = ceil(p / ROT_ROWS) tiles of W then
// ceil(q / ROT_ROWS) of V (none when V is null); a marked pair's tile of [X_i X_j] := tile J.
// Tiles are disjoint and read whole before they are written, so the update is in place.
template <typename T>
__global__ void __launch_bounds__(RA_SVD_BLOCK)
ra_rocsolver_gesvdj_block_rotate(ra_i64 p, ra_i64 q, ra_i64 r, ra_i64 tiles, T* RA_RESTRICT W, T* RA_RESTRICT V,
                                 const T* RA_RESTRICT J, const int* RA_RESTRICT rotate) {
    constexpr int PC = RA_SVD_PC, RT = RA_SVD_ROT_ROWS;
    __shared__ T jm[PC * PC];
    __shared__ T tile[PC * RT];  // tile[c * RT + row]
    const ra_i64 nb = (q + RA_SVD_BC - 1) / RA_SVD_BC, nbe = nb + (nb & 1), half = nbe / 2;
    const ra_i64 pair = (ra_i64)blockIdx.x / tiles, tl = (ra_i64)blockIdx.x - pair * tiles;
    const ra_i64 b = pair / half, k = pair - b * half;
    ra_i64 bi, bj;
    ra_svd_pair(r, k, nbe, bi, bj);
    if (!rotate[pair]) return;
    const ra_i64 wtiles = (p + RT - 1) / RT;
    T* x;
    ra_i64 rows, ld, row0;
    if (tl < wtiles) {
        x = W + b * p * q;
        rows = p;
        ld = p;
        row0 = tl * RT;
    } else {
        x = V + b * q * q;
        rows = q;
        ld = q;
        row0 = (tl - wtiles) * RT;
    }
    const int t = threadIdx.x;
    const T zero = ra_svd_elem<T>::from_real(0);
    for (int e = t; e < PC * PC; e += RA_SVD_BLOCK) jm[e] = J[pair * PC * PC + e];
    for (int e = t; e < PC * RT; e += RA_SVD_BLOCK) {
        const int c = e / RT, xr = e - c * RT;
        const ra_i64 col = ra_svd_block_col(bi, bj, c), row = row0 + xr;
        tile[e] = (col < q && row < rows) ? x[col * ld + row] : zero;
    }
    __syncthreads();
    // each thread: rows xr and xr + RT/2, columns v0 and v0 + 1 (a 2 x 2 patch: one shared load
    // per multiply-add)
    const int xr = t % (RT / 2), v0 = 2 * (t / (RT / 2));
    T acc00 = zero, acc01 = zero, acc10 = zero, acc11 = zero;
#pragma unroll 8
    for (int u = 0; u < PC; ++u) {
        const T a0 = tile[u * RT + xr], a1 = tile[u * RT + xr + RT / 2];
        const T j0 = jm[u + v0 * PC], j1 = jm[u + (v0 + 1) * PC];
        acc00 = acc00 + a0 * j0;
        acc01 = acc01 + a0 * j1;
        acc10 = acc10 + a1 * j0;
        acc11 = acc11 + a1 * j1;
    }
    const ra_i64 col0 = ra_svd_block_col(bi, bj, v0), col1 = ra_svd_block_col(bi, bj, v0 + 1);
    const ra_i64 r0 = row0 + xr, r1 = r0 + RT / 2;
    if (r0 < rows && col0 < q) x[col0 * ld + r0] = acc00;
    if (r0 < rows && col1 < q) x[col1 * ld + r0] = acc01;
    if (r1 < rows && col0 < q) x[col0 * ld + r1] = acc10;
    if (r1 < rows && col1 < q) x[col1 * ld + r1] = acc11;
}
