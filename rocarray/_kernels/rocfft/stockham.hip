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

// One Stockham pass of radix RADIX over `count` transforms of length n held at stride `np` in
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
        for (int r = 0; r < RADIX; ++r) v[r] = s[j + r * nbf];
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
        for (int r = 0; r < RADIX; ++r) d[base + r * ns] = v[r];
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

template <typename R, int DIR>
__global__ void RA_LAUNCH_BOUNDS(256)
ra_rocfft_stockham(const ra_complex<R>* in, ra_complex<R>* out, const ra_complex<R>* RA_RESTRICT tw,
                   int n, ra_u64 radices, int passes, ra_i64 batch, ra_i64 first_batch, int per_block,
                   ra_i64 d0, ra_i64 d1, ra_i64 is0, ra_i64 is1, ra_i64 is2, ra_i64 isn,
                   ra_i64 os0, ra_i64 os1, ra_i64 os2, ra_i64 osn,
                   const ra_complex<R>* RA_RESTRICT tw_hi, const ra_complex<R>* RA_RESTRICT tw_lo,
                   ra_i64 tw_n, ra_i64 tw_split, int tw_dim, R scale) {
    // One declaration type for every instantiation (16-byte aligned), viewed as R's complex.
    extern __shared__ ra_c128 ra_fft_smem[];
    const int np = n + (per_block > 1 ? 1 : 0);  // pad rows of several transforms against bank conflicts
    ra_complex<R>* buf0 = reinterpret_cast<ra_complex<R>*>(ra_fft_smem);
    ra_complex<R>* buf1 = buf0 + per_block * np;
    ra_i64* in_off = reinterpret_cast<ra_i64*>(buf1 + per_block * np);
    ra_i64* out_off = in_off + per_block;
    ra_i64* tw_mul = out_off + per_block;

    const ra_i64 b0 = first_batch + (ra_i64)blockIdx.x * per_block;
    const ra_i64 left = batch - b0;
    const int count = left < per_block ? (int)left : per_block;
    for (int c = threadIdx.x; c < count; c += blockDim.x) {
        const ra_i64 b = b0 + c;
        const ra_i64 i0 = b % d0;
        const ra_i64 rest = b / d0;
        const ra_i64 i1 = rest % d1;
        const ra_i64 i2 = rest / d1;
        in_off[c] = i0 * is0 + i1 * is1 + i2 * is2;
        out_off[c] = i0 * os0 + i1 * os1 + i2 * os2;
        tw_mul[c] = tw_dim == 0 ? i0 : (tw_dim == 1 ? i1 : i2);
    }
    __syncthreads();

    const int total = count * n;
    const bool rows_in = isn == 1 || count == 1;
    for (int e = threadIdx.x; e < total; e += blockDim.x) {
        int c, j;
        if (rows_in) {
            c = e / n;
            j = e - c * n;
        } else {
            j = e / count;
            c = e - j * count;
        }
        ra_complex<R> v = in[in_off[c] + (ra_i64)j * isn];
        if (tw_n != 0) {
            const ra_i64 m = (tw_mul[c] * (ra_i64)j) % tw_n;
            const ra_i64 hi = m / tw_split;
            v = v * ra_fft_dir<R, DIR>(tw_hi[hi] * tw_lo[m - hi * tw_split]);
        }
        buf0[c * np + j] = v;
    }
    __syncthreads();

    ra_complex<R>* src = buf0;
    ra_complex<R>* dst = buf1;
    int ns = 1;
    for (int p = 0; p < passes; ++p) {
        const int radix = (int)((radices >> (4 * p)) & 15u) + 1;
        ra_fft_pass_any<R, DIR>(radix, src, dst, tw, n, ns, count, np);
        __syncthreads();
        ra_complex<R>* t = src;
        src = dst;
        dst = t;
        ns *= radix;
    }

    const bool rows = osn == 1 || count == 1;
    for (int e = threadIdx.x; e < total; e += blockDim.x) {
        int c, k;
        if (rows) {
            c = e / n;
            k = e - c * n;
        } else {
            k = e / count;
            c = e - k * count;
        }
        out[out_off[c] + (ra_i64)k * osn] = scale * src[c * np + k];
    }
}
