// prim reductions: sum, product, min, max, count of nonzeros, argmin, argmax, over any set of axes.
//
// The library views its input as (outer, n, inner) with element strides (so, sk, si): `n` elements
// are reduced for each of the outer * inner output lines; output line (o, i) is out[o * inner + i]
// (C-contiguous). Three kernels cover the layouts, each for plain and arg operators:
//
//   ra_prim_reduce_rows  -- the reduced axis is contiguous (sk == 1, inner == 1): row r starts at
//       x + r * so. Long rows: block mode, one block per (row, split), 16-byte vector loads, UNROLL
//       independent vectors per thread per trip (bytes in flight), splits interleaved by vector
//       (split s takes vectors s*B + t, s*B + t + splits*B, ...). With splits > 1 every block
//       writes its partial and takes a ticket (integer atomic); the block that draws the last
//       ticket of its row folds the row's partials in split order and writes the result (one launch,
//       the "last block" scheme of the CUDA threadFenceReduction sample; it resets the ticket to 0,
//       so tickets need no memset). A full reduction of contiguous data is rows == 1 and splits ==
//       one wave of resident blocks. Short rows: warp mode, one warp per row (scalar coalesced loads).
//   ra_prim_reduce_cols  -- the inner axis is contiguous (si == 1): block of TX x TY threads, TX
//       along inner (VC consecutive columns per thread, one vector load when aligned), TY along the
//       reduced axis; the TY partial columns are folded through shared memory in a fixed tree. When
//       there are too few column tiles to fill the device, the reduced axis is split across blocks
//       and finished by the last block of each column tile, as above.
//   ra_prim_reduce_lines -- anything else with short n (or many lines): one thread per line, serial
//       over k, any strides (also n == 1: an elementwise pass).
//
// Operators are tags with a state type S: plain ones carry the accumulator A (float for float16,
// int64/uint64 for integer sums), arg ones carry (value, index) with index -1 as the "empty" state.
// `aux` is a runtime operand: the NaN mode (0: NaN propagates, 1: NaN is skipped -- nansum, nanmin,
// nanargmin, ...) or, for the count of nonzeros, the bit mask that decides "nonzero" on an unsigned
// view of the data (signed zeros of floats and complex parts are masked out).
//
// Determinism: every fold happens in an order fixed by (n, strides, alignment, grid): lanes combine
// in butterfly order (both partners compute the same value), warps and partials in index order.
// No floating-point atomics: results are bitwise identical run to run on one device.
// Integer sums and products wrap modulo 2^64 (two's complement through unsigned arithmetic), so
// narrower results cast from them wrap like NumPy. argmin/argmax return the first index of the
// extreme value; the first NaN wins (NaN mode 0) or NaN is skipped (NaN mode 1). Complex values are
// ordered lexicographically (real part, then imaginary part), a complex value is NaN when either
// part is.

#define RA_PRIM_RED_BLOCK 256
#define RA_PRIM_RED_UNROLL 4

// ---------------------------------------------------------------------------------------------
// element helpers
// ---------------------------------------------------------------------------------------------

template <typename T> RA_DEVICE bool ra_prim_red_isnan(T v) { return v != v; }
template <typename R> RA_DEVICE bool ra_prim_red_isnan(ra_complex<R> v) { return v.re != v.re || v.im != v.im; }
RA_DEVICE bool ra_prim_red_isnan(ra_i64) { return false; }
RA_DEVICE bool ra_prim_red_isnan(ra_u64) { return false; }
RA_DEVICE bool ra_prim_red_isnan(ra_i32) { return false; }
RA_DEVICE bool ra_prim_red_isnan(ra_u32) { return false; }

// Strict order: scalars as usual, complex lexicographically.
template <typename T> RA_DEVICE bool ra_prim_red_lt(T a, T b) { return a < b; }
template <typename R> RA_DEVICE bool ra_prim_red_lt(ra_complex<R> a, ra_complex<R> b) {
    return a.re < b.re || (a.re == b.re && a.im < b.im);
}

// Accumulator of an output type: float for float16, the type itself otherwise.
template <typename T> struct ra_prim_red_acc { typedef T type; };
template <> struct ra_prim_red_acc<ra_half> { typedef float type; };

// Input -> accumulator and accumulator -> output conversions.
template <typename A, typename T> struct ra_prim_red_cvt { static RA_DEVICE A in(T v) { return (A)v; } };
template <> struct ra_prim_red_cvt<float, ra_half> { static RA_DEVICE float in(ra_half v) { return ra_half_to_float(v); } };
template <typename R> struct ra_prim_red_cvt<ra_complex<R>, ra_complex<R> > {
    static RA_DEVICE ra_complex<R> in(ra_complex<R> v) { return v; }
};
template <> struct ra_prim_red_cvt<double, ra_half> {
    static RA_DEVICE double in(ra_half v) { return (double)ra_half_to_float(v); }
};
template <typename TOut, typename A> RA_DEVICE TOut ra_prim_red_out(A v) { return (TOut)v; }
template <> RA_DEVICE ra_half ra_prim_red_out<ra_half, float>(float v) { return ra_float_to_half(v); }
template <> RA_DEVICE ra_half ra_prim_red_out<ra_half, double>(double v) { return ra_float_to_half((float)v); }

// Accumulator of a product: double for float16 and float32 outputs. A balanced tree of float32
// products of factors near 1 rounds away the second-order term of each product, which has the same
// sign whenever both factors lie on the same side of 1: the losses add up (about -u/16 per
// product, so -0.7 % over 2^20 factors) where a sequential product happens not to show it.
template <typename T> struct ra_prim_red_prod_acc { typedef typename ra_prim_red_acc<T>::type type; };
template <> struct ra_prim_red_prod_acc<float> { typedef double type; };
template <> struct ra_prim_red_prod_acc<ra_half> { typedef double type; };
template <> RA_DEVICE ra_c64 ra_prim_red_out<ra_c64, ra_c64>(ra_c64 v) { return v; }
template <> RA_DEVICE ra_c128 ra_prim_red_out<ra_c128, ra_c128>(ra_c128 v) { return v; }

// Limits for the min/max identities.
template <typename A> struct ra_prim_red_lim;
template <> struct ra_prim_red_lim<float> {
    static RA_DEVICE float hi() { return __int_as_float(0x7f800000); }
    static RA_DEVICE float lo() { return __int_as_float((int)0xff800000u); }
    static RA_DEVICE float nan() { return __int_as_float(0x7fc00000); }
};
template <> struct ra_prim_red_lim<double> {
    static RA_DEVICE double hi() { return __longlong_as_double(0x7ff0000000000000LL); }
    static RA_DEVICE double lo() { return __longlong_as_double((ra_i64)0xfff0000000000000ULL); }
    static RA_DEVICE double nan() { return __longlong_as_double(0x7ff8000000000000LL); }
};
template <typename R> struct ra_prim_red_lim<ra_complex<R> > {
    static RA_DEVICE ra_complex<R> hi() { return ra_make_complex<R>(ra_prim_red_lim<R>::hi(), ra_prim_red_lim<R>::hi()); }
    static RA_DEVICE ra_complex<R> lo() { return ra_make_complex<R>(ra_prim_red_lim<R>::lo(), ra_prim_red_lim<R>::lo()); }
    static RA_DEVICE ra_complex<R> nan() { return ra_make_complex<R>(ra_prim_red_lim<R>::nan(), ra_prim_red_lim<R>::nan()); }
};
template <> struct ra_prim_red_lim<ra_i64> {
    static RA_DEVICE ra_i64 hi() { return (ra_i64)0x7fffffffffffffffLL; }
    static RA_DEVICE ra_i64 lo() { return -(ra_i64)0x7fffffffffffffffLL - 1; }
    static RA_DEVICE ra_i64 nan() { return hi(); }
};
template <> struct ra_prim_red_lim<ra_u64> {
    static RA_DEVICE ra_u64 hi() { return ~(ra_u64)0; }
    static RA_DEVICE ra_u64 lo() { return (ra_u64)0; }
    static RA_DEVICE ra_u64 nan() { return hi(); }
};
template <> struct ra_prim_red_lim<ra_i32> {
    static RA_DEVICE ra_i32 hi() { return (ra_i32)0x7fffffff; }
    static RA_DEVICE ra_i32 lo() { return -(ra_i32)0x7fffffff - 1; }
    static RA_DEVICE ra_i32 nan() { return hi(); }
};
template <> struct ra_prim_red_lim<ra_u32> {
    static RA_DEVICE ra_u32 hi() { return ~(ra_u32)0; }
    static RA_DEVICE ra_u32 lo() { return 0u; }
    static RA_DEVICE ra_u32 nan() { return hi(); }
};

// Integer add/mul wrap like NumPy: signed arithmetic goes through unsigned.
template <typename A> RA_DEVICE A ra_prim_red_add(A a, A b) { return a + b; }
RA_DEVICE ra_i64 ra_prim_red_add(ra_i64 a, ra_i64 b) { return (ra_i64)((ra_u64)a + (ra_u64)b); }
template <typename A> RA_DEVICE A ra_prim_red_mul(A a, A b) { return a * b; }
RA_DEVICE ra_i64 ra_prim_red_mul(ra_i64 a, ra_i64 b) { return (ra_i64)((ra_u64)a * (ra_u64)b); }

// A shared-memory or global value read past the L1 (partials written by other blocks).
template <typename S> RA_DEVICE S ra_prim_red_load_volatile(const S* p) {
    static_assert(sizeof(S) % 4 == 0, "state must be a whole number of 32-bit words");
    S v;
    const volatile ra_u32* src = (const volatile ra_u32*)p;
    ra_u32* dst = (ra_u32*)&v;
#pragma unroll
    for (int w = 0; w < (int)(sizeof(S) / 4); ++w) dst[w] = src[w];
    return v;
}

// ---------------------------------------------------------------------------------------------
// operators: S state; ident(aux); make(x, k, aux); comb(a, b, aux) with a before b; fin(S) -> TOut
// ---------------------------------------------------------------------------------------------

struct ra_prim_red_op_add {};
struct ra_prim_red_op_mul {};
struct ra_prim_red_op_min {};
struct ra_prim_red_op_max {};
struct ra_prim_red_op_nnz {};
struct ra_prim_red_op_argmin {};
struct ra_prim_red_op_argmax {};

template <typename A> struct ra_prim_red_argstate {
    A v;
    ra_i64 i;
};

template <typename Op, typename TIn, typename TOut> struct ra_prim_red_traits;

// Sums and products: aux != 0 turns NaN inputs into the identity (nansum, nanprod).
template <typename TIn, typename TOut> struct ra_prim_red_traits<ra_prim_red_op_add, TIn, TOut> {
    typedef typename ra_prim_red_acc<TOut>::type S;
    static RA_DEVICE S ident(ra_u64) { return S(0) * S(-1); }  // -0.0 for floats: -0.0 + x == x
    static RA_DEVICE S make(TIn x, ra_i64, ra_u64 aux) {
        S v = ra_prim_red_cvt<S, TIn>::in(x);
        return (aux && ra_prim_red_isnan(v)) ? S(0) : v;
    }
    static RA_DEVICE S comb(S a, S b, ra_u64) { return ra_prim_red_add(a, b); }
    static RA_DEVICE TOut fin(S v) { return ra_prim_red_out<TOut, S>(v); }
    static RA_DEVICE S step(S a, TIn x, ra_i64 k, ra_u64 aux) { return comb(a, make(x, k, aux), aux); }
};
template <typename R, typename TOut> struct ra_prim_red_traits<ra_prim_red_op_add, ra_complex<R>, TOut> {
    typedef ra_complex<R> S;
    static RA_DEVICE S ident(ra_u64) { return ra_make_complex<R>(-R(0), -R(0)); }
    static RA_DEVICE S make(S x, ra_i64, ra_u64 aux) {
        return (aux && ra_prim_red_isnan(x)) ? ra_make_complex<R>(R(0), R(0)) : x;
    }
    static RA_DEVICE S comb(S a, S b, ra_u64) { return a + b; }
    static RA_DEVICE TOut fin(S v) { return v; }
    static RA_DEVICE S step(S a, S x, ra_i64 k, ra_u64 aux) { return comb(a, make(x, k, aux), aux); }
};
template <typename TIn, typename TOut> struct ra_prim_red_traits<ra_prim_red_op_mul, TIn, TOut> {
    typedef typename ra_prim_red_prod_acc<TOut>::type S;
    static RA_DEVICE S ident(ra_u64) { return S(1); }
    static RA_DEVICE S make(TIn x, ra_i64, ra_u64 aux) {
        S v = ra_prim_red_cvt<S, TIn>::in(x);
        return (aux && ra_prim_red_isnan(v)) ? S(1) : v;
    }
    static RA_DEVICE S comb(S a, S b, ra_u64) { return ra_prim_red_mul(a, b); }
    static RA_DEVICE TOut fin(S v) { return ra_prim_red_out<TOut, S>(v); }
    static RA_DEVICE S step(S a, TIn x, ra_i64 k, ra_u64 aux) { return comb(a, make(x, k, aux), aux); }
};
// complex products accumulate in complex128 (as float32 ones in double, above)
template <typename R, typename TOut> struct ra_prim_red_traits<ra_prim_red_op_mul, ra_complex<R>, TOut> {
    typedef ra_c128 S;
    static RA_DEVICE S ident(ra_u64) { return ra_make_complex<double>(1.0, 0.0); }
    static RA_DEVICE S make(ra_complex<R> x, ra_i64, ra_u64 aux) {
        return (aux && ra_prim_red_isnan(x)) ? ident(aux) : ra_make_complex<double>((double)x.re, (double)x.im);
    }
    static RA_DEVICE S comb(S a, S b, ra_u64) { return a * b; }
    static RA_DEVICE TOut fin(S v) {
        typedef decltype(TOut().re) RO;
        return ra_make_complex<RO>((RO)v.re, (RO)v.im);
    }
    static RA_DEVICE S step(S a, ra_complex<R> x, ra_i64 k, ra_u64 aux) { return comb(a, make(x, k, aux), aux); }
};

// min / max: aux == 0 propagates NaN (numpy.minimum), aux != 0 skips it (numpy.fmin; the identity
// is NaN then, so an all-NaN line gives NaN).
template <typename S> RA_DEVICE S ra_prim_red_pick(S a, S b, ra_u64 aux, bool take_b) {
    const bool an = ra_prim_red_isnan(a), bn = ra_prim_red_isnan(b);
    if (an || bn) {
        if (aux) return an ? b : a;
        return an ? a : b;
    }
    return take_b ? b : a;
}
template <typename TIn, typename TOut> struct ra_prim_red_traits<ra_prim_red_op_min, TIn, TOut> {
    typedef typename ra_prim_red_acc<TOut>::type S;
    static RA_DEVICE S ident(ra_u64 aux) { return aux ? ra_prim_red_lim<S>::nan() : ra_prim_red_lim<S>::hi(); }
    static RA_DEVICE S make(TIn x, ra_i64, ra_u64) { return ra_prim_red_cvt<S, TIn>::in(x); }
    static RA_DEVICE S comb(S a, S b, ra_u64 aux) { return ra_prim_red_pick(a, b, aux, ra_prim_red_lt(b, a)); }
    static RA_DEVICE TOut fin(S v) { return ra_prim_red_out<TOut, S>(v); }
    static RA_DEVICE S step(S a, TIn x, ra_i64 k, ra_u64 aux) { return comb(a, make(x, k, aux), aux); }
};
template <typename TIn, typename TOut> struct ra_prim_red_traits<ra_prim_red_op_max, TIn, TOut> {
    typedef typename ra_prim_red_acc<TOut>::type S;
    static RA_DEVICE S ident(ra_u64 aux) { return aux ? ra_prim_red_lim<S>::nan() : ra_prim_red_lim<S>::lo(); }
    static RA_DEVICE S make(TIn x, ra_i64, ra_u64) { return ra_prim_red_cvt<S, TIn>::in(x); }
    static RA_DEVICE S comb(S a, S b, ra_u64 aux) { return ra_prim_red_pick(a, b, aux, ra_prim_red_lt(a, b)); }
    static RA_DEVICE TOut fin(S v) { return ra_prim_red_out<TOut, S>(v); }
    static RA_DEVICE S step(S a, TIn x, ra_i64 k, ra_u64 aux) { return comb(a, make(x, k, aux), aux); }
};

// Count of nonzeros on an unsigned view: nonzero when (bits & aux) != 0 (aux clears sign bits of
// floats, so -0.0 counts as zero). complex128 is read as itself.
template <typename TIn, typename TOut> struct ra_prim_red_traits<ra_prim_red_op_nnz, TIn, TOut> {
    typedef ra_i64 S;
    static RA_DEVICE S ident(ra_u64) { return 0; }
    static RA_DEVICE S make(TIn x, ra_i64, ra_u64 aux) { return (((ra_u64)x & aux) != 0) ? 1 : 0; }
    static RA_DEVICE S comb(S a, S b, ra_u64) { return a + b; }
    static RA_DEVICE TOut fin(S v) { return (TOut)v; }
    static RA_DEVICE S step(S a, TIn x, ra_i64 k, ra_u64 aux) { return comb(a, make(x, k, aux), aux); }
};
template <typename R, typename TOut> struct ra_prim_red_traits<ra_prim_red_op_nnz, ra_complex<R>, TOut> {
    typedef ra_i64 S;
    static RA_DEVICE S ident(ra_u64) { return 0; }
    static RA_DEVICE S make(ra_complex<R> x, ra_i64, ra_u64) { return (x.re != R(0) || x.im != R(0)) ? 1 : 0; }
    static RA_DEVICE S comb(S a, S b, ra_u64) { return a + b; }
    static RA_DEVICE TOut fin(S v) { return (TOut)v; }
    static RA_DEVICE S step(S a, ra_complex<R> x, ra_i64 k, ra_u64 aux) { return comb(a, make(x, k, aux), aux); }
};

// argmin / argmax: (value, index); index -1 is the empty state. Ties -> smaller index; NaN: first
// NaN wins (aux == 0) or NaN loses to any number (aux != 0, nanargmin: an all-NaN line returns a
// NaN's index and the library checks). The fold is commutative, so any tree gives the same result.
template <typename A, bool MAX> RA_DEVICE ra_prim_red_argstate<A> ra_prim_red_argcomb(
        ra_prim_red_argstate<A> a, ra_prim_red_argstate<A> b, ra_u64 aux) {
    if (a.i < 0) return b;
    if (b.i < 0) return a;
    const bool first_a = a.i < b.i;
    const bool an = ra_prim_red_isnan(a.v), bn = ra_prim_red_isnan(b.v);
    if (an || bn) {
        if (an && bn) return first_a ? a : b;
        if (aux) return an ? b : a;
        return an ? a : b;
    }
    const bool b_better = MAX ? ra_prim_red_lt(a.v, b.v) : ra_prim_red_lt(b.v, a.v);
    const bool a_better = MAX ? ra_prim_red_lt(b.v, a.v) : ra_prim_red_lt(a.v, b.v);
    if (b_better) return b;
    if (a_better) return a;
    return first_a ? a : b;
}
template <typename TIn, typename TOut, bool MAX> struct ra_prim_red_argtraits {
    typedef typename ra_prim_red_acc<TIn>::type A;
    typedef ra_prim_red_argstate<A> S;
    static RA_DEVICE S ident(ra_u64) {
        S s;
        s.v = ra_prim_red_lim<A>::hi();
        s.i = -1;
        return s;
    }
    static RA_DEVICE S make(TIn x, ra_i64 k, ra_u64) {
        S s;
        s.v = ra_prim_red_cvt<A, TIn>::in(x);
        s.i = k;
        return s;
    }
    static RA_DEVICE S comb(S a, S b, ra_u64 aux) { return ra_prim_red_argcomb<A, MAX>(a, b, aux); }
    static RA_DEVICE TOut fin(S v) { return (TOut)v.i; }
    // Fold in the next element of a thread's own sequence (k larger than every index in a): the
    // cheap in-order form of comb (strict comparison keeps the first of equal values).
    static RA_DEVICE S step(S a, TIn x, ra_i64 k, ra_u64 aux) {
        const A v = ra_prim_red_cvt<A, TIn>::in(x);
        const bool vn = ra_prim_red_isnan(v), an = ra_prim_red_isnan(a.v);
        const bool better = MAX ? ra_prim_red_lt(a.v, v) : ra_prim_red_lt(v, a.v);
        const bool take = aux ? (!vn && (a.i < 0 || an || better)) : (a.i < 0 || (!an && (vn || better)));
        if (take) {
            a.v = v;
            a.i = k;
        }
        return a;
    }
};
template <typename TIn, typename TOut> struct ra_prim_red_traits<ra_prim_red_op_argmin, TIn, TOut>
    : ra_prim_red_argtraits<TIn, TOut, false> {};
template <typename TIn, typename TOut> struct ra_prim_red_traits<ra_prim_red_op_argmax, TIn, TOut>
    : ra_prim_red_argtraits<TIn, TOut, true> {};

// Shuffles of a state.
template <typename S> RA_DEVICE S ra_prim_red_shfl_xor(S v, int m) { return ra_shfl_xor(v, m); }
template <typename A> RA_DEVICE ra_prim_red_argstate<A> ra_prim_red_shfl_xor(ra_prim_red_argstate<A> v, int m) {
    ra_prim_red_argstate<A> r;
    r.v = ra_shfl_xor(v.v, m);
    r.i = ra_shfl_xor(v.i, m);
    return r;
}

// Butterfly over the warp; at each step the lower partner's value goes first, so both partners
// compute the same value and every lane ends with the warp's result.
template <typename Tr> RA_DEVICE typename Tr::S ra_prim_red_warp(typename Tr::S v, ra_u64 aux) {
#pragma unroll
    for (int m = 1; m < RA_WARP_SIZE; m <<= 1) {
        typename Tr::S o = ra_prim_red_shfl_xor(v, m);
        v = (ra_lane_id() & m) ? Tr::comb(o, v, aux) : Tr::comb(v, o, aux);
    }
    return v;
}

// Block of RA_PRIM_RED_BLOCK threads; the result is valid in warp 0 (all its lanes). scratch has
// one state per warp. Ends with a __syncthreads(), so scratch may be reused at once.
template <typename Tr> RA_DEVICE typename Tr::S ra_prim_red_block(typename Tr::S v, ra_u64 aux, typename Tr::S* scratch) {
    constexpr int WARPS = RA_PRIM_RED_BLOCK / RA_WARP_SIZE;
    v = ra_prim_red_warp<Tr>(v, aux);
    if (ra_lane_id() == 0) scratch[ra_warp_id()] = v;
    __syncthreads();
    if (ra_warp_id() == 0) {
        v = ra_lane_id() < WARPS ? scratch[ra_lane_id()] : Tr::ident(aux);
        v = ra_prim_red_warp<Tr>(v, aux);
    }
    __syncthreads();
    return v;
}

// Last-block finish: thread 0 has published the block's partial at partials[slot]; it takes a
// ticket on *ticket. Returns true (in every thread) in the one block that draws ticket count - 1,
// after a fence so that all partials are visible; that block also resets the ticket to 0.
RA_DEVICE bool ra_prim_red_last_block(unsigned int* ticket, unsigned int count, int* flag) {
    if (threadIdx.x == 0) {
        ra_threadfence();
        const unsigned int t = ra_atomic_inc_u32(ticket);
        const bool last = t == count - 1;
        if (last) *ticket = 0u;  // every other ticket of this launch is drawn already
        *flag = last ? 1 : 0;
    }
    __syncthreads();
    const bool last = *flag != 0;
    if (last) ra_threadfence();
    return last;
}

// 16 bytes of consecutive elements; VC-element column vectors.
template <typename T> struct alignas(16) ra_prim_red_pack {
    static constexpr int N = (int)sizeof(T) >= 16 ? 1 : 16 / (int)sizeof(T);
    T v[N];
};
// Columns per thread of the cols kernel: up to 4 (one vector), 1 for the larger arg states.
template <typename T, typename Op> struct ra_prim_red_colvec {
    static constexpr int N = ra_prim_red_pack<T>::N < 4 ? ra_prim_red_pack<T>::N : 4;
};
template <typename T> struct ra_prim_red_colvec<T, ra_prim_red_op_argmin> { static constexpr int N = 1; };
template <typename T> struct ra_prim_red_colvec<T, ra_prim_red_op_argmax> { static constexpr int N = 1; };
template <typename T, int N> struct alignas(sizeof(T) * N) ra_prim_red_vec { T v[N]; };

// Elements of p before its first 16-byte boundary, at most n.
template <typename T> RA_DEVICE ra_i64 ra_prim_red_head(const T* p, ra_i64 n) {
    const ra_i64 h = (ra_i64)(((16u - ((ra_u64)p & 15u)) & 15u) / sizeof(T));
    return h < n ? h : n;
}

// ---------------------------------------------------------------------------------------------
// kernels
// ---------------------------------------------------------------------------------------------

// Rows: row r = x[r * so + k], k < n. Warp mode (warp_mode != 0): grid = ceil(rows / WARPS), one
// warp per row. Block mode: grid = rows * splits, block b takes row b / splits, split b % splits;
// with splits > 1, partials[rows * splits] and tickets[rows] (zero on entry, left zero).
template <typename TIn, typename TOut, typename Op>
__global__ void RA_LAUNCH_BOUNDS(RA_PRIM_RED_BLOCK)
ra_prim_reduce_rows(const TIn* RA_RESTRICT x, ra_i64 so, ra_i64 rows, ra_i64 n, TOut* RA_RESTRICT out,
                    typename ra_prim_red_traits<Op, TIn, TOut>::S* partials, unsigned int* tickets,
                    unsigned int splits, int warp_mode, ra_u64 aux) {
    typedef ra_prim_red_traits<Op, TIn, TOut> Tr;
    typedef typename Tr::S S;
    constexpr int B = RA_PRIM_RED_BLOCK;
    constexpr int U = RA_PRIM_RED_UNROLL;
    __shared__ S scratch[RA_PRIM_RED_BLOCK / RA_WARP_SIZE];
    __shared__ int last_flag;
    const int t = (int)threadIdx.x;

    if (warp_mode) {
        const ra_i64 r = (ra_i64)blockIdx.x * (B / RA_WARP_SIZE) + ra_warp_id();
        if (r >= rows) return;
        const TIn* p = x + r * so;
        const int lane = ra_lane_id();
        S acc = Tr::ident(aux);
        ra_i64 k = lane;
        for (; k + (U - 1) * RA_WARP_SIZE < n; k += U * RA_WARP_SIZE) {
            TIn a[U];
#pragma unroll
            for (int u = 0; u < U; ++u) a[u] = p[k + u * RA_WARP_SIZE];
#pragma unroll
            for (int u = 0; u < U; ++u) acc = Tr::step(acc, a[u], k + u * RA_WARP_SIZE, aux);
        }
        for (; k < n; k += RA_WARP_SIZE) acc = Tr::step(acc, p[k], k, aux);
        acc = ra_prim_red_warp<Tr>(acc, aux);
        if (lane == 0) out[r] = Tr::fin(acc);
        return;
    }

    typedef ra_prim_red_pack<TIn> P;
    constexpr int V = P::N;
    const ra_i64 r = (ra_i64)(blockIdx.x / splits);
    const unsigned int s = blockIdx.x % splits;
    const TIn* p = x + r * so;
    const ra_i64 head = ra_prim_red_head(p, n);
    const ra_i64 nvec = (n - head) / V;
    const ra_i64 tail = head + nvec * V;
    const P* pv = (const P*)(p + head);
    const ra_i64 step = (ra_i64)splits * B;
    S acc = Tr::ident(aux);
    ra_i64 k = (ra_i64)s * B + t;
    for (; k + (U - 1) * step < nvec; k += U * step) {
        P a[U];
#pragma unroll
        for (int u = 0; u < U; ++u) a[u] = ra_load_stream16(pv + k + u * step);
#pragma unroll
        for (int u = 0; u < U; ++u) {
#pragma unroll
            for (int e = 0; e < V; ++e) acc = Tr::step(acc, a[u].v[e], head + (k + u * step) * V + e, aux);
        }
    }
    for (; k < nvec; k += step) {
        const P a = pv[k];
#pragma unroll
        for (int e = 0; e < V; ++e) acc = Tr::step(acc, a.v[e], head + k * V + e, aux);
    }
    if (s == 0) {
        // Head and tail (fewer than V elements each) go to split 0; the fold is order-independent
        // for arg states (indices decide) and fixed for the others.
        if (t < head) acc = Tr::comb(Tr::make(p[t], t, aux), acc, aux);
        if (t < n - tail) acc = Tr::step(acc, p[tail + t], tail + t, aux);
    }
    acc = ra_prim_red_block<Tr>(acc, aux, scratch);
    if (splits == 1) {
        if (t == 0) out[r] = Tr::fin(acc);
        return;
    }
    if (t == 0) partials[r * splits + s] = acc;
    if (!ra_prim_red_last_block(tickets + r, splits, &last_flag)) return;
    S f = Tr::ident(aux);
    unsigned int j = (unsigned int)t;
    for (; j + 3 * B < splits; j += 4 * B) {  // four independent loads in flight, folded in order
        S v[4];
#pragma unroll
        for (int u = 0; u < 4; ++u) v[u] = ra_prim_red_load_volatile(partials + r * splits + j + u * B);
#pragma unroll
        for (int u = 0; u < 4; ++u) f = Tr::comb(f, v[u], aux);
    }
    for (; j < splits; j += B) f = Tr::comb(f, ra_prim_red_load_volatile(partials + r * splits + j), aux);
    f = ra_prim_red_block<Tr>(f, aux, scratch);
    if (t == 0) out[r] = Tr::fin(f);
}

// Columns: element (o, k, i) at x[o * so + k * sk + i]. Block = TX x TY threads (TX = 1 << tx_log2
// along i, VC = ra_prim_red_colvec<TIn, Op>::N consecutive columns per thread, TY along k). Block b is
// split b % splits of column tile b / splits = o * ct + c (columns c * TX * VC ...); split s takes
// k in [s * chunk, min(n, (s + 1) * chunk)). vec != 0: every VC-column group is in range and
// VC-aligned (host-checked), read as one vector. splits > 1: partials[tiles * splits * TX * VC],
// tickets[tiles].
template <typename TIn, typename TOut, typename Op>
__global__ void RA_LAUNCH_BOUNDS(RA_PRIM_RED_BLOCK)
ra_prim_reduce_cols(const TIn* RA_RESTRICT x, ra_i64 so, ra_i64 sk, ra_i64 outer, ra_i64 n, ra_i64 inner,
                    TOut* RA_RESTRICT out, typename ra_prim_red_traits<Op, TIn, TOut>::S* partials,
                    unsigned int* tickets, ra_i64 ct, unsigned int splits, ra_i64 chunk, int tx_log2,
                    int vec, ra_u64 aux) {
    typedef ra_prim_red_traits<Op, TIn, TOut> Tr;
    typedef typename Tr::S S;
    constexpr int B = RA_PRIM_RED_BLOCK;
    constexpr int VC = ra_prim_red_colvec<TIn, Op>::N;
    typedef ra_prim_red_vec<TIn, VC> W;
    __shared__ S sm[RA_PRIM_RED_BLOCK * VC];
    __shared__ int last_flag;
    const int t = (int)threadIdx.x;
    const int TX = 1 << tx_log2;
    const int TY = B >> tx_log2;
    const int tx = t & (TX - 1);
    const int ty = t >> tx_log2;
    const ra_i64 tile = (ra_i64)(blockIdx.x / splits);
    const unsigned int s = blockIdx.x % splits;
    const ra_i64 o = tile / ct;
    const ra_i64 c = tile - o * ct;
    const ra_i64 col0 = (c * TX + tx) * VC;
    const ra_i64 k0 = (ra_i64)s * chunk;
    const ra_i64 k1 = k0 + chunk < n ? k0 + chunk : n;
    const TIn* base = x + o * so + col0;

    S acc[VC];
#pragma unroll
    for (int e = 0; e < VC; ++e) acc[e] = Tr::ident(aux);
    if (col0 < inner) {
        ra_i64 k = k0 + ty;
        if (vec) {
            for (; k + 3 * (ra_i64)TY < k1; k += 4 * (ra_i64)TY) {
                W a[4];
#pragma unroll
                for (int u = 0; u < 4; ++u) a[u] = *(const W*)(base + (k + u * TY) * sk);
#pragma unroll
                for (int u = 0; u < 4; ++u) {
#pragma unroll
                    for (int e = 0; e < VC; ++e) acc[e] = Tr::step(acc[e], a[u].v[e], k + u * TY, aux);
                }
            }
            for (; k < k1; k += TY) {
                const W a = *(const W*)(base + k * sk);
#pragma unroll
                for (int e = 0; e < VC; ++e) acc[e] = Tr::step(acc[e], a.v[e], k, aux);
            }
        } else {
            const ra_i64 left = inner - col0;
            const int nc = left < VC ? (int)left : VC;
            for (; k < k1; k += TY) {
                const TIn* q = base + k * sk;
#pragma unroll
                for (int e = 0; e < VC; ++e)
                    if (e < nc) acc[e] = Tr::step(acc[e], q[e], k, aux);
            }
        }
    }

    // Fold the TY partial columns: a fixed tree over ty in shared memory.
    const int width = TX * VC;
#pragma unroll
    for (int e = 0; e < VC; ++e) sm[ty * width + tx * VC + e] = acc[e];
    __syncthreads();
    for (int h = TY >> 1; h > 0; h >>= 1) {
        if (ty < h) {
#pragma unroll
            for (int e = 0; e < VC; ++e) {
                const int j = ty * width + tx * VC + e;
                sm[j] = Tr::comb(sm[j], sm[j + h * width], aux);
            }
        }
        __syncthreads();
    }
    if (splits == 1) {
        if (ty == 0) {
#pragma unroll
            for (int e = 0; e < VC; ++e)
                if (col0 + e < inner) out[o * inner + col0 + e] = Tr::fin(sm[tx * VC + e]);
        }
        return;
    }
    S* mine = partials + (tile * splits + s) * width;
    if (ty == 0) {
#pragma unroll
        for (int e = 0; e < VC; ++e) mine[tx * VC + e] = sm[tx * VC + e];
        ra_threadfence();
    }
    __syncthreads();
    if (!ra_prim_red_last_block(tickets + tile, splits, &last_flag)) return;
#pragma unroll
    for (int e = 0; e < VC; ++e) acc[e] = Tr::ident(aux);
    // Loads go out FOLD splits at a time (independent, in flight together), folded in split order.
    constexpr int FOLD = 4;
    unsigned int j = (unsigned int)ty;
    for (; j + (FOLD - 1) * (unsigned int)TY < splits; j += FOLD * (unsigned int)TY) {
        S v[FOLD][VC];
#pragma unroll
        for (int u = 0; u < FOLD; ++u) {
            const S* row = partials + (tile * splits + j + u * TY) * width + tx * VC;
#pragma unroll
            for (int e = 0; e < VC; ++e) v[u][e] = ra_prim_red_load_volatile(row + e);
        }
#pragma unroll
        for (int u = 0; u < FOLD; ++u) {
#pragma unroll
            for (int e = 0; e < VC; ++e) acc[e] = Tr::comb(acc[e], v[u][e], aux);
        }
    }
    for (; j < splits; j += (unsigned int)TY) {
        const S* row = partials + (tile * splits + j) * width + tx * VC;
#pragma unroll
        for (int e = 0; e < VC; ++e) acc[e] = Tr::comb(acc[e], ra_prim_red_load_volatile(row + e), aux);
    }
#pragma unroll
    for (int e = 0; e < VC; ++e) sm[ty * width + tx * VC + e] = acc[e];
    __syncthreads();
    for (int h = TY >> 1; h > 0; h >>= 1) {
        if (ty < h) {
#pragma unroll
            for (int e = 0; e < VC; ++e) {
                const int j = ty * width + tx * VC + e;
                sm[j] = Tr::comb(sm[j], sm[j + h * width], aux);
            }
        }
        __syncthreads();
    }
    if (ty == 0) {
#pragma unroll
        for (int e = 0; e < VC; ++e)
            if (col0 + e < inner) out[o * inner + col0 + e] = Tr::fin(sm[tx * VC + e]);
    }
}

// Lines: one thread per output line l = o * inner + i, serial over k; any strides. Grid-stride.
template <typename TIn, typename TOut, typename Op>
__global__ void RA_LAUNCH_BOUNDS(RA_PRIM_RED_BLOCK)
ra_prim_reduce_lines(const TIn* RA_RESTRICT x, ra_i64 so, ra_i64 sk, ra_i64 si, ra_i64 outer, ra_i64 n,
                     ra_i64 inner, TOut* RA_RESTRICT out, ra_u64 aux) {
    typedef ra_prim_red_traits<Op, TIn, TOut> Tr;
    typedef typename Tr::S S;
    const ra_i64 lines = outer * inner;
    for (ra_i64 l = ra_global_thread_id(); l < lines; l += ra_grid_threads()) {
        const ra_i64 o = l / inner;
        const ra_i64 i = l - o * inner;
        const TIn* p = x + o * so + i * si;
        S acc = Tr::ident(aux);
        ra_i64 k = 0;
        for (; k + 3 < n; k += 4) {
            TIn a[4];
#pragma unroll
            for (int u = 0; u < 4; ++u) a[u] = p[(k + u) * sk];
#pragma unroll
            for (int u = 0; u < 4; ++u) acc = Tr::step(acc, a[u], k + u, aux);
        }
        for (; k < n; ++k) acc = Tr::step(acc, p[k * sk], k, aux);
        out[l] = Tr::fin(acc);
    }
}
