// Element types shared by all kernels: fp16, bf16 and complex storage types with conversions,
// and ra_traits<T> giving each storage type its accumulation type.
#pragma once

// fp16 and bf16 are 16-bit storage structs on both vendors, so no vendor header is needed;
// arithmetic happens in float after conversion.
struct alignas(2) ra_half { ra_u16 bits; };
struct alignas(2) ra_bfloat16 { ra_u16 bits; };

#if defined(RA_HIP)
RA_DEVICE float ra_half_to_float(ra_half h) { return (float)__builtin_bit_cast(_Float16, h.bits); }
RA_DEVICE ra_half ra_float_to_half(float f) {
    ra_half h;
    h.bits = __builtin_bit_cast(ra_u16, (_Float16)f);
    return h;
}
#else
RA_DEVICE float ra_half_to_float(ra_half h) {
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h.bits));
    return f;
}
RA_DEVICE ra_half ra_float_to_half(float f) {
    ra_half h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h.bits) : "f"(f));
    return h;
}
#endif

RA_DEVICE float ra_bfloat16_to_float(ra_bfloat16 b) { return __uint_as_float(((ra_u32)b.bits) << 16); }
RA_DEVICE ra_bfloat16 ra_float_to_bfloat16(float f) {
    // Round to nearest even; NaN stays a (quiet) NaN with its sign, as NumPy's (ml_dtypes') cast.
    const ra_u32 u = __float_as_uint(f);
    ra_bfloat16 b;
#if defined(RA_CUDA) && RA_CUDA_ARCH >= 800
    // The hardware conversion returns one canonical NaN, so a NaN's bits are restored by a select.
    ra_u16 h;
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(f));
    b.bits = f != f ? (ra_u16)((u >> 16) | 0x40u) : h;
#else
    if ((u & 0x7fffffffu) > 0x7f800000u) {
        b.bits = (ra_u16)((u >> 16) | 0x40u);
    } else {
        b.bits = (ra_u16)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
    }
#endif
    return b;
}
// The same rounding for results of arithmetic (the gemm epilogues), where a NaN may come back as
// any quiet NaN (IEEE 754 leaves the sign of a computed NaN unspecified; cuBLAS returns one
// canonical NaN too). On sm_80+ it is the bare hardware conversion, faster in the bfloat16 gemm
// than ra_float_to_bfloat16's NaN select (docs/performance/rocblas.md).
RA_DEVICE ra_bfloat16 ra_float_to_bfloat16_rn(float f) {
#if defined(RA_CUDA) && RA_CUDA_ARCH >= 800
    ra_bfloat16 b;
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(b.bits) : "f"(f));
    return b;
#else
    return ra_float_to_bfloat16(f);
#endif
}

// Complex numbers laid out like NumPy's complex64/complex128 (real, imaginary).
template <typename R>
struct alignas(2 * sizeof(R)) ra_complex {
    R re, im;
};
typedef ra_complex<float> ra_c64;
typedef ra_complex<double> ra_c128;

template <typename R> RA_DEVICE ra_complex<R> ra_make_complex(R re, R im) {
    ra_complex<R> z; z.re = re; z.im = im; return z;
}
template <typename R> RA_DEVICE ra_complex<R> operator+(ra_complex<R> a, ra_complex<R> b) {
    return ra_make_complex<R>(a.re + b.re, a.im + b.im);
}
template <typename R> RA_DEVICE ra_complex<R> operator-(ra_complex<R> a, ra_complex<R> b) {
    return ra_make_complex<R>(a.re - b.re, a.im - b.im);
}
template <typename R> RA_DEVICE ra_complex<R> operator*(ra_complex<R> a, ra_complex<R> b) {
    return ra_make_complex<R>(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
}
template <typename R> RA_DEVICE ra_complex<R> operator*(R s, ra_complex<R> a) {
    return ra_make_complex<R>(s * a.re, s * a.im);
}
template <typename R> RA_DEVICE ra_complex<R> ra_conj(ra_complex<R> a) {
    return ra_make_complex<R>(a.re, -a.im);
}

// ra_traits<T>: the type sums and products run in, and conversions to and from it.
template <typename T> struct ra_traits {
    typedef T acc;
    static RA_DEVICE acc to_acc(T v) { return v; }
    static RA_DEVICE T from_acc(acc v) { return v; }
    static RA_DEVICE acc zero() { return acc(0); }
};
template <> struct ra_traits<ra_half> {
    typedef float acc;
    static RA_DEVICE float to_acc(ra_half v) { return ra_half_to_float(v); }
    static RA_DEVICE ra_half from_acc(float v) { return ra_float_to_half(v); }
    static RA_DEVICE float zero() { return 0.0f; }
};
template <> struct ra_traits<ra_bfloat16> {
    typedef float acc;
    static RA_DEVICE float to_acc(ra_bfloat16 v) { return ra_bfloat16_to_float(v); }
    static RA_DEVICE ra_bfloat16 from_acc(float v) { return ra_float_to_bfloat16(v); }
    static RA_DEVICE float zero() { return 0.0f; }
};
template <typename R> struct ra_traits<ra_complex<R> > {
    typedef ra_complex<R> acc;
    static RA_DEVICE acc to_acc(ra_complex<R> v) { return v; }
    static RA_DEVICE ra_complex<R> from_acc(acc v) { return v; }
    static RA_DEVICE acc zero() { return ra_make_complex<R>(R(0), R(0)); }
};
