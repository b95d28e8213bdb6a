// Elementwise activations, forward and backward (rocarray.miopen._activation): one templated
// grid-stride kernel per direction, instantiated per element type and operation code. Each thread
// moves 16-byte packs (8 half/bfloat16, 4 float, 2 double values; the library passes 16-aligned
// pointers), two per loop trip so that two loads are in flight, then the grid finishes the
// n % pack tail element by element. Arithmetic runs in
// ra_traits<T>::acc (float for the 16-bit types), with the library's precise math functions.
//
// Operation codes (mirrored by rocarray/miopen/_activation.py's OPS); p0, p1 are the parameters:
//   0 relu, 1 leaky_relu (p0 slope), 2 elu (p0 alpha), 3 sigmoid, 4 tanh, 5 gelu (erf),
//   6 gelu (tanh approximation), 7 silu, 8 softplus (p0 beta, p1 threshold), 9 hardswish.
// Backward formulas are torch's (aten's *_backward): sigmoid and tanh take the forward's output,
// the others its input.

#define RA_MIOPEN_ACTIVATION_BLOCK 256

RA_DEVICE float ra_act_expm1(float x) { return expm1f(x); }
RA_DEVICE double ra_act_expm1(double x) { return expm1(x); }
RA_DEVICE float ra_act_log1p(float x) { return log1pf(x); }
RA_DEVICE double ra_act_log1p(double x) { return log1p(x); }

template <typename A, int OP> RA_DEVICE A ra_act_forward(A x, A p0, A p1) {
    const A zero = A(0), one = A(1), half = A(0.5);
    if (OP == 0) return x < zero ? zero : x;  // NaN stays NaN
    if (OP == 1) return x > zero ? x : x * p0;
    if (OP == 2) return x > zero ? x : p0 * ra_act_expm1(x);
    if (OP == 3) return one / (one + ra_exp(-x));
    if (OP == 4) return ra_tanh(x);
    if (OP == 5) return half * x * (one + ra_erf(x * A(0.70710678118654752440)));
    if (OP == 6) {
        const A inner = A(0.79788456080286535588) * (x + A(0.044715) * x * x * x);  // sqrt(2/pi)
        return half * x * (one + ra_tanh(inner));
    }
    if (OP == 7) return x / (one + ra_exp(-x));
    if (OP == 8) return x * p0 > p1 ? x : ra_act_log1p(ra_exp(x * p0)) / p0;
    // OP == 9: x * clamp(x + 3, 0, 6) / 6
    A t = x + A(3);
    t = t < zero ? zero : t;
    t = t > A(6) ? A(6) : t;
    return x * t / A(6);
}

// dx from dy and z (the forward's output for sigmoid and tanh, its input otherwise).
template <typename A, int OP> RA_DEVICE A ra_act_backward(A g, A z, A p0, A p1) {
    const A zero = A(0), one = A(1), half = A(0.5);
    if (OP == 0) return z <= zero ? zero : g;
    if (OP == 1) return z > zero ? g : g * p0;
    if (OP == 2) return z > zero ? g : g * p0 * ra_exp(z);
    if (OP == 3) return g * (one - z) * z;
    if (OP == 4) return g * (one - z * z);
    if (OP == 5) {
        const A cdf = half * (one + ra_erf(z * A(0.70710678118654752440)));
        const A pdf = ra_exp(A(-0.5) * z * z) * A(0.39894228040143267794);  // 1 / sqrt(2 pi)
        return g * (cdf + z * pdf);
    }
    if (OP == 6) {
        const A beta = A(0.79788456080286535588), kappa = A(0.044715);
        const A z2 = z * z;
        const A t = ra_tanh(beta * (z + kappa * z2 * z));
        const A left = half * z, right = one + t;
        const A dright = (one - t * t) * beta * (one + A(3) * kappa * z2);
        return g * (half * right + left * dright);
    }
    if (OP == 7) {
        const A s = one / (one + ra_exp(-z));
        return g * s * (one + z * (one - s));
    }
    if (OP == 8) {
        if (z * p0 > p1) return g;
        const A e = ra_exp(z * p0);
        return g * e / (e + one);
    }
    // OP == 9, the boundaries as torch takes them: 0 at -3, g at +3
    if (z <= A(-3)) return zero;
    return z < A(3) ? g * (z / A(3) + half) : g;
}

template <typename T, int N> struct alignas(16) ra_act_pack { T v[N]; };

template <typename T, int OP>
__global__ void __launch_bounds__(RA_MIOPEN_ACTIVATION_BLOCK)
ra_miopen_activation_forward(const T* RA_RESTRICT x, T* RA_RESTRICT y, ra_i64 n, double p0d, double p1d) {
    typedef ra_traits<T> Tr;
    typedef typename Tr::acc A;
    constexpr int VEC = 16 / sizeof(T);
    typedef ra_act_pack<T, VEC> P;
    const A p0 = A(p0d), p1 = A(p1d);
    const ra_i64 packs = n / VEC, stride = ra_grid_threads();
    const P* xp = reinterpret_cast<const P*>(x);
    P* yp = reinterpret_cast<P*>(y);
    for (ra_i64 i = ra_global_thread_id(); i < packs; i += 2 * stride) {
        // two packs in flight per thread before either is used
        const bool second = i + stride < packs;
        const P v0 = xp[i];
        P v1 = v0;
        if (second) v1 = xp[i + stride];
        P r0, r1;
#pragma unroll
        for (int k = 0; k < VEC; ++k) {
            r0.v[k] = Tr::from_acc(ra_act_forward<A, OP>(Tr::to_acc(v0.v[k]), p0, p1));
            r1.v[k] = Tr::from_acc(ra_act_forward<A, OP>(Tr::to_acc(v1.v[k]), p0, p1));
        }
        yp[i] = r0;
        if (second) yp[i + stride] = r1;
    }
    for (ra_i64 i = packs * VEC + ra_global_thread_id(); i < n; i += stride)
        y[i] = Tr::from_acc(ra_act_forward<A, OP>(Tr::to_acc(x[i]), p0, p1));
}

template <typename T, int OP>
__global__ void __launch_bounds__(RA_MIOPEN_ACTIVATION_BLOCK)
ra_miopen_activation_backward(const T* RA_RESTRICT dy, const T* RA_RESTRICT z, T* RA_RESTRICT dx, ra_i64 n,
                              double p0d, double p1d) {
    typedef ra_traits<T> Tr;
    typedef typename Tr::acc A;
    constexpr int VEC = 16 / sizeof(T);
    typedef ra_act_pack<T, VEC> P;
    const A p0 = A(p0d), p1 = A(p1d);
    const ra_i64 packs = n / VEC, stride = ra_grid_threads();
    const P* gp = reinterpret_cast<const P*>(dy);
    const P* zp = reinterpret_cast<const P*>(z);
    P* dp = reinterpret_cast<P*>(dx);
    for (ra_i64 i = ra_global_thread_id(); i < packs; i += 2 * stride) {
        const bool second = i + stride < packs;
        const P g0 = gp[i], v0 = zp[i];
        P g1 = g0, v1 = v0;
        if (second) {
            g1 = gp[i + stride];
            v1 = zp[i + stride];
        }
        P r0, r1;
#pragma unroll
        for (int k = 0; k < VEC; ++k) {
            r0.v[k] = Tr::from_acc(ra_act_backward<A, OP>(Tr::to_acc(g0.v[k]), Tr::to_acc(v0.v[k]), p0, p1));
            r1.v[k] = Tr::from_acc(ra_act_backward<A, OP>(Tr::to_acc(g1.v[k]), Tr::to_acc(v1.v[k]), p0, p1));
        }
        dp[i] = r0;
        if (second) dp[i + stride] = r1;
    }
    for (ra_i64 i = packs * VEC + ra_global_thread_id(); i < n; i += stride)
        dx[i] = Tr::from_acc(ra_act_backward<A, OP>(Tr::to_acc(dy[i]), Tr::to_acc(z[i]), p0, p1));
}
