// rocsolver: the symmetric/Hermitian eigenproblem (rocarray/rocsolver/_eigh_kernels.py).
//
// ra_rocsolver_syevj_small<T, VGLOBAL>: cyclic two-sided Jacobi, one block per matrix, the matrix
//   in shared memory, the eigenvectors too (VGLOBAL false) or rotated in place in the output matrix
//   in global memory (VGLOBAL true: orders whose A and V do not both fit). Each round rotates n/2 disjoint pairs at once, chosen by the
//   round-robin (circle) tournament, so a sweep of n - 1 rounds (n + 1 - 1 for odd n, with a dummy
//   index) meets every pair once. Stops when off(A) <= tol or after max_sweeps sweeps.
// ra_rocsolver_larfg<T>: one Householder reflector (LAPACK's larfg, one block).
// ra_rocsolver_latrd_w<T>: the last step of latrd's w column (one block).
//
// Every kernel uses RA_EIGH_BLOCK threads (a power of two, a multiple of the warp on both vendors).

#define RA_EIGH_BLOCK 256
#define RA_EIGH_UPPER 1
#define RA_EIGH_VECTORS 2

// Real and complex elements through one set of names.
template <typename T> struct ra_eig_ops;
template <> struct ra_eig_ops<float> {
    typedef float R;
    static RA_DEVICE float eps() { return 1.1920928955078125e-07f; }
    static RA_DEVICE float re(float x) { return x; }
    static RA_DEVICE float im(float) { return 0.0f; }
    static RA_DEVICE float conj(float x) { return x; }
    static RA_DEVICE float abs2(float x) { return x * x; }
    static RA_DEVICE float mag(float x) { return fabsf(x); }
    static RA_DEVICE float make(float re, float) { return re; }
};
template <> struct ra_eig_ops<double> {
    typedef double R;
    static RA_DEVICE double eps() { return 2.220446049250313e-16; }
    static RA_DEVICE double re(double x) { return x; }
    static RA_DEVICE double im(double) { return 0.0; }
    static RA_DEVICE double conj(double x) { return x; }
    static RA_DEVICE double abs2(double x) { return x * x; }
    static RA_DEVICE double mag(double x) { return fabs(x); }
    static RA_DEVICE double make(double re, double) { return re; }
};
template <> struct ra_eig_ops<ra_c64> {
    typedef float R;
    static RA_DEVICE float eps() { return 1.1920928955078125e-07f; }
    static RA_DEVICE float re(ra_c64 x) { return x.re; }
    static RA_DEVICE float im(ra_c64 x) { return x.im; }
    static RA_DEVICE ra_c64 conj(ra_c64 x) { return ra_make_complex<float>(x.re, -x.im); }
    static RA_DEVICE float abs2(ra_c64 x) { return x.re * x.re + x.im * x.im; }
    static RA_DEVICE float mag(ra_c64 x) { return hypotf(x.re, x.im); }
    static RA_DEVICE ra_c64 make(float re, float im) { return ra_make_complex<float>(re, im); }
};
template <> struct ra_eig_ops<ra_c128> {
    typedef double R;
    static RA_DEVICE double eps() { return 2.220446049250313e-16; }
    static RA_DEVICE double re(ra_c128 x) { return x.re; }
    static RA_DEVICE double im(ra_c128 x) { return x.im; }
    static RA_DEVICE ra_c128 conj(ra_c128 x) { return ra_make_complex<double>(x.re, -x.im); }
    static RA_DEVICE double abs2(ra_c128 x) { return x.re * x.re + x.im * x.im; }
    static RA_DEVICE double mag(ra_c128 x) { return hypot(x.re, x.im); }
    static RA_DEVICE ra_c128 make(double re, double im) { return ra_make_complex<double>(re, im); }
};

// The sum over the block of one value per thread; every thread gets the same total. `red` holds
// RA_EIGH_BLOCK values; the final barrier lets the next call overwrite it.
template <typename S>
RA_DEVICE S ra_eig_block_sum(S v, S* red) {
    const int t = (int)threadIdx.x;
    red[t] = v;
    __syncthreads();
    for (int s = RA_EIGH_BLOCK / 2; s > 0; s >>= 1) {
        if (t < s) red[t] = red[t] + red[t + s];
        __syncthreads();
    }
    const S total = red[0];
    __syncthreads();
    return total;
}

// The largest value over the block (NaN wins, so a NaN input is seen).
template <typename R>
RA_DEVICE R ra_eig_block_max(R v, R* red) {
    const int t = (int)threadIdx.x;
    red[t] = v;
    __syncthreads();
    for (int s = RA_EIGH_BLOCK / 2; s > 0; s >>= 1) {
        if (t < s) {
            const R a = red[t], b = red[t + s];
            red[t] = (a != a || b < a) ? a : b;
        }
        __syncthreads();
    }
    const R total = red[0];
    __syncthreads();
    return total;
}

// Pair k of round r of the circle tournament on m (even) players: player 0 stays, players
// 1..m-1 rotate. Returns p < q.
RA_DEVICE void ra_eig_pair(int r, int k, int m, int& p, int& q) {
    const int c = m - 1;
    int a, b;
    if (k == 0) {
        a = 0;
        b = 1 + r % c;
    } else {
        a = 1 + (r + k) % c;
        b = 1 + (r - k + c) % c;
    }
    p = a < b ? a : b;
    q = a < b ? b : a;
}

// j sorts before i: ascending, NaN last, ties by index (a strict total order, so the ranks are a
// permutation even for NaN).
template <typename R>
RA_DEVICE bool ra_eig_before(R wj, int j, R wi, int i) {
    const bool nj = wj != wj, ni = wi != wi;
    if (nj != ni) return ni;
    if (wj < wi) return true;
    if (wi < wj) return false;
    return j < i;
}

// A (n x n, column-major, lda; only the `uplo` triangle read) of matrix blockIdx.x: eigenvalues
// ascending into W, eigenvectors (with flags & VECTORS) over A's columns in the same order.
// info = 0 if off(A) <= tol was reached (A finite), else 1; residual = off(A) at the end,
// n_sweeps = sweeps done (either may be null). tol = abstol if abstol > 0, else eps * ||A||_F.
// Shared memory: T sA[n * (n+1)], sV[n * (n+1)] (vectors, !VGLOBAL), ss[m/2]; R sc[m/2], snp[m/2],
// snq[m/2], red[BLOCK], sw[n]; int srank[n] (m = n rounded up to even).
template <typename T, bool VGLOBAL>
__global__ void __launch_bounds__(RA_EIGH_BLOCK)
ra_rocsolver_syevj_small(int n, T* __restrict__ A, ra_i64 lda, ra_i64 strideA, typename ra_eig_ops<T>::R abstol,
                         typename ra_eig_ops<T>::R* __restrict__ residual, int max_sweeps, int* __restrict__ n_sweeps,
                         typename ra_eig_ops<T>::R* __restrict__ W, ra_i64 strideW, int* __restrict__ info,
                         int flags) {
    typedef ra_eig_ops<T> O;
    typedef typename O::R R;
    extern __shared__ ra_c128 ra_rocsolver_eigh_smem[];
    const bool upper = (flags & RA_EIGH_UPPER) != 0;
    const bool vectors = (flags & RA_EIGH_VECTORS) != 0;
    const int m = n + (n & 1);
    const int half = m / 2;
    const int lds = n + 1;  // padded: row accesses of one round hit different banks
    T* sA = reinterpret_cast<T*>(ra_rocsolver_eigh_smem);
    T* sV = sA + (ra_i64)n * lds;
    T* ss = sV + ((vectors && !VGLOBAL) ? (ra_i64)n * lds : 0);
    R* sc = reinterpret_cast<R*>(ss + half);
    R* snp = sc + half;
    R* snq = snp + half;
    R* red = snq + half;
    R* sw = red + RA_EIGH_BLOCK;
    int* srank = reinterpret_cast<int*>(sw + n);

    const int t = (int)threadIdx.x;
    const ra_i64 b = (ra_i64)blockIdx.x;
    T* Ab = A + b * strideA;
    const T zero = O::make(R(0), R(0));
    const T one = O::make(R(1), R(0));

    // the Hermitian matrix from its stored triangle (diagonal real)
    for (int e = t; e < n * n; e += RA_EIGH_BLOCK) {
        const int i = e % n, j = e / n;
        const bool stored = upper ? (i <= j) : (i >= j);
        T v = stored ? Ab[i + (ra_i64)j * lda] : O::conj(Ab[j + (ra_i64)i * lda]);
        if (i == j) v = O::make(O::re(v), R(0));
        sA[i + j * lds] = v;
        if (vectors && !VGLOBAL) sV[i + j * lds] = (i == j) ? one : zero;
    }
    __syncthreads();
    // V := I over A's global matrix once every thread has read it
    if (vectors && VGLOBAL) {
        for (int e = t; e < n * n; e += RA_EIGH_BLOCK) {
            const int i = e % n, j = e / n;
            Ab[i + (ra_i64)j * lda] = (i == j) ? one : zero;
        }
        __syncthreads();
    }

    R frob2 = R(0), off2 = R(0);
    for (int e = t; e < n * n; e += RA_EIGH_BLOCK) {
        const int i = e % n, j = e / n;
        const R a2 = O::abs2(sA[i + j * lds]);
        frob2 += a2;
        if (i != j) off2 += a2;
    }
    frob2 = ra_eig_block_sum<R>(frob2, red);
    R off = sqrt(ra_eig_block_sum<R>(off2, red));
    const R tol = abstol > R(0) ? abstol : O::eps() * sqrt(frob2);
    // inf or NaN anywhere (or squares past the range) never converges: max_sweeps sweeps, info = 1
    const bool finite = (frob2 - frob2) == R(0);

    int sweeps = 0;
    while (!(finite && off <= tol) && sweeps < max_sweeps) {
        for (int r = 0; r < m - 1; ++r) {
            // 1. the rotation of each pair: J = [[c, s], [-conj(s), c]] makes (J^H A J)(p, q) = 0
            if (t < half) {
                int p, q;
                ra_eig_pair(r, t, m, p, q);
                if (q < n) {
                    const R a = O::re(sA[p + p * lds]), d = O::re(sA[q + q * lds]);
                    const T beta = sA[p + q * lds];
                    const R bm = O::mag(beta);
                    R c = R(1), tt = R(0);
                    T s = zero;
                    if (bm != R(0)) {
                        // Rutishauser's smaller angle on the real pair [[a, |beta|], [|beta|, d]]
                        const R tau = (d - a) / (R(2) * bm);
                        const R sgn = tau >= R(0) ? R(1) : R(-1);
                        const R at = fabs(tau);
                        if (at > R(1)) {
                            const R inv = R(1) / at;
                            tt = sgn / (at * (R(1) + sqrt(R(1) + inv * inv)));
                        } else {
                            tt = sgn / (at + sqrt(R(1) + at * at));
                        }
                        c = R(1) / sqrt(R(1) + tt * tt);
                        s = ((tt * c) / bm) * beta;  // the real sine times beta's phase
                    }
                    sc[t] = c;
                    ss[t] = s;
                    snp[t] = a - tt * bm;
                    snq[t] = d + tt * bm;
                }
            }
            __syncthreads();
            // 2. columns: A := A J, V := V J
            for (int e = t; e < n * half; e += RA_EIGH_BLOCK) {
                const int k = e / n, i = e % n;
                int p, q;
                ra_eig_pair(r, k, m, p, q);
                if (q < n) {
                    const R c = sc[k];
                    const T s = ss[k], sb = O::conj(s);
                    const T ap = sA[i + p * lds], aq = sA[i + q * lds];
                    sA[i + p * lds] = c * ap - sb * aq;
                    sA[i + q * lds] = s * ap + c * aq;
                    if (vectors && !VGLOBAL) {
                        const T vp = sV[i + p * lds], vq = sV[i + q * lds];
                        sV[i + p * lds] = c * vp - sb * vq;
                        sV[i + q * lds] = s * vp + c * vq;
                    } else if (vectors) {
                        T* vcp = Ab + (ra_i64)p * lda;
                        T* vcq = Ab + (ra_i64)q * lda;
                        const T vp = vcp[i], vq = vcq[i];
                        vcp[i] = c * vp - sb * vq;
                        vcq[i] = s * vp + c * vq;
                    }
                }
            }
            __syncthreads();
            // 3. rows: A := J^H A; the pair's own 2 x 2 block (columns p and q of rows p and q,
            // written only here) set exactly: diagonal real, (p, q) and (q, p) zero
            for (int e = t; e < n * half; e += RA_EIGH_BLOCK) {
                const int k = e / n, j = e % n;
                int p, q;
                ra_eig_pair(r, k, m, p, q);
                if (q < n) {
                    if (j == p) {
                        sA[p + j * lds] = O::make(snp[k], R(0));
                        sA[q + j * lds] = zero;
                    } else if (j == q) {
                        sA[p + j * lds] = zero;
                        sA[q + j * lds] = O::make(snq[k], R(0));
                    } else {
                        const R c = sc[k];
                        const T s = ss[k], sb = O::conj(s);
                        const T ap = sA[p + j * lds], aq = sA[q + j * lds];
                        sA[p + j * lds] = c * ap - s * aq;
                        sA[q + j * lds] = sb * ap + c * aq;
                    }
                }
            }
            __syncthreads();
        }
        ++sweeps;
        off2 = R(0);
        for (int e = t; e < n * n; e += RA_EIGH_BLOCK) {
            const int i = e % n, j = e / n;
            if (i != j) off2 += O::abs2(sA[i + j * lds]);
        }
        off = sqrt(ra_eig_block_sum<R>(off2, red));
    }

    // ascending order: rank of each eigenvalue, then scatter values and vectors
    for (int i = t; i < n; i += RA_EIGH_BLOCK) sw[i] = O::re(sA[i + i * lds]);
    __syncthreads();
    for (int i = t; i < n; i += RA_EIGH_BLOCK) {
        const R wi = sw[i];
        int rank = 0;
        for (int j = 0; j < n; ++j) rank += ra_eig_before<R>(sw[j], j, wi, i) ? 1 : 0;
        srank[i] = rank;
    }
    __syncthreads();
    R* Wb = W + b * strideW;
    for (int i = t; i < n; i += RA_EIGH_BLOCK) Wb[srank[i]] = sw[i];
    if (vectors && VGLOBAL) {
        // stage V through sA (A's values are no longer needed), then scatter the columns
        for (int e = t; e < n * n; e += RA_EIGH_BLOCK) {
            const int i = e % n, j = e / n;
            sA[i + j * lds] = Ab[i + (ra_i64)j * lda];
        }
        __syncthreads();
    }
    if (vectors) {
        const T* Vs = VGLOBAL ? sA : sV;
        for (int e = t; e < n * n; e += RA_EIGH_BLOCK) {
            const int i = e % n, j = e / n;
            Ab[i + (ra_i64)srank[j] * lda] = Vs[i + j * lds];
        }
    }
    if (t == 0) {
        info[b] = (finite && off <= tol) ? 0 : 1;
        if (residual != nullptr) residual[b] = off;
        if (n_sweeps != nullptr) n_sweeps[b] = sweeps;
    }
}

// LAPACK's larfg on v = (alpha, x) of length m >= 1 (x = v[1..m-1]): H = I - tau u u^H with
// u = (1, x / (alpha - beta)) makes H^H v = (beta, 0), beta real. Writes beta to E[k], tau to
// tau[k], u's tail over x and 1 over alpha. H = I (tau = 0, beta = alpha) when x = 0 and alpha is
// real. (No rescaling for a tiny beta, unlike LAPACK.)
template <typename T>
__global__ void __launch_bounds__(RA_EIGH_BLOCK)
ra_rocsolver_larfg(ra_i64 m, T* __restrict__ v, typename ra_eig_ops<T>::R* __restrict__ E, T* __restrict__ tau,
                   ra_i64 k) {
    typedef ra_eig_ops<T> O;
    typedef typename O::R R;
    __shared__ R red[RA_EIGH_BLOCK];
    const int t = (int)threadIdx.x;
    // ||x|| scaled by its largest magnitude (no overflow or underflow in the squares)
    R big = R(0);
    for (ra_i64 i = 1 + t; i < m; i += RA_EIGH_BLOCK) {
        const R a = fmax(fabs(O::re(v[i])), fabs(O::im(v[i])));
        big = (a != a || a > big) ? a : big;
    }
    big = ra_eig_block_max<R>(big, red);
    R sum = R(0);
    if (big > R(0)) {
        const R inv = R(1) / big;
        for (ra_i64 i = 1 + t; i < m; i += RA_EIGH_BLOCK) sum += O::abs2(inv * v[i]);
    }
    sum = ra_eig_block_sum<R>(sum, red);
    const T alpha = v[0];
    const R ar = O::re(alpha), ai = O::im(alpha);
    const R xnorm = big > R(0) ? big * sqrt(sum) : (big == big ? R(0) : big);
    __syncthreads();  // every thread has read alpha before thread 0 overwrites it
    if (xnorm == R(0) && ai == R(0)) {
        if (t == 0) {
            E[k] = ar;
            tau[k] = O::make(R(0), R(0));
            v[0] = O::make(R(1), R(0));
        }
        return;
    }
    // |(ar, ai, xnorm)| without overflow
    const R s = fmax(fmax(fabs(ar), fabs(ai)), xnorm);
    const R ars = ar / s, ais = ai / s, xs = xnorm / s;
    const R norm = s * sqrt(ars * ars + ais * ais + xs * xs);
    const R beta = ar >= R(0) ? -norm : norm;
    // 1 / (alpha - beta) = conj(z) / |z|^2, z = (ar - beta, ai)
    const R zr = ar - beta, zi = ai;
    const R zs = fmax(fabs(zr), fabs(zi));
    const R zrs = zr / zs, zis = zi / zs;
    const R den = zs * (zrs * zrs + zis * zis);
    const T scale = O::make(zrs / den, -zis / den);
    for (ra_i64 i = 1 + t; i < m; i += RA_EIGH_BLOCK) v[i] = scale * v[i];
    if (t == 0) {
        E[k] = beta;
        tau[k] = O::make((beta - ar) / beta, -ai / beta);
        v[0] = O::make(R(1), R(0));
    }
}

// w := tau[k] w, then w += alpha u with alpha = -tau[k] conj(tau[k]) (w^H u) / 2 (w before the
// scaling): the end of latrd's column w for reflector k (u of length m, w of length m).
template <typename T>
__global__ void __launch_bounds__(RA_EIGH_BLOCK)
ra_rocsolver_latrd_w(ra_i64 m, T* __restrict__ w, const T* __restrict__ u, const T* __restrict__ tau, ra_i64 k) {
    typedef ra_eig_ops<T> O;
    typedef typename O::R R;
    __shared__ T red[RA_EIGH_BLOCK];
    const int t = (int)threadIdx.x;
    T dot = O::make(R(0), R(0));
    for (ra_i64 i = t; i < m; i += RA_EIGH_BLOCK) dot = dot + O::conj(w[i]) * u[i];
    dot = ra_eig_block_sum<T>(dot, red);
    const T tk = tau[k];
    const T alpha = R(-0.5) * (tk * (O::conj(tk) * dot));
    for (ra_i64 i = t; i < m; i += RA_EIGH_BLOCK) w[i] = tk * w[i] + alpha * u[i];
}
