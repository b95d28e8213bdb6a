// rocBLAS level 1: axpy, scal, copy, swap, rot (element-wise) and dot, dotc, nrm2, asum, iamax,
// iamin (reductions).
//
// Vectors arrive as (pointer to element 0, signed element step): element i lives at p[i * step].
// The Python layer (rocarray/rocblas/_level1.py) turns a BLAS (pointer, inc) pair on a possibly
// strided CuPy view into that form, so kernels never see BLAS's "a negative increment starts at the
// far end" rule and never need the buffer length (the Python layer has checked the bounds).
//
// Every kernel has two paths, chosen at run time (uniform over the launch):
//  * unit stride with equal 16-byte misalignment of all vectors: 16-byte vector loads/stores
//    (float4/double2 style packs); the scalar head before the first 16-byte boundary and the
//    scalar tail after the last whole pack are done by the first threads of the grid;
//  * anything else: a scalar grid-stride loop with 64-bit element offsets.
// Grids are sized by the caller to about one wave of resident blocks; every loop is grid-stride.
//
// Reductions are deterministic (no floating-point atomics): every block reduces its grid-stride
// share in a fixed order, thread 0 stores the block's partial in a workspace, fences, and takes a
// ticket from an integer counter; the block that draws the last ticket combines all partials in
// index order, writes the result to device memory and resets the counter to 0 for the next launch.
// The result depends only on n, the strides, the alignment and the grid size, never on timing.

#define RA_ROCBLAS_BLOCK 256
#define RA_ROCBLAS_UNROLL 4
// Byte offset of the partials in the reduction workspace; the ticket counter sits at offset 0.
#define RA_ROCBLAS_PARTIALS_OFFSET 256

// ---------------------------------------------------------------------------------------------
// helpers
// ---------------------------------------------------------------------------------------------

// 16 bytes of consecutive elements, loaded and stored as one vector access.
template <typename T> struct alignas(16) ra_rocblas_pack {
    static constexpr int N = 16 / (int)sizeof(T);
    T v[N];
};

// Elements of p before the first 16-byte boundary (p is aligned to its element size), at most n.
template <typename T> RA_DEVICE ra_i64 ra_rocblas_head(const T* p, ra_i64 n) {
    const ra_i64 h = (ra_i64)(((16u - ((ra_u64)p & 15u)) & 15u) / sizeof(T));
    return h < n ? h : n;
}

RA_DEVICE bool ra_rocblas_same_misalignment(const void* a, const void* b) {
    return ((((ra_u64)a) ^ ((ra_u64)b)) & 15u) == 0;
}

// a * b + c, fused for real types.
RA_DEVICE float ra_rocblas_madd(float a, float b, float c) { return ra_fma(a, b, c); }
RA_DEVICE double ra_rocblas_madd(double a, double b, double c) { return ra_fma(a, b, c); }
template <typename R>
RA_DEVICE ra_complex<R> ra_rocblas_madd(ra_complex<R> a, ra_complex<R> b, ra_complex<R> c) {
    return ra_make_complex<R>(ra_fma(a.re, b.re, ra_fma(-a.im, b.im, c.re)),
                              ra_fma(a.re, b.im, ra_fma(a.im, b.re, c.im)));
}

// Conjugate (identity on real numbers).
RA_DEVICE float ra_rocblas_conj(float a) { return a; }
RA_DEVICE double ra_rocblas_conj(double a) { return a; }
template <typename R> RA_DEVICE ra_complex<R> ra_rocblas_conj(ra_complex<R> a) { return ra_conj(a); }

// +infinity of the type of the argument.
RA_DEVICE float ra_rocblas_inf(float) { return __int_as_float(0x7f800000); }
RA_DEVICE double ra_rocblas_inf(double) { return __longlong_as_double(0x7ff0000000000000LL); }

// Loads that bypass non-coherent caches, for partials written by other blocks of the same launch.
RA_DEVICE float ra_rocblas_vload(const float* p) { return *(const volatile float*)p; }
RA_DEVICE double ra_rocblas_vload(const double* p) { return *(const volatile double*)p; }
template <typename R> RA_DEVICE ra_complex<R> ra_rocblas_vload(const ra_complex<R>* p) {
    const volatile R* q = (const volatile R*)p;
    return ra_make_complex<R>(q[0], q[1]);
}

// ---------------------------------------------------------------------------------------------
// element-wise kernels
// ---------------------------------------------------------------------------------------------

// One element: read what F needs, apply F, write what F changes.
template <typename T, bool RX, bool RY, bool WX, bool WY, typename F>
RA_DEVICE void ra_rocblas_map_one(T* px, T* py, const F& f) {
    T a, b;
    if (RX) a = *px;
    if (RY) b = *py;
    f(a, b);
    if (WX) *px = a;
    if (WY) *py = b;
}

// Apply f(x_i, y_i) for i in [0, n). RX/RY: f reads x/y; WX/WY: f writes x/y. Kernels over one
// vector pass it as both x and y with RY = WY = false.
template <typename T, bool RX, bool RY, bool WX, bool WY, typename F>
RA_DEVICE void ra_rocblas_map2(ra_i64 n, T* x, ra_i64 sx, T* y, ra_i64 sy, const F& f) {
    typedef ra_rocblas_pack<T> P;
    constexpr int V = P::N;
    constexpr int U = RA_ROCBLAS_UNROLL;
    constexpr bool HAS_Y = RY || WY;
    const ra_i64 tid = ra_global_thread_id();
    const ra_i64 nthreads = ra_grid_threads();
    const bool unit = sx == 1 && (!HAS_Y || (sy == 1 && ra_rocblas_same_misalignment(x, y)));
    if (unit) {
        const ra_i64 head = ra_rocblas_head(x, n);
        const ra_i64 nvec = (n - head) / V;
        const ra_i64 tail = head + nvec * V;
        if (tid < head) ra_rocblas_map_one<T, RX, RY, WX, WY>(x + tid, y + tid, f);
        P* xv = (P*)(x + head);
        P* yv = (P*)(y + head);
        ra_i64 i = tid;
        // Whole batches of U packs per thread: all loads are issued before any is used.
        for (; i + (U - 1) * nthreads < nvec; i += U * nthreads) {
            P a[U], b[U];
#pragma unroll
            for (int u = 0; u < U; ++u) {
                if (RX) a[u] = xv[i + u * nthreads];
                if (RY) b[u] = yv[i + u * nthreads];
            }
#pragma unroll
            for (int u = 0; u < U; ++u) {
#pragma unroll
                for (int k = 0; k < V; ++k) f(a[u].v[k], b[u].v[k]);
                if (WX) xv[i + u * nthreads] = a[u];
                if (WY) yv[i + u * nthreads] = b[u];
            }
        }
        // The last fewer-than-U packs of this thread, one at a time.
        for (; i < nvec; i += nthreads) {
            P a, b;
            if (RX) a = xv[i];
            if (RY) b = yv[i];
#pragma unroll
            for (int k = 0; k < V; ++k) f(a.v[k], b.v[k]);
            if (WX) xv[i] = a;
            if (WY) yv[i] = b;
        }
        if (tid < n - tail) ra_rocblas_map_one<T, RX, RY, WX, WY>(x + tail + tid, y + tail + tid, f);
    } else {
        for (ra_i64 i = tid; i < n; i += nthreads) {
            ra_rocblas_map_one<T, RX, RY, WX, WY>(x + i * sx, y + i * sy, f);
        }
    }
}

// y := alpha * x + y, computed in the accumulation type (float for fp16).
template <typename T, typename A> struct ra_rocblas_axpy_f {
    A alpha;
    RA_DEVICE void operator()(T& x, T& y) const {
        y = ra_traits<T>::from_acc(
            ra_rocblas_madd(alpha, ra_traits<T>::to_acc(x), ra_traits<T>::to_acc(y)));
    }
};

// x := alpha * x; A is real or complex for a complex T (csscal/zdscal and cscal/zscal).
template <typename T, typename A> struct ra_rocblas_scal_f {
    A alpha;
    RA_DEVICE void operator()(T& x, T&) const {
        x = ra_traits<T>::from_acc(alpha * ra_traits<T>::to_acc(x));
    }
};

// copy and swap move bits: 4-, 8- and 16-byte words. The 16-byte word is copied field by field:
// whole-struct copies of 16-byte aggregates kept the unrolled packs in scratch memory on gfx90a.
struct alignas(16) ra_rocblas_b128 { ra_u64 lo, hi; };
template <typename T> RA_DEVICE void ra_rocblas_assign(T& dst, const T& src) { dst = src; }
RA_DEVICE void ra_rocblas_assign(ra_rocblas_b128& dst, const ra_rocblas_b128& src) {
    dst.lo = src.lo;
    dst.hi = src.hi;
}

template <typename T> struct ra_rocblas_copy_f {
    RA_DEVICE void operator()(T& x, T& y) const { ra_rocblas_assign(y, x); }
};

template <typename T> struct ra_rocblas_swap_f {
    RA_DEVICE void operator()(T& x, T& y) const {
        T t;
        ra_rocblas_assign(t, x);
        ra_rocblas_assign(x, y);
        ra_rocblas_assign(y, t);
    }
};

// Plane rotation: x' = c x + s y, y' = c y - conj(s) x, with c real and s real or complex.
template <typename T, typename S> struct ra_rocblas_rot_f {
    typename ra_real_of<T>::type c;
    S s;
    RA_DEVICE void operator()(T& x, T& y) const {
        const T xn = c * x + s * y;
        y = c * y - ra_rocblas_conj(s) * x;
        x = xn;
    }
};

template <typename T, typename A>
__global__ void RA_LAUNCH_BOUNDS(RA_ROCBLAS_BLOCK)
ra_rocblas_axpy(ra_i64 n, A alpha, const T* x, ra_i64 incx, T* y, ra_i64 incy) {
    ra_rocblas_axpy_f<T, A> f;
    f.alpha = alpha;
    ra_rocblas_map2<T, true, true, false, true>(n, const_cast<T*>(x), incx, y, incy, f);
}

template <typename T, typename A>
__global__ void RA_LAUNCH_BOUNDS(RA_ROCBLAS_BLOCK)
ra_rocblas_scal(ra_i64 n, A alpha, T* x, ra_i64 incx) {
    ra_rocblas_scal_f<T, A> f;
    f.alpha = alpha;
    ra_rocblas_map2<T, true, false, true, false>(n, x, incx, x, incx, f);
}

// copy and swap are instantiated for ra_u32, ra_u64 and ra_rocblas_b128 (by element size).
template <typename T>
__global__ void RA_LAUNCH_BOUNDS(RA_ROCBLAS_BLOCK)
ra_rocblas_copy(ra_i64 n, const T* x, ra_i64 incx, T* y, ra_i64 incy) {
    ra_rocblas_copy_f<T> f;
    ra_rocblas_map2<T, true, false, false, true>(n, const_cast<T*>(x), incx, y, incy, f);
}

template <typename T>
__global__ void RA_LAUNCH_BOUNDS(RA_ROCBLAS_BLOCK)
ra_rocblas_swap(ra_i64 n, T* x, ra_i64 incx, T* y, ra_i64 incy) {
    ra_rocblas_swap_f<T> f;
    ra_rocblas_map2<T, true, true, true, true>(n, x, incx, y, incy, f);
}

template <typename T, typename S>
__global__ void RA_LAUNCH_BOUNDS(RA_ROCBLAS_BLOCK)
ra_rocblas_rot(ra_i64 n, T* x, ra_i64 incx, T* y, ra_i64 incy, typename ra_real_of<T>::type c, S s) {
    ra_rocblas_rot_f<T, S> f;
    f.c = c;
    f.s = s;
    ra_rocblas_map2<T, true, true, true, true>(n, x, incx, y, incy, f);
}

// ---------------------------------------------------------------------------------------------
// reductions
// ---------------------------------------------------------------------------------------------

// Reduce op(x_i, y_i, i) over i in [0, n) and let Op::finish write the result. Op provides:
//   part                          the partial-result type (POD, at most PARTIAL_BYTES of _level1.py)
//   TWO                           whether y is read (single-vector ops pass x twice)
//   part init()                   the identity
//   void add(part&, T x, T y, i)  fold one element in
//   part operator()(part, part)   combine two partials (associative; fixed order is used)
//   void finish(part, result*)    write the final result
template <typename T, typename Op>
RA_DEVICE void ra_rocblas_reduce(ra_i64 n, const T* x, ra_i64 sx, const T* y, ra_i64 sy, const Op& op,
                                 void* ws, typename Op::result_type* result) {
    typedef typename Op::part Part;
    typedef ra_rocblas_pack<T> P;
    constexpr int V = P::N;
    constexpr int U = RA_ROCBLAS_UNROLL;
    __shared__ Part scratch[RA_ROCBLAS_BLOCK / RA_WARP_SIZE];
    __shared__ int is_last;

    const ra_i64 tid = ra_global_thread_id();
    const ra_i64 nthreads = ra_grid_threads();
    Part p = op.init();
    const bool unit = sx == 1 && (!Op::TWO || (sy == 1 && ra_rocblas_same_misalignment(x, y)));
    if (unit) {
        const ra_i64 head = ra_rocblas_head(x, n);
        const ra_i64 nvec = (n - head) / V;
        const ra_i64 tail = head + nvec * V;
        if (tid < head) op.add(p, x[tid], Op::TWO ? y[tid] : x[tid], tid);
        const P* xv = (const P*)(x + head);
        const P* yv = (const P*)(y + head);
        ra_i64 i = tid;
        // Whole batches of U packs per thread: all loads are issued before any is used.
        for (; i + (U - 1) * nthreads < nvec; i += U * nthreads) {
            P a[U], b[U];
#pragma unroll
            for (int u = 0; u < U; ++u) {
                a[u] = xv[i + u * nthreads];
                if (Op::TWO) b[u] = yv[i + u * nthreads];
            }
#pragma unroll
            for (int u = 0; u < U; ++u) {
                const ra_i64 e = head + (i + u * nthreads) * V;
#pragma unroll
                for (int k = 0; k < V; ++k) op.add(p, a[u].v[k], Op::TWO ? b[u].v[k] : a[u].v[k], e + k);
            }
        }
        // The last fewer-than-U packs of this thread, one at a time.
        for (; i < nvec; i += nthreads) {
            const P a = xv[i];
            P b;
            if (Op::TWO) b = yv[i];
#pragma unroll
            for (int k = 0; k < V; ++k) op.add(p, a.v[k], Op::TWO ? b.v[k] : a.v[k], head + i * V + k);
        }
        if (tid < n - tail) {
            const ra_i64 i = tail + tid;
            op.add(p, x[i], Op::TWO ? y[i] : x[i], i);
        }
    } else {
        for (ra_i64 i = tid; i < n; i += nthreads) {
            const T xi = x[i * sx];
            op.add(p, xi, Op::TWO ? y[i * sy] : xi, i);
        }
    }

    p = ra_block_reduce<RA_ROCBLAS_BLOCK>(p, op, scratch);
    if (gridDim.x == 1) {
        if (threadIdx.x == 0) op.finish(p, result);
        return;
    }
    unsigned int* ticket = (unsigned int*)ws;
    Part* partials = (Part*)((char*)ws + RA_ROCBLAS_PARTIALS_OFFSET);
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = p;
        ra_threadfence();  // the partial is visible device-wide before the ticket is taken
        is_last = ra_atomic_inc_u32(ticket) == gridDim.x - 1;
    }
    __syncthreads();
    if (!is_last) return;
    ra_threadfence();
    Part q = op.init();
    for (unsigned int b = threadIdx.x; b < gridDim.x; b += RA_ROCBLAS_BLOCK) {
        q = op(q, ra_rocblas_vload(partials + b));
    }
    __syncthreads();  // scratch is reused
    q = ra_block_reduce<RA_ROCBLAS_BLOCK>(q, op, scratch);
    if (threadIdx.x == 0) {
        op.finish(q, result);
        *ticket = 0u;  // ready for the next launch on this workspace (same stream)
    }
}

// dot / dotc: sum of x_i * y_i (conj(x_i) * y_i for dotc), accumulated in ra_traits<T>::acc.
template <typename T, bool CONJ> struct ra_rocblas_dot_op {
    typedef typename ra_traits<T>::acc part;
    typedef T result_type;
    static constexpr bool TWO = true;
    RA_DEVICE part init() const { return ra_traits<T>::zero(); }
    RA_DEVICE void add(part& p, T x, T y, ra_i64) const {
        part a = ra_traits<T>::to_acc(x);
        if (CONJ) a = ra_rocblas_conj(a);
        p = ra_rocblas_madd(a, ra_traits<T>::to_acc(y), p);
    }
    RA_DEVICE part operator()(part a, part b) const { return a + b; }
    RA_DEVICE void finish(part p, T* out) const { *out = ra_traits<T>::from_acc(p); }
};

// nrm2: Blue's algorithm with LAPACK 3.10's fixed scaling constants (Anderson 2017, dnrm2.f90).
// Magnitudes above tbig are summed scaled by sbig, below tsml scaled by ssml, the rest unscaled;
// with fixed scales the three sums are additive, so they reduce like any other sum.
template <typename R> struct ra_rocblas_blue;
template <> struct ra_rocblas_blue<float> {
    static RA_DEVICE float tsml() { return 0x1p-63f; }
    static RA_DEVICE float tbig() { return 0x1p52f; }
    static RA_DEVICE float ssml() { return 0x1p75f; }
    static RA_DEVICE float sbig() { return 0x1p-76f; }
};
template <> struct ra_rocblas_blue<double> {
    static RA_DEVICE double tsml() { return 0x1p-511; }
    static RA_DEVICE double tbig() { return 0x1p486; }
    static RA_DEVICE double ssml() { return 0x1p537; }
    static RA_DEVICE double sbig() { return 0x1p-538; }
};

template <typename R> struct ra_rocblas_ssq { R sml, med, big; };

template <typename R> RA_DEVICE ra_rocblas_ssq<R> ra_shfl_xor(ra_rocblas_ssq<R> v, int m) {
    ra_rocblas_ssq<R> r;
    r.sml = ra_shfl_xor_prim(v.sml, m);
    r.med = ra_shfl_xor_prim(v.med, m);
    r.big = ra_shfl_xor_prim(v.big, m);
    return r;
}
template <typename R> RA_DEVICE ra_rocblas_ssq<R> ra_rocblas_vload(const ra_rocblas_ssq<R>* p) {
    const volatile R* q = (const volatile R*)p;
    ra_rocblas_ssq<R> r;
    r.sml = q[0];
    r.med = q[1];
    r.big = q[2];
    return r;
}

template <typename R> RA_DEVICE void ra_rocblas_ssq_add(ra_rocblas_ssq<R>& p, R v) {
    typedef ra_rocblas_blue<R> B;
    const R a = ra_abs(v);
    if (a > B::tbig()) {
        const R t = a * B::sbig();
        p.big = ra_fma(t, t, p.big);
    } else if (a < B::tsml()) {
        const R t = a * B::ssml();
        p.sml = ra_fma(t, t, p.sml);
    } else {
        p.med = ra_fma(a, a, p.med);  // NaN lands here and propagates
    }
}
template <typename R> RA_DEVICE void ra_rocblas_ssq_add_elem(ra_rocblas_ssq<R>& p, R v) {
    ra_rocblas_ssq_add(p, v);
}
template <typename R> RA_DEVICE void ra_rocblas_ssq_add_elem(ra_rocblas_ssq<R>& p, ra_complex<R> v) {
    ra_rocblas_ssq_add(p, v.re);
    ra_rocblas_ssq_add(p, v.im);
}

template <typename T> struct ra_rocblas_nrm2_op {
    typedef typename ra_real_of<T>::type R;
    typedef ra_rocblas_ssq<R> part;
    typedef R result_type;
    static constexpr bool TWO = false;
    RA_DEVICE part init() const {
        part p;
        p.sml = R(0);
        p.med = R(0);
        p.big = R(0);
        return p;
    }
    RA_DEVICE void add(part& p, T x, T, ra_i64) const { ra_rocblas_ssq_add_elem(p, x); }
    RA_DEVICE part operator()(part a, part b) const {
        part r;
        r.sml = a.sml + b.sml;
        r.med = a.med + b.med;
        r.big = a.big + b.big;
        return r;
    }
    // LAPACK 3.10 dnrm2's final combination of the three accumulators.
    RA_DEVICE void finish(part p, R* out) const {
        typedef ra_rocblas_blue<R> B;
        R big = p.big, med = p.med, sml = p.sml, r;
        if (big > R(0)) {
            if (med > R(0) || med != med) big += (med * B::sbig()) * B::sbig();
            r = ra_sqrt(big) / B::sbig();
        } else if (sml > R(0)) {
            if (med > R(0) || med != med) {
                med = ra_sqrt(med);
                sml = ra_sqrt(sml) / B::ssml();
                const R ymin = sml > med ? med : sml;
                const R ymax = sml > med ? sml : med;
                const R q = ymin / ymax;
                r = ra_sqrt(ymax * ymax * (R(1) + q * q));
            } else {
                r = ra_sqrt(sml) / B::ssml();
            }
        } else {
            r = ra_sqrt(med);
        }
        *out = r;
    }
};

// asum: sum of |re| + |im| (|x| for real x), in the real type.
template <typename T> struct ra_rocblas_asum_op {
    typedef typename ra_real_of<T>::type R;
    typedef R part;
    typedef R result_type;
    static constexpr bool TWO = false;
    RA_DEVICE part init() const { return R(0); }
    RA_DEVICE void add(part& p, T x, T, ra_i64) const { p += ra_abs1(x); }
    RA_DEVICE part operator()(part a, part b) const { return a + b; }
    RA_DEVICE void finish(part p, R* out) const { *out = p; }
};

// iamax / iamin over |re| + |im|: (value, index) pairs, ties to the smallest index. NaN
// magnitudes are skipped; when every element is NaN the result is 1. i < 0 marks "no element".
template <typename R> struct ra_rocblas_iv {
    R v;
    ra_i64 i;
};
template <typename R> RA_DEVICE ra_rocblas_iv<R> ra_shfl_xor(ra_rocblas_iv<R> a, int m) {
    ra_rocblas_iv<R> r;
    r.v = ra_shfl_xor_prim(a.v, m);
    r.i = ra_shfl_xor_prim(a.i, m);
    return r;
}
template <typename R> RA_DEVICE ra_rocblas_iv<R> ra_rocblas_vload(const ra_rocblas_iv<R>* p) {
    ra_rocblas_iv<R> r;
    r.v = *(const volatile R*)&p->v;
    r.i = *(const volatile ra_i64*)&p->i;
    return r;
}

template <typename T, bool MAX> struct ra_rocblas_iamax_op {
    typedef typename ra_real_of<T>::type R;
    typedef ra_rocblas_iv<R> part;
    typedef ra_i64 result_type;
    static constexpr bool TWO = false;
    // The empty partial: index -1, and a value no magnitude beats for iamax (-1) and every
    // magnitude but +inf beats for iamin (+inf; an unset partial takes an inf, see add()).
    RA_DEVICE part init() const {
        part p;
        p.v = MAX ? R(-1) : ra_rocblas_inf(R(0));
        p.i = -1;
        return p;
    }
    RA_DEVICE part operator()(part a, part b) const {
        if (b.i < 0) return a;
        if (a.i < 0) return b;
        const bool better = MAX ? (b.v > a.v) : (b.v < a.v);
        return (better || (b.v == a.v && b.i < a.i)) ? b : a;
    }
    // Every thread folds its elements in increasing index order (head, packs, tail; or the
    // strided loop), so an equal magnitude never replaces the held one, and a NaN fails every
    // comparison and is skipped.
    RA_DEVICE void add(part& p, T x, T, ra_i64 i) const {
        const R v = ra_abs1(x);
        const bool take = MAX ? (v > p.v) : (v < p.v || (v == p.v && p.i < 0));
        if (take) {
            p.v = v;
            p.i = i;
        }
    }
    RA_DEVICE void finish(part p, ra_i64* out) const { *out = (p.i < 0 ? 0 : p.i) + 1; }
};

template <typename T>
__global__ void RA_LAUNCH_BOUNDS(RA_ROCBLAS_BLOCK)
ra_rocblas_dot(ra_i64 n, const T* x, ra_i64 incx, const T* y, ra_i64 incy, void* ws, T* result) {
    ra_rocblas_dot_op<T, false> op;
    ra_rocblas_reduce(n, x, incx, y, incy, op, ws, result);
}

template <typename T>
__global__ void RA_LAUNCH_BOUNDS(RA_ROCBLAS_BLOCK)
ra_rocblas_dotc(ra_i64 n, const T* x, ra_i64 incx, const T* y, ra_i64 incy, void* ws, T* result) {
    ra_rocblas_dot_op<T, true> op;
    ra_rocblas_reduce(n, x, incx, y, incy, op, ws, result);
}

template <typename T>
__global__ void RA_LAUNCH_BOUNDS(RA_ROCBLAS_BLOCK)
ra_rocblas_nrm2(ra_i64 n, const T* x, ra_i64 incx, void* ws, typename ra_real_of<T>::type* result) {
    ra_rocblas_nrm2_op<T> op;
    ra_rocblas_reduce(n, x, incx, x, incx, op, ws, result);
}

template <typename T>
__global__ void RA_LAUNCH_BOUNDS(RA_ROCBLAS_BLOCK)
ra_rocblas_asum(ra_i64 n, const T* x, ra_i64 incx, void* ws, typename ra_real_of<T>::type* result) {
    ra_rocblas_asum_op<T> op;
    ra_rocblas_reduce(n, x, incx, x, incx, op, ws, result);
}

template <typename T>
__global__ void RA_LAUNCH_BOUNDS(RA_ROCBLAS_BLOCK)
ra_rocblas_iamax(ra_i64 n, const T* x, ra_i64 incx, void* ws, ra_i64* result) {
    ra_rocblas_iamax_op<T, true> op;
    ra_rocblas_reduce(n, x, incx, x, incx, op, ws, result);
}

template <typename T>
__global__ void RA_LAUNCH_BOUNDS(RA_ROCBLAS_BLOCK)
ra_rocblas_iamin(ra_i64 n, const T* x, ra_i64 incx, void* ws, ra_i64* result) {
    ra_rocblas_iamax_op<T, false> op;
    ra_rocblas_reduce(n, x, incx, x, incx, op, ws, result);
}
