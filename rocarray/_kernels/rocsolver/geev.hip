// The scalar-heavy steps of rocsolver's general eigenproblem (gehrd, orghr/unghr, geev): making one
// Householder reflector, loading a stored one, and normalizing eigenvectors. Everything else is
// rocblas level 2/3 (rocarray/rocsolver/_geev.py). Each kernel is launched as ONE block of
// RA_GEEV_BLOCK threads per vector: the vectors are at most n long and the launches are few, so
// a block-wide shared-memory reduction (no warp intrinsics, any wavefront width) is enough.

#define RA_GEEV_BLOCK 256

// Real and complex element access with one code path (imaginary part 0 for real types).
template <typename T> struct ra_geev_num {
    typedef T real;
    static const bool is_complex = false;
    static RA_DEVICE T re(T x) { return x; }
    static RA_DEVICE T im(T) { return T(0); }
    static RA_DEVICE T make(T re, T) { return re; }
};
template <typename R> struct ra_geev_num<ra_complex<R> > {
    typedef R real;
    static const bool is_complex = true;
    static RA_DEVICE R re(ra_complex<R> x) { return x.re; }
    static RA_DEVICE R im(ra_complex<R> x) { return x.im; }
    static RA_DEVICE ra_complex<R> make(R re, R im) { return ra_make_complex<R>(re, im); }
};

// a * b for real or complex T (the imaginary parts of real T are 0 and dropped by make).
template <typename T> RA_DEVICE T ra_geev_mul(T a, T b) {
    typedef ra_geev_num<T> N;
    return N::make(N::re(a) * N::re(b) - N::im(a) * N::im(b), N::re(a) * N::im(b) + N::im(a) * N::re(b));
}

// Block-wide max (MAX) or sum of one value per thread; every thread gets the result.
template <typename R, bool MAX> RA_DEVICE R ra_geev_block_reduce(R v, R* s) {
    s[threadIdx.x] = v;
    __syncthreads();
    for (int h = RA_GEEV_BLOCK / 2; h > 0; h >>= 1) {
        if ((int)threadIdx.x < h) {
            R o = s[threadIdx.x + h];
            s[threadIdx.x] = MAX ? ra_max(s[threadIdx.x], o) : s[threadIdx.x] + o;
        }
        __syncthreads();
    }
    R r = s[0];
    __syncthreads();
    return r;
}

// ?larfg (LAPACK): the reflector H = I - tau v v^H with H^H [alpha; x] = [beta; 0], beta real,
// v = [1; x / (alpha - beta)]. Writes beta to *alpha, v(2:) over x, tau to *tau, and the vectors
// v (with its leading 1) and u = conj(tau) v (what gehrd's two rank-1 updates take) of m + 1
// elements. tau = 0 (H = I) when x = 0 and alpha is real. The norm is taken with x scaled by
// its largest component, so it neither overflows nor underflows.
template <typename T>
__global__ void __launch_bounds__(RA_GEEV_BLOCK)
ra_rocsolver_geev_larfg(T* __restrict__ alpha, T* __restrict__ x, ra_i64 m, T* __restrict__ tau,
                        T* __restrict__ v, T* __restrict__ u) {
    typedef ra_geev_num<T> N;
    typedef typename N::real R;
    __shared__ R red[RA_GEEV_BLOCK];
    __shared__ T scalars[2];  // tau, 1 / (alpha - beta)
    const T a = *alpha;
    const R ar = N::re(a), ai = N::im(a);
    R big = R(0);
    for (ra_i64 i = threadIdx.x; i < m; i += RA_GEEV_BLOCK)
        big = ra_max(big, ra_max(ra_abs(N::re(x[i])), ra_abs(N::im(x[i]))));
    big = ra_geev_block_reduce<R, true>(big, red);
    R ssq = R(0);
    if (big > R(0)) {
        for (ra_i64 i = threadIdx.x; i < m; i += RA_GEEV_BLOCK) {
            const R p = N::re(x[i]) / big, q = N::im(x[i]) / big;
            ssq += p * p + q * q;
        }
    }
    ssq = ra_geev_block_reduce<R, false>(ssq, red);  // ||x||^2 / big^2
    const bool identity = !(big > R(0)) && ai == R(0);
    if (threadIdx.x == 0) {
        if (identity) {
            scalars[0] = N::make(R(0), R(0));
            scalars[1] = N::make(R(1), R(0));
        } else {
            const R s = ra_max(big, ra_max(ra_abs(ar), ra_abs(ai)));
            const R pr = ar / s, pi = ai / s, px = big / s;
            const R norm = s * ra_sqrt(pr * pr + pi * pi + px * px * ssq);
            const R beta = ar < R(0) ? norm : -norm;  // -sign(alpha_re) * norm, Fortran's SIGN(., 0) = +
            scalars[0] = N::make((beta - ar) / beta, -ai / beta);
            // 1 / (alpha - beta) by Smith's method: |alpha_re - beta| >= norm >= |alpha_im|.
            const R dr = ar - beta, di = ai, r = di / dr, den = dr + di * r;
            scalars[1] = N::make(R(1) / den, -r / den);
            *alpha = N::make(beta, R(0));
        }
        *tau = scalars[0];
    }
    __syncthreads();
    const T t = scalars[0], scale = scalars[1];
    const T tc = N::make(N::re(t), -N::im(t));
    for (ra_i64 i = threadIdx.x; i <= m; i += RA_GEEV_BLOCK) {
        T vi;
        if (i == 0) {
            vi = N::make(R(1), R(0));
        } else {
            vi = identity ? x[i - 1] : ra_geev_mul(x[i - 1], scale);
            x[i - 1] = vi;
        }
        v[i] = vi;
        u[i] = ra_geev_mul(tc, vi);
    }
}

// A stored reflector: v = [1; x] (m + 1 elements) and u = tau v (orghr's update of Q from the left).
template <typename T>
__global__ void __launch_bounds__(RA_GEEV_BLOCK)
ra_rocsolver_geev_reflector(const T* __restrict__ x, ra_i64 m, const T* __restrict__ tau, T* __restrict__ v,
                            T* __restrict__ u) {
    typedef ra_geev_num<T> N;
    typedef typename N::real R;
    const T t = *tau;
    for (ra_i64 i = threadIdx.x; i <= m; i += RA_GEEV_BLOCK) {
        const T vi = i == 0 ? N::make(R(1), R(0)) : x[i - 1];
        v[i] = vi;
        u[i] = ra_geev_mul(t, vi);
    }
}

// LAPACK geev's normalization of the eigenvectors, one block per column j of the n-row X:
// kinds[j] = 0: column j is a vector (complex for complex T, real for real T); 1: columns j and
// j+1 of a real X are the real and imaginary parts of the vector z of a complex pair, whose
// conjugate is the pair's second vector; 2: the second column of a pair (done by block j-1).
// Each vector is scaled to unit 2-norm; complex ones are then rotated so that their component of
// largest modulus (the first such) is real: positive for complex T, of the sign of its real part
// for a real pair (LAPACK's dlartg). The result goes to the complex V (never X itself).
template <typename T, typename C>
__global__ void __launch_bounds__(RA_GEEV_BLOCK)
ra_rocsolver_geev_normalize(const T* __restrict__ X, ra_i64 ldx, const int* __restrict__ kinds, ra_i64 n,
                            C* __restrict__ V, ra_i64 ldv) {
    typedef ra_geev_num<T> N;
    typedef typename N::real R;
    __shared__ R red[RA_GEEV_BLOCK];
    __shared__ R best[RA_GEEV_BLOCK];
    __shared__ ra_i64 where[RA_GEEV_BLOCK];
    const ra_i64 j = blockIdx.x;
    const int kind = kinds[j];
    if (kind == 2) return;  // uniform across the block: no barrier is skipped by part of it
    const bool pair = kind == 1;
    const T* c0 = X + j * ldx;
    const T* c1 = X + (pair ? j + 1 : j) * ldx;
    R ssq = R(0), top = R(-1);
    ra_i64 at = 0;
    for (ra_i64 i = threadIdx.x; i < n; i += RA_GEEV_BLOCK) {
        const R zr = N::re(c0[i]) - (pair ? N::im(c1[i]) : R(0));
        const R zi = N::im(c0[i]) + (pair ? N::re(c1[i]) : R(0));
        const R mag2 = zr * zr + zi * zi;
        ssq += mag2;
        if (mag2 > top) { top = mag2; at = i; }  // strided walk: the first index of this thread wins ties
    }
    ssq = ra_geev_block_reduce<R, false>(ssq, red);
    best[threadIdx.x] = top;
    where[threadIdx.x] = at;
    __syncthreads();
    for (int h = RA_GEEV_BLOCK / 2; h > 0; h >>= 1) {
        if ((int)threadIdx.x < h) {
            const R o = best[threadIdx.x + h];
            const ra_i64 oi = where[threadIdx.x + h];
            if (o > best[threadIdx.x] || (o == best[threadIdx.x] && oi < where[threadIdx.x])) {
                best[threadIdx.x] = o;
                where[threadIdx.x] = oi;
            }
        }
        __syncthreads();
    }
    const ra_i64 k = where[0];
    const R nrm = ra_sqrt(ssq);
    const R inv = nrm > R(0) ? R(1) / nrm : R(1);
    R fr = inv, fi = R(0);  // the factor each component is multiplied by
    if ((N::is_complex || pair) && best[0] > R(0)) {
        const R kr = N::re(c0[k]) - (pair ? N::im(c1[k]) : R(0));
        const R ki = N::im(c0[k]) + (pair ? N::re(c1[k]) : R(0));
        const R mag = ra_sqrt(best[0]);
        const R sign = (pair && kr < R(0)) ? R(-1) : R(1);
        fr = sign * inv * kr / mag;
        fi = -sign * inv * ki / mag;
    }
    C* out0 = V + j * ldv;
    C* out1 = V + (j + 1) * ldv;
    for (ra_i64 i = threadIdx.x; i < n; i += RA_GEEV_BLOCK) {
        const R zr = N::re(c0[i]) - (pair ? N::im(c1[i]) : R(0));
        const R zi = N::im(c0[i]) + (pair ? N::re(c1[i]) : R(0));
        const R yr = zr * fr - zi * fi;
        const R yi = i == k ? R(0) : zr * fi + zi * fr;
        out0[i] = ra_make_complex<R>(yr, yi);
        if (pair) out1[i] = ra_make_complex<R>(yr, -yi);
    }
}
