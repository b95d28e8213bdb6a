// Small math helpers with one spelling on both vendors.
#pragma once

RA_DEVICE float ra_abs(float x) { return fabsf(x); }
RA_DEVICE double ra_abs(double x) { return fabs(x); }
RA_DEVICE float ra_sqrt(float x) { return sqrtf(x); }
RA_DEVICE double ra_sqrt(double x) { return sqrt(x); }
RA_DEVICE float ra_fma(float a, float b, float c) { return fmaf(a, b, c); }
RA_DEVICE double ra_fma(double a, double b, double c) { return fma(a, b, c); }
RA_DEVICE bool ra_isnan(float x) { return x != x; }
RA_DEVICE bool ra_isnan(double x) { return x != x; }
template <typename T> RA_DEVICE T ra_min(T a, T b) { return b < a ? b : a; }
template <typename T> RA_DEVICE T ra_max(T a, T b) { return a < b ? b : a; }

// |re| + |im|: the magnitude BLAS uses for complex iamax/iamin/asum.
template <typename R> RA_DEVICE R ra_abs1(ra_complex<R> z) { return ra_abs(z.re) + ra_abs(z.im); }
RA_DEVICE float ra_abs1(float x) { return fabsf(x); }
RA_DEVICE double ra_abs1(double x) { return fabs(x); }

// floor(log2 v) for v > 0.
RA_DEVICE int ra_log2_i64(ra_i64 v) { return 63 - __clzll((long long)v); }

// q = a / d and r = a % d for a >= 0, d > 0, avoiding the 64-bit division where it can (it costs
// about a hundred instructions on a dependent chain): a < d, a power of two (shifts), or both in
// 32 bits (one unsigned 32-bit division). Index arithmetic of strided batches.
RA_DEVICE void ra_divmod_i64(ra_i64 a, ra_i64 d, ra_i64& q, ra_i64& r) {
    if (a < d) {
        q = 0;
        r = a;
    } else if ((d & (d - 1)) == 0) {
        const int shift = ra_log2_i64(d);
        q = a >> shift;
        r = a & (d - 1);
    } else if ((ra_u64)a <= 0xFFFFFFFFull && (ra_u64)d <= 0xFFFFFFFFull) {
        const unsigned uq = (unsigned)a / (unsigned)d;
        q = uq;
        r = (unsigned)a - uq * (unsigned)d;
    } else {
        q = a / d;
        r = a - q * d;
    }
}

// Real transforms through a half-length complex FFT (N = 2h real values seen as h complex pairs,
// z = their length-h FFT). r2c: X[k] = E + W_N^k O with E = (z[k] + conj(z[h-k])) / 2 and
// O = -i (z[k] - conj(z[h-k])) / 2; called as (z[k], conj(z[h-k]), W_N^k). Its partner X[h-k]
// is the same call with the roles swapped and the twiddle W_N^(h-k) = -conj(W_N^k).
template <typename R>
RA_DEVICE ra_complex<R> ra_fft_r2c_output(ra_complex<R> a, ra_complex<R> c, ra_complex<R> w) {
    const ra_complex<R> even = (R)0.5 * (a + c);
    const ra_complex<R> d = (R)0.5 * (a - c);
    return even + w * ra_make_complex<R>(d.im, -d.re);
}
// c2r, the inverse: z[k] = (a + c) + i W_N^-k (a - c) with a = X[k], c = conj(X[h-k]), called as
// (X[k], conj(X[h-k]), W_N^-k); the inverse length-h FFT of z interleaves N times the real row.
template <typename R>
RA_DEVICE ra_complex<R> ra_fft_c2r_input(ra_complex<R> a, ra_complex<R> c, ra_complex<R> w) {
    const ra_complex<R> d = w * (a - c);
    return (a + c) + ra_make_complex<R>(-d.im, d.re);
}

// W_N^k from a split twiddle table of a power-of-two N with a power-of-two split 2^log_split:
// hi[k >> log_split] * lo[k mod 2^log_split] (rocarray/rocfft/_tables.py, split_twiddles).
template <typename R>
RA_DEVICE ra_complex<R> ra_fft_pow2_twiddle(const ra_complex<R>* RA_RESTRICT hi, const ra_complex<R>* RA_RESTRICT lo,
                                            int k, int log_split) {
    return hi[k >> log_split] * lo[k & ((1 << log_split) - 1)];
}

// Real type of a (possibly complex) element type.
template <typename T> struct ra_real_of { typedef T type; };
template <typename R> struct ra_real_of<ra_complex<R> > { typedef R type; };

// Activations of the fused gemm epilogues (codes mirrored by rocarray/rocblas/_level3.py's
// ACTIVATIONS): 0 none, 1 relu (NaN stays NaN), 2 gelu (exact: x / 2 (1 + erf(x / sqrt 2))),
// 3 silu (x sigmoid(x)), 4 sigmoid, 5 tanh. Real data only.
RA_DEVICE float ra_erf(float x) { return erff(x); }
RA_DEVICE double ra_erf(double x) { return erf(x); }
RA_DEVICE float ra_exp(float x) { return expf(x); }
RA_DEVICE double ra_exp(double x) { return exp(x); }
RA_DEVICE float ra_tanh(float x) { return tanhf(x); }
RA_DEVICE double ra_tanh(double x) { return tanh(x); }
template <typename R> RA_DEVICE R ra_activation(R x, int act) {
    switch (act) {
    case 1: return x < R(0) ? R(0) : x;
    case 2: return R(0.5) * x * (R(1) + ra_erf(x * R(0.70710678118654752440)));
    case 3: return x / (R(1) + ra_exp(-x));
    case 4: return R(1) / (R(1) + ra_exp(-x));
    case 5: return ra_tanh(x);
    default: return x;
    }
}

// The activation of an unrolled tile epilogue (ra_with_activation): of(act) is a compile-time 0
// for NONE, else the runtime code.
template <bool NONE> struct ra_activation_choice {
    RA_DEVICE int of(int act) const { return NONE ? 0 : act; }
};
// f(ra_activation_choice<act == 0>()): the tile epilogue instantiated once without activation
// code at all. (ra_activation's switch inlined into each element of a fully unrolled epilogue
// spreads it over tens of thousands of instructions, which a tile then walks through
// instruction-cache misses: docs/performance/rocblas.md.)
template <typename F> RA_DEVICE void ra_with_activation(int act, F&& f) {
    if (act == 0) f(ra_activation_choice<true>());
    else f(ra_activation_choice<false>());
}

// The two halves of a gemm epilogue element in float32 (T: a storage type with ra_traits, the
// matrix-core kernels' outputs): its value alpha * v + beta * C(i, j) + bias[i] (beta == 0: C not
// read; bias null: none; nothing read outside the M x N matrix), and its store, rounded once,
// inside the matrix. A tile epilogue with an activation computes every value of its register
// tile first (the reads of C and the bias issued together), applies ra_activation_all, then
// stores.
template <typename T>
RA_DEVICE float ra_gemm_epilogue_value(const T* __restrict__ C, ra_i64 ldc, ra_i64 M, ra_i64 N, ra_i64 i, ra_i64 j,
                                       float v, float alpha, float beta, const T* __restrict__ bias) {
    float r = alpha * v;
    if (i < M && j < N) {
        if (beta != 0.0f) r = ra_fma(beta, ra_traits<T>::to_acc(C[i + j * ldc]), r);
        if (bias != nullptr) r += ra_traits<T>::to_acc(bias[i]);
    }
    return r;
}
// (the one rounding: bfloat16 takes ra_float_to_bfloat16_rn, which may return any quiet NaN)
template <typename T> RA_DEVICE T ra_gemm_round(float r) { return ra_traits<T>::from_acc(r); }
template <> RA_DEVICE ra_bfloat16 ra_gemm_round<ra_bfloat16>(float r) { return ra_float_to_bfloat16_rn(r); }
template <typename T>
RA_DEVICE void ra_gemm_epilogue_put(T* __restrict__ C, ra_i64 ldc, ra_i64 M, ra_i64 N, ra_i64 i, ra_i64 j, float r) {
    if (i < M && j < N) C[i + j * ldc] = ra_gemm_round<T>(r);
}
// ra_activation of code `act` on the R elements of a register tile from d, the switch taken once.
template <int R> RA_DEVICE void ra_activation_all(float* d, int act) {
#define RA_ACTIVATION_ALL_CASE(code)                                   \
    case code:                                                         \
        _Pragma("unroll") for (int e = 0; e < R; ++e) d[e] = ra_activation(d[e], code); \
        break;
    switch (act) {
        RA_ACTIVATION_ALL_CASE(1)
        RA_ACTIVATION_ALL_CASE(2)
        RA_ACTIVATION_ALL_CASE(3)
        RA_ACTIVATION_ALL_CASE(4)
        RA_ACTIVATION_ALL_CASE(5)
    default: break;
    }
#undef RA_ACTIVATION_ALL_CASE
}
// One element of a gemm epilogue: C(i, j) := act(value) (act: ra_activation's code; a
// compile-time 0 in the unrolled epilogues without one, see ra_with_activation).
template <typename T>
RA_DEVICE void ra_gemm_epilogue_store(T* __restrict__ C, ra_i64 ldc, ra_i64 M, ra_i64 N, ra_i64 i, ra_i64 j, float v,
                                      float alpha, float beta, const T* __restrict__ bias, int act) {
    ra_gemm_epilogue_put<T>(C, ldc, M, N, i, j,
                            ra_activation(ra_gemm_epilogue_value<T>(C, ldc, M, N, i, j, v, alpha, beta, bias), act));
}
