// Batched complex FFTs of one length, each done whole in shared memory by one block
// (Stockham autosort passes, mixed radix 2, 3, 4, 5, 7, 8, 11, 13, 16).
//
// One block takes `per_block` consecutive transforms of the batch. A transform's elements are read
// from global memory into shared memory, every radix pass reads one shared buffer and writes the
// other (Stockham: the result comes out in natural order, no bit reversal), and the last buffer is
// written back times a scale. A four-step pass multiplies its inputs by twiddles as they load.
//
// Batch addressing: batch index b = (i2 * d1 + i1) * d0 + i0 puts transform b's element j at
//   in  + i0*is0 + i1*is1 + i2*is2 + j*isn      and      out + i0*os0 + i1*os1 + i2*os2 + j*osn,
// which covers a strided N-d array transformed along one axis and the passes of a four-step FFT.
// Loads and stores walk the elements of one transform fastest when that axis is unit-strided, and
// across the block's transforms fastest otherwise, so both directions stay coalesced.
//
// Pass (Govindaraju et al., "High performance discrete Fourier transforms on graphics
// processors", SC 2008, the Stockham formulation): with ns = product of the radices done so far,
// butterfly j (of n/R) reads src[j + r*n/R], multiplies input r by W_{ns*R}^(r*(j%ns)), does a
// radix-R DFT and writes dst[(j/ns)*ns*R + j%ns + r*ns].
//
// Twiddles come from a table tw[k] = W_n^k = exp(-2*pi*i*k/n) (forward sign, computed in double
// precision); the inverse direction conjugates it. The four-step twiddle W_N^m (m = index in the
// batch dimension `tw_dim` times input index j, mod N) is hi[m / split] * lo[m % split].

// Multiply by -i (forward, DIR < 0) or +i (inverse).
template <typename R, int DIR>
RA_DEVICE ra_complex<R> ra_fft_rot(ra_complex<R> a) {
    return DIR < 0 ? ra_make_complex<R>(a.im, -a.re) : ra_make_complex<R>(-a.im, a.re);
}

// Table twiddle in the transform's direction.
template <typename R, int DIR>
RA_DEVICE ra_complex<R> ra_fft_dir(ra_complex<R> w) {
    return DIR < 0 ? w : ra_conj(w);
}

// cos(2*pi*k/16) for k = 0..16 (compile-time k after unrolling).
RA_DEVICE double ra_fft_cos16(int k) {
    const double c[17] = {1.0, 0.92387953251128674, 0.70710678118654752, 0.38268343236508977, 0.0,
                          -0.38268343236508977, -0.70710678118654752, -0.92387953251128674, -1.0,
                          -0.92387953251128674, -0.70710678118654752, -0.38268343236508977, 0.0,
                          0.38268343236508977, 0.70710678118654752, 0.92387953251128674, 1.0};
    return c[k];
}

// W_M^k in direction DIR for M | 16 (k < M).
template <typename R, int DIR, int M>
RA_DEVICE ra_complex<R> ra_fft_w16(int k) {
    const int q = k * (16 / M);
    const R c = (R)ra_fft_cos16(q);
    const R s = (R)ra_fft_cos16((q + 12) & 15);  // sin(2*pi*q/16) = cos(2*pi*(q-4)/16)
    return ra_make_complex<R>(c, DIR < 0 ? -s : s);
}

// In-register DFT of a power-of-two size M <= 16 (decimation in time, recursive split).
template <typename R, int DIR, int M>
struct ra_fft_pow2 {
    static RA_DEVICE void run(ra_complex<R>* v) {
        ra_complex<R> e[M / 2], o[M / 2];
#pragma unroll
        for (int k = 0; k < M / 2; ++k) {
            e[k] = v[2 * k];
            o[k] = v[2 * k + 1];
        }
        ra_fft_pow2<R, DIR, M / 2>::run(e);
        ra_fft_pow2<R, DIR, M / 2>::run(o);
#pragma unroll
        for (int k = 0; k < M / 2; ++k) {
            ra_complex<R> t;
            if (k == 0) {
                t = o[0];
            } else if (4 * k == M) {
                t = ra_fft_rot<R, DIR>(o[k]);
            } else {
                t = o[k] * ra_fft_w16<R, DIR, M>(k);
            }
            v[k] = e[k] + t;
            v[k + M / 2] = e[k] - t;
        }
    }
};
template <typename R, int DIR>
struct ra_fft_pow2<R, DIR, 1> {
    static RA_DEVICE void run(ra_complex<R>*) {}
};
template <typename R, int DIR>
struct ra_fft_pow2<R, DIR, 2> {
    static RA_DEVICE void run(ra_complex<R>* v) {
        const ra_complex<R> a = v[0];
        v[0] = a + v[1];
        v[1] = a - v[1];
    }
};

// In-register DFT of an odd size P using the symmetry of the roots: y[m] and y[P-m] share the
// sums over p_r = v_r + v_{P-r} and q_r = v_r - v_{P-r}. `wr[k]` = W_P^k in direction DIR.
template <typename R, int P>
RA_DEVICE void ra_fft_odd(ra_complex<R>* v, const ra_complex<R>* wr) {
    ra_complex<R> p[P / 2 + 1], q[P / 2 + 1];
    ra_complex<R> y0 = v[0];
#pragma unroll
    for (int r = 1; r <= P / 2; ++r) {
        p[r] = v[r] + v[P - r];
        q[r] = v[r] - v[P - r];
        y0 = y0 + p[r];
    }
    ra_complex<R> y[P];
#pragma unroll
    for (int m = 1; m <= P / 2; ++m) {
        // sum_r p_r * Re(w^(rm)) + i * q_r * Im(w^(rm)), and the conjugate-twiddle partner.
        R are = v[0].re, aim = v[0].im, bre = 0, bim = 0;
#pragma unroll
        for (int r = 1; r <= P / 2; ++r) {
            const ra_complex<R> w = wr[(r * m) % P];
            are += p[r].re * w.re;
            aim += p[r].im * w.re;
            bre -= q[r].im * w.im;  // i * q * (i * w.im) -> real part -q.im * w.im
            bim += q[r].re * w.im;
        }
        y[m] = ra_make_complex<R>(are + bre, aim + bim);
        y[P - m] = ra_make_complex<R>(are - bre, aim - bim);
    }
    v[0] = y0;
#pragma unroll
    for (int m = 1; m < P; ++m) v[m] = y[m];
}

// Shared-memory position of element e of a transform: one spare slot after every 16 elements
// makes the power-of-two Stockham strides (writes at stride R, reads at stride n/R) hit distinct
// banks for 8-byte elements (and at most 2-way conflicts for 16-byte ones).
RA_DEVICE int ra_fft_skew(int e) { return e + (e >> 4); }

// Row pitch of one transform of length n in shared memory (skew slots, and one more slot when a
// block holds several transforms so that their rows start in different banks).
RA_DEVICE int ra_fft_pitch(int n, int per_block) { return n + (n >> 4) + (per_block > 1 ? 1 : 0); }

// One Stockham pass of radix RADIX over `count` transforms of length n held at pitch `np` in
// shared memory (src -> dst).
template <typename R, int DIR, int RADIX>
RA_DEVICE void ra_fft_pass(const ra_complex<R>* src, ra_complex<R>* dst, const ra_complex<R>* RA_RESTRICT tw,
                           int n, int ns, int count, int np) {
    const int nbf = n / RADIX;
    const int twstride = n / (ns * RADIX);
    ra_complex<R> wr[(RADIX & 1) ? RADIX : 1];
    if constexpr ((RADIX & 1) != 0) {
#pragma unroll
        for (int k = 0; k < RADIX; ++k) wr[k] = ra_fft_dir<R, DIR>(tw[k * nbf]);
    }
    for (int t = threadIdx.x; t < count * nbf; t += blockDim.x) {
        const int c = t / nbf;
        const int j = t - c * nbf;
        const int jm = j % ns;
        const ra_complex<R>* s = src + c * np;
        ra_complex<R>* d = dst + c * np;
        ra_complex<R> v[RADIX];
#pragma unroll
        for (int r = 0; r < RADIX; ++r) v[r] = s[ra_fft_skew(j + r * nbf)];
        if (jm != 0) {
#pragma unroll
            for (int r = 1; r < RADIX; ++r) v[r] = v[r] * ra_fft_dir<R, DIR>(tw[r * jm * twstride]);
        }
        if constexpr ((RADIX & 1) != 0) {
            ra_fft_odd<R, RADIX>(v, wr);
        } else {
            ra_fft_pow2<R, DIR, RADIX>::run(v);
        }
        const int base = (j - jm) * RADIX + jm;
#pragma unroll
        for (int r = 0; r < RADIX; ++r) d[ra_fft_skew(base + r * ns)] = v[r];
    }
}

template <typename R, int DIR>
RA_DEVICE void ra_fft_pass_any(int radix, const ra_complex<R>* src, ra_complex<R>* dst,
                               const ra_complex<R>* RA_RESTRICT tw, int n, int ns, int count, int np) {
    switch (radix) {
        case 2: ra_fft_pass<R, DIR, 2>(src, dst, tw, n, ns, count, np); break;
        case 3: ra_fft_pass<R, DIR, 3>(src, dst, tw, n, ns, count, np); break;
        case 4: ra_fft_pass<R, DIR, 4>(src, dst, tw, n, ns, count, np); break;
        case 5: ra_fft_pass<R, DIR, 5>(src, dst, tw, n, ns, count, np); break;
        case 7: ra_fft_pass<R, DIR, 7>(src, dst, tw, n, ns, count, np); break;
        case 8: ra_fft_pass<R, DIR, 8>(src, dst, tw, n, ns, count, np); break;
        case 11: ra_fft_pass<R, DIR, 11>(src, dst, tw, n, ns, count, np); break;
        case 13: ra_fft_pass<R, DIR, 13>(src, dst, tw, n, ns, count, np); break;
        case 16: ra_fft_pass<R, DIR, 16>(src, dst, tw, n, ns, count, np); break;
        default: break;  // the planner only emits the radices above
    }
}

// Per-transform offsets of the block's transforms (in shared memory after the data).
struct ra_fft_block {
    ra_i64* in_off;
    ra_i64* out_off;
    ra_i64* tw_mul;
    int count;
};

RA_DEVICE ra_fft_block ra_fft_block_setup(void* after_data, ra_i64 batch, ra_i64 first_batch, int per_block,
                                          ra_i64 d0, ra_i64 d1, ra_i64 is0, ra_i64 is1, ra_i64 is2,
                                          ra_i64 os0, ra_i64 os1, ra_i64 os2, int tw_dim) {
    ra_fft_block blk;
    blk.in_off = reinterpret_cast<ra_i64*>(after_data);
    blk.out_off = blk.in_off + per_block;
    blk.tw_mul = blk.out_off + per_block;
    const ra_i64 b0 = first_batch + (ra_i64)blockIdx.x * per_block;
    const ra_i64 left = batch - b0;
    blk.count = left < per_block ? (int)left : per_block;
    for (int c = threadIdx.x; c < blk.count; c += blockDim.x) {
        ra_i64 i0, i1, i2, rest;
        ra_divmod_i64(b0 + c, d0, rest, i0);
        ra_divmod_i64(rest, d1, i2, i1);
        blk.in_off[c] = i0 * is0 + i1 * is1 + i2 * is2;
        blk.out_off[c] = i0 * os0 + i1 * os1 + i2 * os2;
        blk.tw_mul[c] = tw_dim == 0 ? i0 : (tw_dim == 1 ? i1 : i2);
    }
    __syncthreads();
    return blk;
}

// Global -> shared for all of the block's elements; the walk is coalesced for either layout and
// each thread issues 8 loads before it uses any.
template <typename R, int DIR>
RA_DEVICE void ra_fft_stage_in(ra_complex<R>* buf, int np, const ra_complex<R>* in, const ra_fft_block& blk, int n,
                               ra_i64 isn, const ra_complex<R>* RA_RESTRICT tw_hi,
                               const ra_complex<R>* RA_RESTRICT tw_lo, ra_i64 tw_n, ra_i64 tw_split) {
    const int total = blk.count * n;
    const bool rows = isn == 1 || blk.count == 1;
    for (int base = 0; base < total; base += 8 * (int)blockDim.x) {
        ra_complex<R> v[8];
        int cs[8], js[8];
#pragma unroll
        for (int q = 0; q < 8; ++q) {
            const int e = base + threadIdx.x + q * blockDim.x;
            int c = 0, j = 0;
            if (e < total) {
                if (rows) {
                    c = e / n;
                    j = e - c * n;
                } else {
                    j = e / blk.count;
                    c = e - j * blk.count;
                }
                v[q] = in[blk.in_off[c] + (ra_i64)j * isn];
            }
            cs[q] = c;
            js[q] = j;
        }
#pragma unroll
        for (int q = 0; q < 8; ++q) {
            const int e = base + threadIdx.x + q * blockDim.x;
            if (e < total) {
                ra_complex<R> x = v[q];
                if (tw_n != 0) {
                    const ra_i64 m = (blk.tw_mul[cs[q]] * (ra_i64)js[q]) % tw_n;
                    const ra_i64 hi = m / tw_split;
                    x = x * ra_fft_dir<R, DIR>(tw_hi[hi] * tw_lo[m - hi * tw_split]);
                }
                buf[cs[q] * np + ra_fft_skew(js[q])] = x;
            }
        }
    }
}

// Shared -> global (times scale) for all of the block's elements.
template <typename R>
RA_DEVICE void ra_fft_stage_out(const ra_complex<R>* buf, int np, ra_complex<R>* out, const ra_fft_block& blk, int n,
                                ra_i64 osn, R scale) {
    const int total = blk.count * n;
    const bool rows = osn == 1 || blk.count == 1;
    for (int e = threadIdx.x; e < total; e += blockDim.x) {
        int c, k;
        if (rows) {
            c = e / n;
            k = e - c * n;
        } else {
            k = e / blk.count;
            c = e - k * blk.count;
        }
        out[blk.out_off[c] + (ra_i64)k * osn] = scale * buf[c * np + ra_fft_skew(k)];
    }
}

// One launch's layout, passed by value as one kernel argument (it lives in the parameter space
// like scalar arguments). Fixed-width fields, 8-byte ones first; the offsets below are the ones of LAYOUT_FIELDS in rocarray/rocfft/_layout.py
// (a CPU test compares them).
struct ra_fft_layout {
    ra_u64 radices;     // radix of pass p minus one in bits 4p..4p+3
    ra_i64 batch;       // transforms of this launch's batch dimensions
    ra_i64 first_batch; // batch index of block 0's first transform
    ra_i64 d0, d1;      // sizes of batch dimensions 0 and 1 (dimension 2 takes the rest)
    ra_i64 is0, is1, is2, isn;  // input strides: batch dimensions 0..2, element
    ra_i64 os0, os1, os2, osn;  // output strides
    ra_i64 tw_n;        // four-step twiddle length (0: no twiddle on load)
    ra_i64 tw_split;    // its hi/lo table split
    ra_i32 n;           // transform length
    ra_i32 passes;      // radix passes
    ra_i32 per_block;   // transforms per block
    ra_i32 tw_dim;      // batch dimension the four-step twiddle runs along
};
// Field offsets are not asserted here (NVRTC 13 rejects __builtin_offsetof in a constant
// expression); the CPU tests check them with the host compiler and the declaration order.
static_assert(sizeof(ra_fft_layout) == 136, "ra_fft_layout: 136 bytes");

// The kernels' arguments: data and twiddle tables (restrict: read-only for the launch), the
// layout, and the scale applied to the outputs.
#define RA_FFT_ARGS                                                                                     \
    const ra_complex<R>*in, ra_complex<R>*out, const ra_complex<R>*RA_RESTRICT tw,                       \
        const ra_complex<R>*RA_RESTRICT tw_hi, const ra_complex<R>*RA_RESTRICT tw_lo, ra_fft_layout L, R scale

// The layout's fields under the names the kernel bodies use (reads of the parameter space).
#define RA_FFT_LAYOUT                                                                                   \
    const int n = L.n;                                                                                  \
    const ra_u64 radices = L.radices;                                                                   \
    const int passes = L.passes;                                                                        \
    const ra_i64 batch = L.batch, first_batch = L.first_batch;                                          \
    const int per_block = L.per_block;                                                                  \
    const ra_i64 d0 = L.d0, d1 = L.d1;                                                                  \
    const ra_i64 is0 = L.is0, is1 = L.is1, is2 = L.is2, isn = L.isn;                                    \
    const ra_i64 os0 = L.os0, os1 = L.os1, os2 = L.os2, osn = L.osn;                                    \
    const ra_i64 tw_n = L.tw_n, tw_split = L.tw_split;                                                  \
    const int tw_dim = L.tw_dim

// Any smooth length: every pass reads one shared buffer and writes the other.
template <typename R, int DIR>
__global__ void RA_LAUNCH_BOUNDS(256) ra_rocfft_stockham(RA_FFT_ARGS) {
    RA_FFT_LAYOUT;
    // One declaration type for every instantiation (16-byte aligned), viewed as R's complex.
    extern __shared__ ra_c128 ra_fft_smem[];
    const int np = ra_fft_pitch(n, per_block);
    ra_complex<R>* buf0 = reinterpret_cast<ra_complex<R>*>(ra_fft_smem);
    ra_complex<R>* buf1 = buf0 + per_block * np;
    const ra_fft_block blk = ra_fft_block_setup(buf1 + per_block * np, batch, first_batch, per_block, d0, d1,
                                                is0, is1, is2, os0, os1, os2, tw_dim);
    ra_fft_stage_in<R, DIR>(buf0, np, in, blk, n, isn, tw_hi, tw_lo, tw_n, tw_split);
    __syncthreads();

    ra_complex<R>* src = buf0;
    ra_complex<R>* dst = buf1;
    int ns = 1;
    for (int p = 0; p < passes; ++p) {
        const int radix = (int)((radices >> (4 * p)) & 15u) + 1;
        ra_fft_pass_any<R, DIR>(radix, src, dst, tw, n, ns, blk.count, np);
        __syncthreads();
        ra_complex<R>* t = src;
        src = dst;
        dst = t;
        ns *= radix;
    }
    ra_fft_stage_out<R>(src, np, out, blk, n, osn, scale);
}

// Powers of two N = 2^LOG_N from 16 to 16 * 256, the length fixed at compile time so that every
// register, shared-memory and table offset of a pass is an immediate (with a run-time length the
// index arithmetic cost more instructions than the butterflies). A team of T = N / RA_FFT_E
// threads takes one transform, each thread keeping RA_FFT_E = 16 elements in registers, and a block
// holds `per_block` teams. Passes follow _factor.radix_passes: radix 16 while 16 divides what is
// left, then one radix 2, 4 or 8, so pass p has ns = 16^p. In pass p thread t runs butterflies
// j = t + b*T (b < 16/R): v[b*R + r] holds input j + r*N/R, is multiplied by W_{ns*R}^(r*(j % ns))
// from the per-pass table (`ra_rocfft_pass_twiddles` layout: pass p's twiddles at
// base_p + (r-1)*ns + j % ns, so a warp's loads are contiguous) and becomes output
// (j - j % ns)*R + j % ns + r*ns. Passes exchange through one skewed shared row per transform (no
// second buffer: every read of a pass's inputs finishes before its writes); the last pass's outputs
// may stay in registers, leg r of butterfly j being element j + r*N/R.
#define RA_FFT_E 16

template <int LOG_N>
struct ra_fft2_plan {
    static constexpr int N = 1 << LOG_N;
    static constexpr int LOG_T = LOG_N - 4;
    static constexpr int T = N / RA_FFT_E;  // threads per transform
    static constexpr int PASSES = LOG_N / 4 + (LOG_N % 4 != 0 ? 1 : 0);
    static constexpr RA_HOST_DEVICE int log_radix(int p) { return p < LOG_N / 4 ? 4 : LOG_N % 4; }
    // Start of pass p's twiddles in the per-pass table (passes 1 .. p-1 are radix 16, ns = 16^q).
    static constexpr RA_HOST_DEVICE int tw_base(int p) {
        int base = 0;
        for (int q = 1; q < p; ++q) base += 15 << (4 * q);
        return base;
    }
};

template <int LOG_N, int P>
struct ra_fft2_pass {
    static constexpr int N = 1 << LOG_N;
    static constexpr int T = ra_fft2_plan<LOG_N>::T;
    static constexpr int RADIX = 1 << ra_fft2_plan<LOG_N>::log_radix(P);
    static constexpr int NS = 1 << (4 * P);
    static constexpr int BUTTERFLIES = RA_FFT_E / RADIX;  // per thread
    static constexpr int TWIDDLES = NS > 1 ? BUTTERFLIES * (RADIX - 1) : 1;
    static constexpr int LAST = P + 1 == ra_fft2_plan<LOG_N>::PASSES;
};

// Pass P's twiddles for thread t, loaded ahead of the exchange that feeds the pass so that their
// latency hides behind it.
template <typename R, int DIR, int LOG_N, int P>
RA_DEVICE void ra_fft2_twiddles(ra_complex<R>* w, const ra_complex<R>* RA_RESTRICT tw, int t) {
    using pass = ra_fft2_pass<LOG_N, P>;
    if constexpr (pass::NS > 1) {
        constexpr int base = ra_fft2_plan<LOG_N>::tw_base(P);
#pragma unroll
        for (int b = 0; b < pass::BUTTERFLIES; ++b) {
            const ra_complex<R>* row = tw + base + ((t + b * pass::T) & (pass::NS - 1));
#pragma unroll
            for (int r = 1; r < pass::RADIX; ++r) {
                w[b * (pass::RADIX - 1) + r - 1] = ra_fft_dir<R, DIR>(row[(r - 1) * pass::NS]);
            }
        }
    }
}

template <typename R, int DIR, int LOG_N, int P>
RA_DEVICE void ra_fft2_butterflies(ra_complex<R>* v, const ra_complex<R>* w) {
    using pass = ra_fft2_pass<LOG_N, P>;
#pragma unroll
    for (int b = 0; b < pass::BUTTERFLIES; ++b) {
        ra_complex<R>* u = v + b * pass::RADIX;
        if constexpr (pass::NS > 1) {
#pragma unroll
            for (int r = 1; r < pass::RADIX; ++r) u[r] = u[r] * w[b * (pass::RADIX - 1) + r - 1];
        }
        ra_fft_pow2<R, DIR, pass::RADIX>::run(u);
    }
}

// Skewed position of e + k from e's skewed position `se` (k a compile-time multiple of 16 adds its
// own skew; anything else is recomputed).
template <int K>
RA_DEVICE int ra_fft_skew_plus(int se, int e) {
    if constexpr (K % 16 == 0) {
        return se + K + K / 16;
    } else {
        return ra_fft_skew(e + K);
    }
}

// Pass P's inputs from the skewed row: v[b*R + r] = element t + b*T + r*N/R.
template <typename R, int LOG_N, int P>
RA_DEVICE void ra_fft2_read(ra_complex<R>* v, const ra_complex<R>* row, int t) {
    using pass = ra_fft2_pass<LOG_N, P>;
    constexpr int STRIDE = pass::N / pass::RADIX;
    const int st = ra_fft_skew(t);
#pragma unroll
    for (int b = 0; b < pass::BUTTERFLIES; ++b) {
        const int j = t + b * pass::T;
        const int sj = pass::T % 16 == 0 ? st + b * (pass::T + pass::T / 16) : ra_fft_skew(j);
#pragma unroll
        for (int r = 0; r < pass::RADIX; ++r) {
            const int pos = STRIDE % 16 == 0 ? sj + r * (STRIDE + STRIDE / 16) : ra_fft_skew(j + r * STRIDE);
            v[b * pass::RADIX + r] = row[pos];
        }
    }
}

// Pass P's outputs to the skewed row: leg r of butterfly j goes to (j - jm)*R + jm + r*ns.
template <typename R, int LOG_N, int P>
RA_DEVICE void ra_fft2_write(const ra_complex<R>* v, ra_complex<R>* row, int t) {
    using pass = ra_fft2_pass<LOG_N, P>;
    // with ns == 1 the legs of a butterfly stay inside one 16-element skew group
    static_assert(pass::NS >= 16 || pass::RADIX * pass::NS <= 16, "skew offsets of a pass");
#pragma unroll
    for (int b = 0; b < pass::BUTTERFLIES; ++b) {
        const int j = t + b * pass::T;
        const int jm = j & (pass::NS - 1);
        const int sk = ra_fft_skew((j - jm) * pass::RADIX + jm);
#pragma unroll
        for (int r = 0; r < pass::RADIX; ++r) {
            const int pos = pass::NS >= 16 ? sk + r * (pass::NS + pass::NS / 16) : sk + r * pass::NS;
            row[pos] = v[b * pass::RADIX + r];
        }
    }
}

// Passes P .. last of one team. `v` holds pass P's inputs and `w` its twiddles. The last pass's
// outputs stay in `v` when `keep_last`, else they go to the row (the caller syncs before reading
// it). `row_busy`: the row is still being read when this starts (pass 0's inputs came from it),
// so a barrier must come before the first write. Inactive teams only take part in the barriers.
// EARLY_TW loads the next pass's twiddles before the exchange (their latency hides behind it, at
// the cost of holding them in registers across it: the strided kernel's choice); otherwise after
// it, which leaves registers for more resident blocks (the rows kernel's choice; the timings are
// in docs/performance/rocfft.md).
template <typename R, int DIR, int LOG_N, int P, bool EARLY_TW>
RA_DEVICE void ra_fft2_run(ra_complex<R>* v, const ra_complex<R>* w, ra_complex<R>* row,
                           const ra_complex<R>* RA_RESTRICT tw, int t, bool active, bool keep_last, bool row_busy) {
    using pass = ra_fft2_pass<LOG_N, P>;
    if (active) ra_fft2_butterflies<R, DIR, LOG_N, P>(v, w);
    if constexpr (!pass::LAST) {
        ra_complex<R> next_w[ra_fft2_pass<LOG_N, P + 1>::TWIDDLES];
        if (EARLY_TW && active) ra_fft2_twiddles<R, DIR, LOG_N, P + 1>(next_w, tw, t);
        if (P > 0 || row_busy) __syncthreads();  // every read of the row is done
        if (active) ra_fft2_write<R, LOG_N, P>(v, row, t);
        __syncthreads();
        if (active) {
            ra_fft2_read<R, LOG_N, P + 1>(v, row, t);
            if (!EARLY_TW) ra_fft2_twiddles<R, DIR, LOG_N, P + 1>(next_w, tw, t);
        }
        ra_fft2_run<R, DIR, LOG_N, P + 1, EARLY_TW>(v, next_w, row, tw, t, active, keep_last, false);
    } else {
        if (!keep_last) {
            if (P > 0 || row_busy) __syncthreads();
            if (active) ra_fft2_write<R, LOG_N, P>(v, row, t);
        }
    }
}

// Element index of v[q] after the last pass (leg r of butterfly b: t + b*T + r*N/R).
template <int LOG_N>
constexpr RA_HOST_DEVICE int ra_fft2_out_offset(int q) {
    using pass = ra_fft2_pass<LOG_N, ra_fft2_plan<LOG_N>::PASSES - 1>;
    return (q / pass::RADIX) * pass::T + (q % pass::RADIX) * (pass::N / pass::RADIX);
}

RA_DEVICE int ra_fft_log2(int n) { return 31 - __clz(n); }

// Multiplies v[q], element j0 + q*step of its transform, by the four-step twiddle
// W_tw_n^(mul * j) = hi[m / split] * lo[m % split] with m = mul * j mod tw_n (powers of two:
// m advances by a masked add; otherwise divisions).
template <typename R, int DIR>
RA_DEVICE void ra_fft_step_twiddles(ra_complex<R>* v, ra_i64 mul, int j0, int step, const ra_complex<R>* RA_RESTRICT tw_hi,
                                    const ra_complex<R>* RA_RESTRICT tw_lo, ra_i64 tw_n, ra_i64 tw_split) {
    if ((tw_n & (tw_n - 1)) == 0 && (tw_split & (tw_split - 1)) == 0 && tw_n <= (1LL << 32)) {
        const unsigned mask = (unsigned)(tw_n - 1);
        const unsigned lo_mask = (unsigned)(tw_split - 1);
        const int log_split = ra_fft_log2((int)tw_split);
        unsigned m = (unsigned)(mul * j0) & mask;
        const unsigned dm = (unsigned)(mul * step) & mask;
#pragma unroll
        for (int q = 0; q < RA_FFT_E; ++q) {
            v[q] = v[q] * ra_fft_dir<R, DIR>(tw_hi[m >> log_split] * tw_lo[m & lo_mask]);
            m = (m + dm) & mask;
        }
    } else {
#pragma unroll
        for (int q = 0; q < RA_FFT_E; ++q) {
            const ra_i64 m = (mul * (ra_i64)(j0 + q * step)) % tw_n;
            const ra_i64 hi = m / tw_split;
            v[q] = v[q] * ra_fft_dir<R, DIR>(tw_hi[hi] * tw_lo[m - hi * tw_split]);
        }
    }
}

// Asynchronous global -> shared copy of one element (cp.async on sm_80 and later, so the next
// tile's loads overlap this tile's arithmetic); elsewhere a plain load and store, complete when
// issued. The wait makes all but the newest committed group of this thread complete.
template <typename T>
RA_DEVICE void ra_fft_copy_async(T* smem_dst, const T* src) {
#if defined(RA_CUDA) && RA_CUDA_ARCH >= 800
    const unsigned addr = (unsigned)__cvta_generic_to_shared(smem_dst);
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(addr), "l"(src), "n"(sizeof(T)));
#else
    *smem_dst = *src;
#endif
}
RA_DEVICE void ra_fft_async_commit() {
#if defined(RA_CUDA) && RA_CUDA_ARCH >= 800
    asm volatile("cp.async.commit_group;\n" ::);
#endif
}
RA_DEVICE void ra_fft_async_wait_all_but_newest() {
#if defined(RA_CUDA) && RA_CUDA_ARCH >= 800
    asm volatile("cp.async.wait_group 1;\n" ::);
#endif
}

// Launch bounds of the power-of-two kernels. Strided kernel: in single precision 512 threads
// (a tile widened to whole 128-byte rows, see Budget.pow2_per_block) at most 128 registers, so
// that two blocks of 256 threads are resident and one block's arithmetic overlaps the other's
// barriers; in double precision 256 threads, one block (it would spill at 128 registers). Rows
// kernel, with late twiddle loads: three resident blocks in single precision (80 registers), two
// in double (128): more warps to cover its global loads.
template <typename R>
constexpr int ra_fft_strided_threads = sizeof(R) == 4 ? 512 : 256;
template <typename R>
constexpr int ra_fft_rows_min_blocks = sizeof(R) == 4 ? 3 : 2;

// Pass 0's inputs of one transform straight from global memory: v[q] = element t + q*T.
template <typename R, int LOG_N>
RA_DEVICE void ra_fft2_load(ra_complex<R>* v, const ra_complex<R>* src, int t, ra_i64 isn) {
    using plan = ra_fft2_plan<LOG_N>;
    if (isn == 1) {
        src += t;
#pragma unroll
        for (int q = 0; q < RA_FFT_E; ++q) v[q] = src[q * plan::T];
    } else {
#pragma unroll
        for (int q = 0; q < RA_FFT_E; ++q) v[q] = src[(ra_i64)(t + q * plan::T) * isn];
    }
}

// The last pass's outputs kept in registers, times `scale`, to one transform in global memory.
template <typename R, int LOG_N>
RA_DEVICE void ra_fft2_store(const ra_complex<R>* v, ra_complex<R>* dst, int t, ra_i64 osn, R scale) {
    if (osn == 1) {
        dst += t;
#pragma unroll
        for (int q = 0; q < RA_FFT_E; ++q) dst[ra_fft2_out_offset<LOG_N>(q)] = scale * v[q];
    } else {
#pragma unroll
        for (int q = 0; q < RA_FFT_E; ++q) dst[(ra_i64)(t + ra_fft2_out_offset<LOG_N>(q)) * osn] = scale * v[q];
    }
}

// Short transforms: when the threads of one transform cover less than a 32-byte sector per
// direct load or store (complex64 n <= 32, complex128 n = 16), a warp instruction touches 16 or
// 32 rows and uses part of each sector. When a tile's transforms are consecutive dense rows (one
// batch dimension of stride n, unit element stride), the whole tile moves between global and
// shared memory with consecutive threads on consecutive addresses instead. complex128 n = 32,
// whose direct accesses fill whole sectors, stays direct (docs/performance/rocfft.md).
template <typename R, int LOG_N>
constexpr bool ra_fft2_short = ra_fft2_plan<LOG_N>::T * (int)sizeof(ra_complex<R>) < 32;

template <typename R, int LOG_N>
RA_DEVICE bool ra_fft2_dense_tile(ra_i64 element_stride, ra_i64 stride0, const ra_fft_layout& L) {
    return ra_fft2_short<R, LOG_N> && element_stride == 1 && L.d0 >= L.batch && stride0 == ra_fft2_plan<LOG_N>::N;
}

// `count` dense rows starting at `src` into the skewed shared rows (all threads of the block).
template <typename R, int LOG_N>
RA_DEVICE void ra_fft2_stage_tile(ra_complex<R>* buf, int np, const ra_complex<R>* src, int count) {
    using plan = ra_fft2_plan<LOG_N>;
    const int total = count * plan::N;
    ra_complex<R> v[RA_FFT_E];
#pragma unroll
    for (int q = 0; q < RA_FFT_E; ++q) {
        const int e = threadIdx.x + q * blockDim.x;
        if (e < total) v[q] = src[e];
    }
#pragma unroll
    for (int q = 0; q < RA_FFT_E; ++q) {
        const int e = threadIdx.x + q * blockDim.x;
        if (e < total) buf[(e >> LOG_N) * np + ra_fft_skew(e & (plan::N - 1))] = v[q];
    }
}

// The skewed shared rows of `count` transforms, times `scale`, to dense rows at `dst`.
template <typename R, int LOG_N>
RA_DEVICE void ra_fft2_unstage_tile(const ra_complex<R>* buf, int np, ra_complex<R>* dst, int count, R scale) {
    using plan = ra_fft2_plan<LOG_N>;
    const int total = count * plan::N;
#pragma unroll
    for (int q = 0; q < RA_FFT_E; ++q) {
        const int e = threadIdx.x + q * blockDim.x;
        if (e < total) dst[e] = scale * buf[(e >> LOG_N) * np + ra_fft_skew(e & (plan::N - 1))];
    }
}

// Unit-stride rows on both sides (or a single transform): one tile of `per_block` transforms per
// block; the first pass reads global memory straight into registers and the last writes it from
// registers (short transforms of dense tiles go through shared memory, see ra_fft2_short).
template <typename R, int DIR, int LOG_N>
__global__ void __launch_bounds__(256, ra_fft_rows_min_blocks<R>) ra_rocfft_stockham_pow2_rows(RA_FFT_ARGS) {
    using plan = ra_fft2_plan<LOG_N>;
    extern __shared__ ra_c128 ra_fft_smem[];
    const int per_block = L.per_block;
    const int np = ra_fft_pitch(plan::N, per_block);
    ra_complex<R>* buf = reinterpret_cast<ra_complex<R>*>(ra_fft_smem);
    const ra_fft_block blk = ra_fft_block_setup(buf + per_block * np, L.batch, L.first_batch, per_block, L.d0, L.d1,
                                                L.is0, L.is1, L.is2, L.os0, L.os1, L.os2, L.tw_dim);
    const int c = threadIdx.x >> plan::LOG_T;
    const int t = threadIdx.x & (plan::T - 1);
    const bool active = c < blk.count;
    ra_complex<R> v[RA_FFT_E];
    const ra_complex<R> no_twiddles[1] = {};
    // the staged path is a separate copy so that longer lengths compile exactly as without it
    // (one shared path with compile-time-false flags changes their register allocation and spills)
    if constexpr (ra_fft2_short<R, LOG_N>) {
        const bool stage_in = ra_fft2_dense_tile<R, LOG_N>(L.isn, L.is0, L);
        const bool stage_out = ra_fft2_dense_tile<R, LOG_N>(L.osn, L.os0, L);
        if (stage_in || stage_out) {
            if (stage_in) {
                ra_fft2_stage_tile<R, LOG_N>(buf, np, in + blk.in_off[0], blk.count);
                __syncthreads();
                if (active) ra_fft2_read<R, LOG_N, 0>(v, buf + c * np, t);
            } else if (active) {
                ra_fft2_load<R, LOG_N>(v, in + blk.in_off[c], t, L.isn);
            }
            if (active && L.tw_n != 0) {
                ra_fft_step_twiddles<R, DIR>(v, blk.tw_mul[c], t, plan::T, tw_hi, tw_lo, L.tw_n, L.tw_split);
            }
            ra_fft2_run<R, DIR, LOG_N, 0, false>(v, no_twiddles, buf + c * np, tw, t, active, !stage_out, stage_in);
            if (stage_out) {
                __syncthreads();  // every transform's outputs are in its shared row
                ra_fft2_unstage_tile<R, LOG_N>(buf, np, out + blk.out_off[0], blk.count, scale);
            } else if (active) {
                ra_fft2_store<R, LOG_N>(v, out + blk.out_off[c], t, L.osn, scale);
            }
            return;
        }
    }
    if (active) {
        ra_fft2_load<R, LOG_N>(v, in + blk.in_off[c], t, L.isn);
        if (L.tw_n != 0) {
            ra_fft_step_twiddles<R, DIR>(v, blk.tw_mul[c], t, plan::T, tw_hi, tw_lo, L.tw_n, L.tw_split);
        }
    }
    ra_fft2_run<R, DIR, LOG_N, 0, false>(v, no_twiddles, buf + c * np, tw, t, active, true, false);
    if (active) ra_fft2_store<R, LOG_N>(v, out + blk.out_off[c], t, L.osn, scale);
}

// The untangling of thread t's share of a half-length spectrum z (in `row`, skewed, natural
// order), times `scale`: x[2q] = X[k] and x[2q+1] = X[h-k] for k = t + q*T, q < 8 (X[h] for k = 0),
// and x[16] = X[h/2] on thread 0. `tw` holds W_2h^k for k <= h/2.
template <typename R, int LOG_N>
RA_DEVICE void ra_fft2_untangle(ra_complex<R>* x, const ra_complex<R>* row, const ra_complex<R>* RA_RESTRICT tw, int t,
                                R scale) {
    using plan = ra_fft2_plan<LOG_N>;
#pragma unroll
    for (int q = 0; q <= RA_FFT_E / 2; ++q) {
        const int k = t + q * plan::T;
        if (q < RA_FFT_E / 2 || t == 0) {
            const ra_complex<R> zk = row[ra_fft_skew(k)];
            const ra_complex<R> zp = row[ra_fft_skew(k == 0 ? 0 : plan::N - k)];
            const ra_complex<R> w = tw[k];
            x[2 * q] = scale * ra_fft_r2c_output<R>(zk, ra_conj(zp), w);
            if (q < RA_FFT_E / 2) {  // k < h/2: the partner h - k
                x[2 * q + 1] = scale * ra_fft_r2c_output<R>(zp, ra_conj(zk), ra_make_complex<R>(-w.re, w.im));
            }
        }
    }
}

// Real-input rows (r2c) of N = 2h real values, h = 2^LOG_N, in one launch: the rows kernel's
// length-h forward FFT of each row seen as h complex pairs (`in`, element stride isn), then the
// untangling of its spectrum from shared memory (ra_fft_r2c_output) into h + 1 outputs at `out`
// (stride osn) times `scale`. `tw_hi` holds W_N^k for k <= h/2; the layout has no four-step
// twiddle. Thread t makes the pairs k, h - k for k = t + q*T, q < 8, and thread 0 also k = h/2.
template <typename R, int LOG_N>
__global__ void __launch_bounds__(256, ra_fft_rows_min_blocks<R>) ra_rocfft_stockham_pow2_r2c(RA_FFT_ARGS) {
    using plan = ra_fft2_plan<LOG_N>;
    extern __shared__ ra_c128 ra_fft_smem[];
    const int per_block = L.per_block;
    const int np = ra_fft_pitch(plan::N, per_block);
    ra_complex<R>* buf = reinterpret_cast<ra_complex<R>*>(ra_fft_smem);
    const ra_fft_block blk = ra_fft_block_setup(buf + per_block * np, L.batch, L.first_batch, per_block, L.d0, L.d1,
                                                L.is0, L.is1, L.is2, L.os0, L.os1, L.os2, L.tw_dim);
    const int c = threadIdx.x >> plan::LOG_T;
    const int t = threadIdx.x & (plan::T - 1);
    const bool active = c < blk.count;
    ra_complex<R>* row = buf + c * np;
    ra_complex<R> v[RA_FFT_E];
    const ra_complex<R> no_twiddles[1] = {};
    bool staged = false;
    if constexpr (ra_fft2_short<R, LOG_N>) {
        staged = ra_fft2_dense_tile<R, LOG_N>(L.isn, L.is0, L);
        if (staged) {
            ra_fft2_stage_tile<R, LOG_N>(buf, np, in + blk.in_off[0], blk.count);
            __syncthreads();
            if (active) ra_fft2_read<R, LOG_N, 0>(v, row, t);
        }
    }
    if (!staged && active) ra_fft2_load<R, LOG_N>(v, in + blk.in_off[c], t, L.isn);
    ra_fft2_run<R, -1, LOG_N, 0, false>(v, no_twiddles, row, tw, t, active, false, staged);
    __syncthreads();  // z, the half-length spectrum, is in the row in natural order
    ra_complex<R> x[RA_FFT_E + 1];
    if (active) ra_fft2_untangle<R, LOG_N>(x, row, tw_hi, t, scale);
    if constexpr (ra_fft2_short<R, LOG_N>) {
        if (L.osn == 1 && L.d0 >= L.batch && L.os0 == plan::N + 1) {  // dense output rows: staged
            __syncthreads();  // every read of z is done: the row takes the h + 1 outputs (unskewed)
            if (active) {
#pragma unroll
                for (int q = 0; q <= RA_FFT_E / 2; ++q) {
                    const int k = t + q * plan::T;
                    if (q < RA_FFT_E / 2 || t == 0) {
                        row[k] = x[2 * q];
                        if (q < RA_FFT_E / 2) row[plan::N - k] = x[2 * q + 1];
                    }
                }
            }
            __syncthreads();
            ra_complex<R>* dst = out + blk.out_off[0];
            const int total = blk.count * (plan::N + 1);
            for (int e = threadIdx.x; e < total; e += blockDim.x) {
                const int cc = e / (plan::N + 1);
                dst[e] = buf[cc * np + (e - cc * (plan::N + 1))];
            }
            return;
        }
    }
    if (active) {
        ra_complex<R>* dst = out + blk.out_off[c];
        const ra_i64 osn = L.osn;
#pragma unroll
        for (int q = 0; q <= RA_FFT_E / 2; ++q) {
            const int k = t + q * plan::T;
            if (q < RA_FFT_E / 2 || t == 0) {
                dst[k * osn] = x[2 * q];
                if (q < RA_FFT_E / 2) dst[(plan::N - k) * osn] = x[2 * q + 1];  // X[h] for k = 0
            }
        }
    }
}

// Real-output rows (c2r), the inverse of ra_rocfft_stockham_pow2_r2c in one launch: rows of h + 1
// Hermitian coefficients (`in`, stride isn; the imaginary parts of the first and last are
// ignored, as NumPy does) are folded into h complex values in shared memory (ra_fft_c2r_input),
// and their length-h inverse FFT times `scale` goes to `out` (stride osn): N = 2h real values
// as interleaved pairs. `tw_hi` holds W_N^k for k <= h/2.
template <typename R, int LOG_N>
__global__ void __launch_bounds__(256, ra_fft_rows_min_blocks<R>) ra_rocfft_stockham_pow2_c2r(RA_FFT_ARGS) {
    using plan = ra_fft2_plan<LOG_N>;
    extern __shared__ ra_c128 ra_fft_smem[];
    const int per_block = L.per_block;
    const int np = ra_fft_pitch(plan::N, per_block);
    ra_complex<R>* buf = reinterpret_cast<ra_complex<R>*>(ra_fft_smem);
    const ra_fft_block blk = ra_fft_block_setup(buf + per_block * np, L.batch, L.first_batch, per_block, L.d0, L.d1,
                                                L.is0, L.is1, L.is2, L.os0, L.os1, L.os2, L.tw_dim);
    const int c = threadIdx.x >> plan::LOG_T;
    const int t = threadIdx.x & (plan::T - 1);
    const bool active = c < blk.count;
    ra_complex<R>* row = buf + c * np;
    if (active) {
        const ra_complex<R>* src = in + blk.in_off[c];
        const ra_i64 isn = L.isn;
#pragma unroll
        for (int q = 0; q <= RA_FFT_E / 2; ++q) {
            const int k = t + q * plan::T;
            if (q < RA_FFT_E / 2 || t == 0) {
                ra_complex<R> a = src[k * isn];
                ra_complex<R> b = src[(plan::N - k) * isn];
                if (k == 0) {
                    a.im = 0;
                    b.im = 0;
                }
                const ra_complex<R> w = ra_conj(tw_hi[k]);
                row[ra_fft_skew(k)] = ra_fft_c2r_input<R>(a, ra_conj(b), w);
                if (k > 0 && q < RA_FFT_E / 2) {  // 0 < k < h/2: the partner h - k
                    row[ra_fft_skew(plan::N - k)] = ra_fft_c2r_input<R>(b, ra_conj(a), ra_make_complex<R>(-w.re, w.im));
                }
            }
        }
    }
    __syncthreads();  // the folded row is complete
    ra_complex<R> v[RA_FFT_E];
    if (active) ra_fft2_read<R, LOG_N, 0>(v, row, t);
    const ra_complex<R> no_twiddles[1] = {};
    if constexpr (ra_fft2_short<R, LOG_N>) {
        if (ra_fft2_dense_tile<R, LOG_N>(L.osn, L.os0, L)) {
            ra_fft2_run<R, 1, LOG_N, 0, false>(v, no_twiddles, row, tw, t, active, false, true);
            __syncthreads();  // every transform's outputs are in its shared row
            ra_fft2_unstage_tile<R, LOG_N>(buf, np, out + blk.out_off[0], blk.count, scale);
            return;
        }
    }
    ra_fft2_run<R, 1, LOG_N, 0, false>(v, no_twiddles, row, tw, t, active, true, true);
    if (active) ra_fft2_store<R, LOG_N>(v, out + blk.out_off[c], t, L.osn, scale);
}

// Real transforms longer than the one-launch kernels take (N = 2h real values, h = inner * outer,
// powers of two): the half-length FFT is a four-step pair of passes (see _schedule.four_step)
// with the untangling (r2c) fused into the last pass and the folding (c2r) into the first, so
// the half-length spectrum never makes an extra round trip through global memory. Both kernels
// index the split twiddle table of W_N (tw_hi, tw_lo, split L.tw_split): the four-step twiddle
// W_h^m is W_N^(2m). Layout fields: n = this pass's length, batch = blocks of the launch,
// first_batch = index of its first block, d0 = blocks per batch row, d1 = the other factor of h,
// is1 / os1 = the batch rows' strides.

// Row k2 of slot s in an r2c block of P pairs (see ra_rocfft_stockham_pow2_r2c_last); `valid`
// says whether the slot holds a row.
RA_DEVICE int ra_fft_pair_row(int s, int P, int tile, int outer, bool& valid) {
    const int a = tile * P + (s < P ? s : s - P);
    valid = 2 * a < outer;
    if (s < P) return a;
    return a == 0 ? outer / 2 : outer - a;
}

// r2c, the last four-step pass fused with the untangling. Input: the first pass's output, row k2
// (0 <= k2 < outer) of batch row b at in + k2*is0 + b*is1 (unit element stride), multiplied by
// W_h^(j*k2) as it loads; its length-inner FFT (inner = 2^LOG_N) gives the half-length spectrum
// X[outer*k1 + k2]. X[k]'s partner X[h-k] is element inner-1-k1 of row outer-k2 (k2 > 0; k2 = 0
// and outer/2 pair with themselves, k2 = 0 at element (inner-k1) mod inner), so a block of 2P teams
// holds P row pairs: slot s < P row a = tile*P + s, slot P + s its partner outer - a (the slot
// of a = 0 takes the self-paired row outer/2 instead); d0 = outer / (2P) tiles per batch row,
// d1 = outer. Outputs Y[k] = ra_fft_r2c_output(X[k], conj X[h-k], W_N^k) times `scale` go to
// out + b*os1 + k*osn, consecutive threads on consecutive slots (runs of P outputs), and Y[h]
// with Y[0].
template <typename R, int LOG_N>
__global__ void __launch_bounds__(256, ra_fft_rows_min_blocks<R>) ra_rocfft_stockham_pow2_r2c_last(RA_FFT_ARGS) {
    using plan = ra_fft2_plan<LOG_N>;
    extern __shared__ ra_c128 ra_fft_smem[];
    const int P = L.per_block;
    const int slots = 2 * P;
    const int np = ra_fft_pitch(plan::N, slots);
    ra_complex<R>* buf = reinterpret_cast<ra_complex<R>*>(ra_fft_smem);
    const ra_i64 block = L.first_batch + blockIdx.x;
    const ra_i64 b = block / L.d0;
    const int tile = (int)(block - b * L.d0);
    const int outer = (int)L.d1;
    const int s = threadIdx.x >> plan::LOG_T;
    const int t = threadIdx.x & (plan::T - 1);
    bool active;
    const int k2 = ra_fft_pair_row(s, P, tile, outer, active);
    ra_complex<R>* row = buf + s * np;
    ra_complex<R> v[RA_FFT_E];
    if (active) {
        ra_fft2_load<R, LOG_N>(v, in + (ra_i64)k2 * L.is0 + b * L.is1, t, 1);
        ra_fft_step_twiddles<R, -1>(v, 2 * (ra_i64)k2, t, plan::T, tw_hi, tw_lo, L.tw_n, L.tw_split);
    }
    const ra_complex<R> no_twiddles[1] = {};
    ra_fft2_run<R, -1, LOG_N, 0, false>(v, no_twiddles, row, tw, t, active, false, false);
    __syncthreads();  // every slot's spectrum is in its shared row, natural order

    const int log_slots = ra_fft_log2(slots);
    const int log_split = ra_fft_log2((int)L.tw_split);
    ra_complex<R>* dst = out + b * L.os1;
    const ra_i64 osn = L.osn;
#pragma unroll
    for (int q = 0; q < RA_FFT_E; ++q) {
        const int e = threadIdx.x + q * (int)blockDim.x;  // 2P * inner items, 16 per thread
        const int es = e & (slots - 1);
        const int k1 = e >> log_slots;
        bool valid;
        const int r = ra_fft_pair_row(es, P, tile, outer, valid);
        if (valid) {
            const bool self = r == 0 || 2 * r == outer;
            const int ps = self ? es : (es < P ? es + P : es - P);
            const int pk1 = r == 0 ? ((plan::N - k1) & (plan::N - 1)) : plan::N - 1 - k1;
            const ra_complex<R> xk = buf[es * np + ra_fft_skew(k1)];
            const ra_complex<R> xp = buf[ps * np + ra_fft_skew(pk1)];
            const int k = outer * k1 + r;
            const ra_complex<R> w = ra_fft_pow2_twiddle<R>(tw_hi, tw_lo, k, log_split);
            dst[(ra_i64)k * osn] = scale * ra_fft_r2c_output<R>(xk, ra_conj(xp), w);
            if (k == 0) {  // Y[h] = Re X[0] - Im X[0]
                const ra_complex<R> minus_one = ra_make_complex<R>(-1, 0);  // W_N^h
                dst[(ra_i64)outer * plan::N * osn] = scale * ra_fft_r2c_output<R>(xk, ra_conj(xk), minus_one);
            }
        }
    }
}

// c2r, the first four-step pass fused with the folding. Column n1 (< inner = d1) of the
// half-length inverse transform gathers z[k] = ra_fft_c2r_input(X[k], conj X[h-k], W_N^-k),
// k = n1 + inner*j (j < outer = 2^LOG_N), from the Hermitian coefficients of batch row b at
// in + b*is1 (element stride isn; the imaginary parts of X[0] and X[h] are ignored, as NumPy
// does); its length-outer inverse FFT goes unscaled to out + b*os1 + n1*os0 + k2*osn (the second
// pass scales). A block takes `per_block` consecutive columns (d0 = inner / per_block tiles per
// batch row); loads and stores walk the columns fastest, so X[k], X[h-k] and the outputs move in
// runs of per_block elements.
template <typename R, int LOG_N>
__global__ void __launch_bounds__(ra_fft_strided_threads<R>, 1) ra_rocfft_stockham_pow2_c2r_first(RA_FFT_ARGS) {
    using plan = ra_fft2_plan<LOG_N>;
    extern __shared__ ra_c128 ra_fft_smem[];
    const int per_block = L.per_block;
    const int log_c = ra_fft_log2(per_block);
    const int np = ra_fft_pitch(plan::N, per_block);
    ra_complex<R>* buf = reinterpret_cast<ra_complex<R>*>(ra_fft_smem);
    const ra_i64 block = L.first_batch + blockIdx.x;
    const ra_i64 b = block / L.d0;
    const int n1_0 = (int)(block - b * L.d0) * per_block;
    const int inner = (int)L.d1;
    const int h = inner * plan::N;
    const ra_complex<R>* src = in + b * L.is1;
    const ra_i64 isn = L.isn;
    const int log_split = ra_fft_log2((int)L.tw_split);
    ra_complex<R> a[RA_FFT_E], p[RA_FFT_E];
#pragma unroll
    for (int q = 0; q < RA_FFT_E; ++q) {  // per_block * outer elements, 16 per thread
        const int e = threadIdx.x + q * (int)blockDim.x;
        const int k = n1_0 + (e & (per_block - 1)) + inner * (e >> log_c);
        a[q] = src[(ra_i64)k * isn];
        p[q] = src[(ra_i64)(h - k) * isn];
    }
#pragma unroll
    for (int q = 0; q < RA_FFT_E; ++q) {
        const int e = threadIdx.x + q * (int)blockDim.x;
        const int c = e & (per_block - 1);
        const int j = e >> log_c;
        const int k = n1_0 + c + inner * j;
        if (k == 0) {
            a[q].im = 0;
            p[q].im = 0;
        }
        const ra_complex<R> w = ra_conj(ra_fft_pow2_twiddle<R>(tw_hi, tw_lo, k, log_split));
        buf[c * np + ra_fft_skew(j)] = ra_fft_c2r_input<R>(a[q], ra_conj(p[q]), w);
    }
    __syncthreads();  // the folded columns are complete
    const int c = threadIdx.x >> plan::LOG_T;
    const int t = threadIdx.x & (plan::T - 1);
    ra_complex<R>* row = buf + c * np;
    ra_complex<R> v[RA_FFT_E];
    ra_fft2_read<R, LOG_N, 0>(v, row, t);
    const ra_complex<R> no_twiddles[1] = {};
    ra_fft2_run<R, 1, LOG_N, 0, false>(v, no_twiddles, row, tw, t, true, false, true);
    __syncthreads();  // every column's transform is in its shared row
    ra_complex<R>* dst = out + b * L.os1 + n1_0 * L.os0;
#pragma unroll
    for (int q = 0; q < RA_FFT_E; ++q) {
        const int e = threadIdx.x + q * (int)blockDim.x;
        const int cc = e & (per_block - 1);
        const int k2 = e >> log_c;
        dst[cc * L.os0 + (ra_i64)k2 * L.osn] = buf[cc * np + ra_fft_skew(k2)];
    }
}

// Offsets of the `count` transforms of a tile starting at batch index b0: off[c] (input),
// off[per_block + c] (output), off[2 * per_block + c] (four-step twiddle multiplier).
RA_DEVICE void ra_fft_tile_offsets(ra_i64* off, int per_block, ra_i64 b0, int count, const ra_fft_layout& L) {
    for (int c = threadIdx.x; c < count; c += blockDim.x) {
        // plain 64-bit divisions: this kernel's registers are at their limit, and ra_divmod_i64's
        // branches make it spill (the trade is in docs/performance/rocfft.md)
        const ra_i64 b = b0 + c;
        const ra_i64 i0 = b % L.d0;
        const ra_i64 rest = b / L.d0;
        const ra_i64 i1 = rest % L.d1;
        const ra_i64 i2 = rest / L.d1;
        off[c] = i0 * L.is0 + i1 * L.is1 + i2 * L.is2;
        off[per_block + c] = i0 * L.os0 + i1 * L.os1 + i2 * L.os2;
        off[2 * per_block + c] = L.tw_dim == 0 ? i0 : (L.tw_dim == 1 ? i1 : i2);
    }
}

// Start copying a tile's elements into its skewed shared rows; consecutive threads take
// consecutive addresses of whichever side is unit-stride (a whole tile of strided transforms:
// each thread keeps one transform and steps along it by T elements).
template <typename R, int LOG_N>
RA_DEVICE void ra_fft2_prefetch(ra_complex<R>* buf, int np, const ra_complex<R>* in, const ra_i64* in_off, int count,
                                int per_block, int log_c, ra_i64 isn) {
    using plan = ra_fft2_plan<LOG_N>;
    const bool rows = isn == 1 || count == 1;
    if (!rows && count == per_block) {
        const int c = threadIdx.x & (per_block - 1);
        const int j0 = threadIdx.x >> log_c;
        const ra_complex<R>* src = in + in_off[c] + (ra_i64)j0 * isn;
        const ra_i64 step = (ra_i64)plan::T * isn;
        ra_complex<R>* dst = buf + c * np;
        const int s0 = ra_fft_skew(j0);
#pragma unroll
        for (int q = 0; q < RA_FFT_E; ++q) {
            const int pos = plan::T % 16 == 0 ? s0 + q * (plan::T + plan::T / 16) : ra_fft_skew(j0 + q * plan::T);
            ra_fft_copy_async(dst + pos, src + q * step);
        }
        return;
    }
    const int total = count * plan::N;
    for (int e = threadIdx.x; e < total; e += blockDim.x) {
        int c, j;
        if (rows) {
            c = e >> LOG_N;
            j = e & (plan::N - 1);
        } else {
            j = e / count;
            c = e - j * count;
        }
        ra_fft_copy_async(buf + c * np + ra_fft_skew(j), in + in_off[c] + (ra_i64)j * isn);
    }
}

// Any layout: persistent blocks take tiles b, b + gridDim.x, ... of `per_block` transforms and
// prefetch the next tile into the second shared buffer while transforming the current one, so
// strided loads overlap arithmetic.
template <typename R, int DIR, int LOG_N>
__global__ void __launch_bounds__(ra_fft_strided_threads<R>, 1) ra_rocfft_stockham_pow2(RA_FFT_ARGS) {
    using plan = ra_fft2_plan<LOG_N>;
    extern __shared__ ra_c128 ra_fft_smem[];
    const int per_block = L.per_block;
    const int log_c = ra_fft_log2(per_block);
    const int np = ra_fft_pitch(plan::N, per_block);
    ra_complex<R>* bufs = reinterpret_cast<ra_complex<R>*>(ra_fft_smem);  // two tiles
    ra_i64* offs = reinterpret_cast<ra_i64*>(bufs + 2 * per_block * np);   // two slots of 3 * per_block
    const ra_i64 batch = L.batch, first_batch = L.first_batch;
    const ra_i64 isn = L.isn, osn = L.osn;
    const ra_i64 tiles = (batch - first_batch + per_block - 1) / per_block;
    const int c = threadIdx.x >> plan::LOG_T;
    const int t = threadIdx.x & (plan::T - 1);
    ra_complex<R> v[RA_FFT_E];
    const ra_complex<R> no_twiddles[1] = {};

    ra_i64 tile = blockIdx.x;
    int slot = 0;
    if (tile < tiles) {
        const ra_i64 b0 = first_batch + tile * per_block;
        const int count = batch - b0 < per_block ? (int)(batch - b0) : per_block;
        ra_fft_tile_offsets(offs, per_block, b0, count, L);
        __syncthreads();
        ra_fft2_prefetch<R, LOG_N>(bufs, np, in, offs, count, per_block, log_c, isn);
    }
    ra_fft_async_commit();

    for (; tile < tiles; tile += gridDim.x) {
        ra_complex<R>* buf = bufs + slot * per_block * np;
        const ra_i64* off = offs + slot * 3 * per_block;
        const ra_i64 b0 = first_batch + tile * per_block;
        const int count = batch - b0 < per_block ? (int)(batch - b0) : per_block;
        const ra_i64 next = tile + gridDim.x;
        int next_count = 0;
        if (next < tiles) {
            const ra_i64 nb0 = first_batch + next * per_block;
            next_count = batch - nb0 < per_block ? (int)(batch - nb0) : per_block;
            ra_fft_tile_offsets(offs + (slot ^ 1) * 3 * per_block, per_block, nb0, next_count, L);
        }
        __syncthreads();  // the next tile's offsets are visible
        if (next_count > 0) {
            ra_fft2_prefetch<R, LOG_N>(bufs + (slot ^ 1) * per_block * np, np, in, offs + (slot ^ 1) * 3 * per_block,
                                       next_count, per_block, log_c, isn);
        }
        ra_fft_async_commit();
        ra_fft_async_wait_all_but_newest();
        __syncthreads();  // this tile's elements are in shared memory

        const bool active = c < count;
        const bool rows_out = osn == 1 || count == 1;
        ra_complex<R>* row = buf + c * np;
        if (active) {
            ra_fft2_read<R, LOG_N, 0>(v, row, t);
            if (L.tw_n != 0) {
                ra_fft_step_twiddles<R, DIR>(v, off[2 * per_block + c], t, plan::T, tw_hi, tw_lo, L.tw_n, L.tw_split);
            }
        }
        ra_fft2_run<R, DIR, LOG_N, 0, true>(v, no_twiddles, row, tw, t, active, rows_out, true);
        if (rows_out) {
            if (active) {
                ra_complex<R>* dst = out + off[per_block + c];
#pragma unroll
                for (int q = 0; q < RA_FFT_E; ++q) {
                    dst[(ra_i64)(t + ra_fft2_out_offset<LOG_N>(q)) * osn] = scale * v[q];
                }
            }
        } else {
            __syncthreads();  // the tile's outputs are in shared memory
            if (count == per_block) {  // strided: walk consecutive transforms fastest
                const int cc = threadIdx.x & (per_block - 1);
                const int k0 = threadIdx.x >> log_c;
                ra_complex<R>* dst = out + off[per_block + cc] + (ra_i64)k0 * osn;
                const ra_i64 step = (ra_i64)plan::T * osn;
                const ra_complex<R>* src = buf + cc * np;
                const int s0 = ra_fft_skew(k0);
#pragma unroll
                for (int q = 0; q < RA_FFT_E; ++q) {
                    const int pos = plan::T % 16 == 0 ? s0 + q * (plan::T + plan::T / 16) : ra_fft_skew(k0 + q * plan::T);
                    dst[q * step] = scale * src[pos];
                }
            } else {
                const int total = count * plan::N;
                for (int e = threadIdx.x; e < total; e += blockDim.x) {
                    const int k = e / count;
                    const int cc = e - k * count;
                    out[off[per_block + cc] + (ra_i64)k * osn] = scale * buf[cc * np + ra_fft_skew(k)];
                }
            }
        }
        __syncthreads();  // this tile's buffer and offsets are free for the tile after next
        slot ^= 1;
    }
}
