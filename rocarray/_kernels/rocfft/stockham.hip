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
        const ra_i64 b = b0 + c;
        const ra_i64 i0 = b % d0;
        const ra_i64 rest = b / d0;
        const ra_i64 i1 = rest % d1;
        const ra_i64 i2 = rest / d1;
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
// like scalar arguments; a launch passes 7 arguments instead of 25). Fixed-width fields, 8-byte
// ones first; the offsets below are the ones of LAYOUT_FIELDS in rocarray/rocfft/_kernel_args.py
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

// Powers of two from 16 to 16 * 256: each thread keeps RA_FFT_E elements in registers, one
// thread team of n / RA_FFT_E threads per transform, `per_block` teams per block. Every pass
// runs RA_FFT_E / R butterflies per thread from registers and exchanges through one shared
// buffer (no second buffer: all of a pass's reads finish before its writes). With unit-stride
// rows the first pass reads global memory and the last writes it directly; a strided side goes
// through shared memory with a walk across the block's transforms. All of a thread's global
// loads are issued before any is used, so each thread keeps RA_FFT_E loads in flight.
//
// Twiddles come from a per-pass table (`ra_rocfft_pass_twiddles` layout): pass p with ns > 1
// holds W_{ns*R}^(r*jm) at base_p + (r-1)*ns + jm, so a warp's twiddle loads are contiguous.
#define RA_FFT_E 16

template <typename R, int DIR, int RADIX>
RA_DEVICE void ra_fft_reg_pass(ra_complex<R>* v, const ra_complex<R>* RA_RESTRICT ptw, int ns, int t, int team) {
#pragma unroll
    for (int q = 0; q < RA_FFT_E / RADIX; ++q) {
        const int j = t + q * team;
        const int jm = j & (ns - 1);
        ra_complex<R>* u = v + q * RADIX;
        if (ns > 1) {
#pragma unroll
            for (int r = 1; r < RADIX; ++r) u[r] = u[r] * ra_fft_dir<R, DIR>(ptw[(r - 1) * ns + jm]);
        }
        ra_fft_pow2<R, DIR, RADIX>::run(u);
    }
}

// Position of v[q*R + r]: a pass's input (write == false) or its output.
template <int RADIX>
RA_DEVICE int ra_fft_reg_pos(bool write, int n, int ns, int t, int team, int q, int r) {
    const int j = t + q * team;
    if (!write) return j + r * (n / RADIX);
    const int jm = j & (ns - 1);
    return (j - jm) * RADIX + jm + r * ns;
}

template <typename R, int RADIX>
RA_DEVICE void ra_fft_reg_exchange(ra_complex<R>* v, ra_complex<R>* row, bool write, int n, int ns, int t, int team) {
#pragma unroll
    for (int q = 0; q < RA_FFT_E / RADIX; ++q) {
#pragma unroll
        for (int r = 0; r < RADIX; ++r) {
            const int pos = ra_fft_skew(ra_fft_reg_pos<RADIX>(write, n, ns, t, team, q, r));
            if (write) {
                row[pos] = v[q * RADIX + r];
            } else {
                v[q * RADIX + r] = row[pos];
            }
        }
    }
}

template <typename R>
RA_DEVICE void ra_fft_reg_exchange_any(int radix, ra_complex<R>* v, ra_complex<R>* row, bool write, int n, int ns,
                                       int t, int team) {
    switch (radix) {
        case 2: ra_fft_reg_exchange<R, 2>(v, row, write, n, ns, t, team); break;
        case 4: ra_fft_reg_exchange<R, 4>(v, row, write, n, ns, t, team); break;
        case 8: ra_fft_reg_exchange<R, 8>(v, row, write, n, ns, t, team); break;
        default: ra_fft_reg_exchange<R, 16>(v, row, write, n, ns, t, team); break;
    }
}

RA_DEVICE int ra_fft_log2(int n) { return 31 - __clz(n); }

// The four-step twiddle W_tw_n^(mul*j) (tw_n a power of two: masks and shifts, else divisions).
template <typename R, int DIR>
RA_DEVICE ra_complex<R> ra_fft_step_twiddle(ra_i64 mul, int j, const ra_complex<R>* RA_RESTRICT tw_hi,
                                            const ra_complex<R>* RA_RESTRICT tw_lo, ra_i64 tw_n, ra_i64 tw_split) {
    ra_i64 m = mul * (ra_i64)j;
    ra_i64 hi, lo;
    if ((tw_n & (tw_n - 1)) == 0 && (tw_split & (tw_split - 1)) == 0) {
        m &= tw_n - 1;
        hi = m >> ra_fft_log2((int)tw_split);
        lo = m & (tw_split - 1);
    } else {
        m %= tw_n;
        hi = m / tw_split;
        lo = m - hi * tw_split;
    }
    return ra_fft_dir<R, DIR>(tw_hi[hi] * tw_lo[lo]);
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

// Offsets of the `count` transforms of a tile starting at batch index b0: off[c] (input),
// off[per_block + c] (output), off[2 * per_block + c] (four-step twiddle multiplier).
RA_DEVICE void ra_fft_tile_offsets(ra_i64* off, int per_block, ra_i64 b0, int count, ra_i64 d0, ra_i64 d1,
                                   ra_i64 is0, ra_i64 is1, ra_i64 is2, ra_i64 os0, ra_i64 os1, ra_i64 os2,
                                   int tw_dim) {
    for (int c = threadIdx.x; c < count; c += blockDim.x) {
        const ra_i64 b = b0 + c;
        const ra_i64 i0 = b % d0;
        const ra_i64 rest = b / d0;
        const ra_i64 i1 = rest % d1;
        const ra_i64 i2 = rest / d1;
        off[c] = i0 * is0 + i1 * is1 + i2 * is2;
        off[per_block + c] = i0 * os0 + i1 * os1 + i2 * os2;
        off[2 * per_block + c] = tw_dim == 0 ? i0 : (tw_dim == 1 ? i1 : i2);
    }
}

// Start copying a tile's elements into its (skewed) shared rows; consecutive threads take
// consecutive addresses of whichever side is unit-stride.
template <typename R>
RA_DEVICE void ra_fft_prefetch(ra_complex<R>* buf, int np, const ra_complex<R>* in, const ra_i64* in_off, int count,
                               int per_block, int n, ra_i64 isn) {
    const int total = count * n;
    const int log_n = ra_fft_log2(n);
    const int log_c = ra_fft_log2(per_block);
    const bool rows = isn == 1 || count == 1;
    for (int e = threadIdx.x; e < total; e += blockDim.x) {
        int c, j;
        if (rows) {
            c = e >> log_n;
            j = e & (n - 1);
        } else {
            j = count == per_block ? e >> log_c : e / count;
            c = e - j * count;
        }
        ra_fft_copy_async(buf + c * np + ra_fft_skew(j), in + in_off[c] + (ra_i64)j * isn);
    }
}

// All radix passes of one transform team on registers: `v` holds the first pass's inputs (leg
// q % R of butterfly t + (q / R) * team). The last pass's outputs stay in `v` when `keep_last`
// (leg r of butterfly j is element j + r * n / R_last), else they are written to the skewed `row`
// (a barrier follows). Returns the last radix. `inputs_in_shared`: v was read from `row`, so a
// barrier must separate those reads from the first writes.
template <typename R, int DIR>
RA_DEVICE int ra_fft_reg_passes(ra_complex<R>* v, ra_complex<R>* row, const ra_complex<R>* RA_RESTRICT tw, int n,
                                ra_u64 radices, int passes, int t, int team, bool active, bool keep_last,
                                bool inputs_in_shared) {
    int ns = 1;
    int radix = 1;
    const ra_complex<R>* ptw = tw;
    for (int p = 0; p < passes; ++p) {
        radix = (int)((radices >> (4 * p)) & 15u) + 1;
        if (active) {
            switch (radix) {
                case 2: ra_fft_reg_pass<R, DIR, 2>(v, ptw, ns, t, team); break;
                case 4: ra_fft_reg_pass<R, DIR, 4>(v, ptw, ns, t, team); break;
                case 8: ra_fft_reg_pass<R, DIR, 8>(v, ptw, ns, t, team); break;
                default: ra_fft_reg_pass<R, DIR, 16>(v, ptw, ns, t, team); break;
            }
        }
        if (ns > 1) ptw += (radix - 1) * ns;
        const bool last = p == passes - 1;
        if (last && keep_last) break;
        if (p > 0 || inputs_in_shared) __syncthreads();  // every read of this pass's inputs is done
        if (active) ra_fft_reg_exchange_any<R>(radix, v, row, true, n, ns, t, team);
        __syncthreads();
        if (!last) {
            const int next = (int)((radices >> (4 * (p + 1))) & 15u) + 1;
            if (active) ra_fft_reg_exchange_any<R>(next, v, row, false, n, ns * radix, t, team);
        }
        ns *= radix;
    }
    return radix;
}

// Resident blocks the power-of-two kernels ask for: two in single precision (at most 128
// registers per thread, so one block's arithmetic overlaps the other's barriers); one in double
// precision, which would spill at 128.
template <typename R>
constexpr int ra_fft_min_blocks = sizeof(R) == 4 ? 2 : 1;

// Element index of v[q] in a pass of radix `radix` (log2 `log_r`): leg q % R of butterfly
// t + (q / R) * team.
RA_DEVICE int ra_fft_reg_element(int q, int t, int team, int n, int radix, int log_r) {
    return t + (q >> log_r) * team + (q & (radix - 1)) * (n >> log_r);
}

// Unit-stride rows on both sides: one tile of `per_block` transforms per block; the first pass
// reads global memory straight into registers and the last writes it from registers.
template <typename R, int DIR>
__global__ void __launch_bounds__(256, ra_fft_min_blocks<R>) ra_rocfft_stockham_pow2_rows(RA_FFT_ARGS) {
    RA_FFT_LAYOUT;
    extern __shared__ ra_c128 ra_fft_smem[];
    const int np = ra_fft_pitch(n, per_block);
    ra_complex<R>* buf = reinterpret_cast<ra_complex<R>*>(ra_fft_smem);
    const ra_fft_block blk = ra_fft_block_setup(buf + per_block * np, batch, first_batch, per_block, d0, d1,
                                                is0, is1, is2, os0, os1, os2, tw_dim);
    const int log_n = ra_fft_log2(n);
    const int team = n / RA_FFT_E;
    const int c = threadIdx.x >> (log_n - ra_fft_log2(RA_FFT_E));
    const int t = threadIdx.x - c * team;
    const bool active = c < blk.count;
    const int r1 = (int)(radices & 15u) + 1;
    const int log_r1 = ra_fft_log2(r1);
    ra_complex<R> v[RA_FFT_E];
    if (active) {
#pragma unroll
        for (int q = 0; q < RA_FFT_E; ++q) {
            v[q] = in[blk.in_off[c] + (ra_i64)ra_fft_reg_element(q, t, team, n, r1, log_r1) * isn];
        }
        if (tw_n != 0) {
#pragma unroll
            for (int q = 0; q < RA_FFT_E; ++q) {
                const int j = ra_fft_reg_element(q, t, team, n, r1, log_r1);
                v[q] = v[q] * ra_fft_step_twiddle<R, DIR>(blk.tw_mul[c], j, tw_hi, tw_lo, tw_n, tw_split);
            }
        }
    }
    const int radix = ra_fft_reg_passes<R, DIR>(v, buf + c * np, tw, n, radices, passes, t, team, active, true, false);
    if (active) {
        const int log_r = ra_fft_log2(radix);
#pragma unroll
        for (int q = 0; q < RA_FFT_E; ++q) {
            const int k = ra_fft_reg_element(q, t, team, n, radix, log_r);
            out[blk.out_off[c] + (ra_i64)k * osn] = scale * v[q];
        }
    }
}

// Any layout: persistent blocks take tiles b, b + gridDim.x, ... of `per_block` transforms and
// prefetch the next tile into the second shared buffer while transforming the current one, so
// strided loads overlap arithmetic.
template <typename R, int DIR>
__global__ void __launch_bounds__(256, ra_fft_min_blocks<R>) ra_rocfft_stockham_pow2(RA_FFT_ARGS) {
    RA_FFT_LAYOUT;
    extern __shared__ ra_c128 ra_fft_smem[];
    const int np = ra_fft_pitch(n, per_block);
    ra_complex<R>* bufs = reinterpret_cast<ra_complex<R>*>(ra_fft_smem);  // two tiles
    ra_i64* offs = reinterpret_cast<ra_i64*>(bufs + 2 * per_block * np);   // two slots of 3 * per_block
    const ra_i64 tiles = (batch - first_batch + per_block - 1) / per_block;
    const int log_n = ra_fft_log2(n);
    const int team = n / RA_FFT_E;
    const int c = threadIdx.x >> (log_n - ra_fft_log2(RA_FFT_E));
    const int t = threadIdx.x - c * team;
    const int r1 = (int)(radices & 15u) + 1;
    const int log_r1 = ra_fft_log2(r1);
    ra_complex<R> v[RA_FFT_E];

    ra_i64 tile = blockIdx.x;
    int slot = 0;
    if (tile < tiles) {
        const ra_i64 b0 = first_batch + tile * per_block;
        const int count = batch - b0 < per_block ? (int)(batch - b0) : per_block;
        ra_fft_tile_offsets(offs, per_block, b0, count, d0, d1, is0, is1, is2, os0, os1, os2, tw_dim);
        __syncthreads();
        ra_fft_prefetch<R>(bufs, np, in, offs, count, per_block, n, isn);
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
            ra_fft_tile_offsets(offs + (slot ^ 1) * 3 * per_block, per_block, nb0, next_count, d0, d1, is0, is1, is2,
                                os0, os1, os2, tw_dim);
        }
        __syncthreads();  // the next tile's offsets are visible
        if (next_count > 0) {
            ra_fft_prefetch<R>(bufs + (slot ^ 1) * per_block * np, np, in, offs + (slot ^ 1) * 3 * per_block,
                               next_count, per_block, n, isn);
        }
        ra_fft_async_commit();
        ra_fft_async_wait_all_but_newest();
        __syncthreads();  // this tile's elements are in shared memory

        const bool active = c < count;
        const bool rows_out = osn == 1 || count == 1;
        ra_complex<R>* row = buf + c * np;
        if (active) {
            ra_fft_reg_exchange_any<R>(r1, v, row, false, n, 1, t, team);
            if (tw_n != 0) {
#pragma unroll
                for (int q = 0; q < RA_FFT_E; ++q) {
                    const int j = ra_fft_reg_element(q, t, team, n, r1, log_r1);
                    v[q] = v[q] * ra_fft_step_twiddle<R, DIR>(off[2 * per_block + c], j, tw_hi, tw_lo, tw_n, tw_split);
                }
            }
        }
        const int radix = ra_fft_reg_passes<R, DIR>(v, row, tw, n, radices, passes, t, team, active, rows_out, true);
        if (rows_out) {
            if (active) {
                const int log_r = ra_fft_log2(radix);
#pragma unroll
                for (int q = 0; q < RA_FFT_E; ++q) {
                    const int k = ra_fft_reg_element(q, t, team, n, radix, log_r);
                    out[off[per_block + c] + (ra_i64)k * osn] = scale * v[q];
                }
            }
        } else {
            // strided: walk consecutive transforms fastest
            const int total = count * n;
            const int log_c = ra_fft_log2(per_block);
            const bool full = count == per_block;
#pragma unroll
            for (int q = 0; q < RA_FFT_E; ++q) {
                const int e = threadIdx.x + q * blockDim.x;
                if (e < total) {
                    const int k = full ? e >> log_c : e / count;
                    const int cc = e - k * count;
                    out[off[per_block + cc] + (ra_i64)k * osn] = scale * buf[cc * np + ra_fft_skew(k)];
                }
            }
        }
        __syncthreads();  // this tile's buffer and offsets are free for the tile after next
        slot ^= 1;
    }
}
