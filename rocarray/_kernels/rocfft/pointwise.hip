// Element-wise FFT helpers: twiddle and chirp tables, the Bluestein steps, and the pre/post
// passes that turn a half-length complex FFT into a real-input (r2c) or real-output (c2r) one.
//
// Tables are computed on the device in double precision with sinpi/cospi of an exactly reduced
// argument (k*step mod n, m^2 mod 2n), then rounded once to the table's precision.
//
// Strided sides use two batch dimensions: batch index b = i1 * d0 + i0 puts element k of row b at
// base + i0*s0 + i1*s1 + k*sn.

template <typename R>
RA_DEVICE ra_complex<R> ra_fft_unit(double turns_times_two) {
    // exp(-i*pi*x) rounded once from double
    double s, c;
    sincospi(turns_times_two, &s, &c);
    return ra_make_complex<R>((R)c, (R)(-s));
}

// out[k] = W_n^(k*step) = exp(-2*pi*i*k*step/n), k < count.
template <typename R>
__global__ void ra_rocfft_twiddles(ra_complex<R>* out, ra_i64 count, ra_i64 n, ra_i64 step) {
    for (ra_i64 k = ra_global_thread_id(); k < count; k += ra_grid_threads()) {
        const ra_i64 m = (ra_i64)(((ra_u64)k * (ra_u64)step) % (ra_u64)n);  // k * step < 2^63 (planner)
        out[k] = ra_fft_unit<R>(2.0 * (double)m / (double)n);
    }
}

// out[m] = exp(-i*pi*m^2/n), m < n (the Bluestein chirp).
template <typename R>
__global__ void ra_rocfft_chirp(ra_complex<R>* out, ra_i64 n) {
    for (ra_i64 m = ra_global_thread_id(); m < n; m += ra_grid_threads()) {
        const ra_u64 sq = ((ra_u64)m * (ra_u64)m) % (ra_u64)(2 * n);  // n < 2^31 (planner)
        out[m] = ra_fft_unit<R>((double)sq / (double)n);
    }
}

template <typename R, int DIR>
RA_DEVICE ra_complex<R> ra_fft_chirp_dir(ra_complex<R> c) {
    return DIR < 0 ? c : ra_conj(c);
}

// Bluestein, step 1: work[b*m + k] = x_b[k] * chirp[k] for k < n, 0 for n <= k < m.
template <typename R, int DIR>
__global__ void ra_rocfft_chirp_pad(const ra_complex<R>* in, ra_complex<R>* work, const ra_complex<R>* RA_RESTRICT chirp,
                                    ra_i64 n, ra_i64 m, ra_i64 batch, ra_i64 d0, ra_i64 s0, ra_i64 s1, ra_i64 sn) {
    const ra_i64 total = batch * m;
    for (ra_i64 e = ra_global_thread_id(); e < total; e += ra_grid_threads()) {
        ra_i64 b, k, i0, i1;
        ra_divmod_i64(e, m, b, k);
        ra_complex<R> v = ra_make_complex<R>(0, 0);
        if (k < n) {
            ra_divmod_i64(b, d0, i1, i0);
            v = in[i0 * s0 + i1 * s1 + k * sn] * ra_fft_chirp_dir<R, DIR>(chirp[k]);
        }
        work[e] = v;
    }
}

// Bluestein, step 2 (between the two length-m FFTs): work[b*m + k] *= filter[k].
template <typename R>
__global__ void ra_rocfft_multiply(ra_complex<R>* work, const ra_complex<R>* RA_RESTRICT filter, ra_i64 m, ra_i64 total) {
    for (ra_i64 e = ra_global_thread_id(); e < total; e += ra_grid_threads()) {
        ra_i64 b, k;
        ra_divmod_i64(e, m, b, k);
        work[e] = work[e] * filter[k];
    }
}

// Bluestein filter before its FFT: f[k] = conj(chirp[|k|]) for |k| < n (negative k wrapped to m+k).
template <typename R, int DIR>
__global__ void ra_rocfft_chirp_filter(ra_complex<R>* f, const ra_complex<R>* RA_RESTRICT chirp, ra_i64 n, ra_i64 m, R scale) {
    for (ra_i64 k = ra_global_thread_id(); k < m; k += ra_grid_threads()) {
        ra_complex<R> v = ra_make_complex<R>(0, 0);
        if (k < n) {
            v = ra_conj(ra_fft_chirp_dir<R, DIR>(chirp[k]));
        } else if (m - k < n) {
            v = ra_conj(ra_fft_chirp_dir<R, DIR>(chirp[m - k]));
        }
        f[k] = scale * v;
    }
}

// Bluestein, step 3: y_b[k] = scale * chirp[k] * work[b*m + k], k < n.
template <typename R, int DIR>
__global__ void ra_rocfft_chirp_extract(const ra_complex<R>* work, ra_complex<R>* out, const ra_complex<R>* RA_RESTRICT chirp,
                                        ra_i64 n, ra_i64 m, ra_i64 batch, ra_i64 d0, ra_i64 s0, ra_i64 s1, ra_i64 sn, R scale) {
    const ra_i64 total = batch * n;
    for (ra_i64 e = ra_global_thread_id(); e < total; e += ra_grid_threads()) {
        ra_i64 b, k, i0, i1;
        ra_divmod_i64(e, n, b, k);
        ra_divmod_i64(b, d0, i1, i0);
        out[i0 * s0 + i1 * s1 + k * sn] = scale * (work[b * m + k] * ra_fft_chirp_dir<R, DIR>(chirp[k]));
    }
}

// W_N^k from the split tables hi[k / split] * lo[k % split].
template <typename R>
RA_DEVICE ra_complex<R> ra_fft_split_twiddle(const ra_complex<R>* hi, const ra_complex<R>* lo, ra_i64 k, ra_i64 split) {
    ra_i64 q, r;
    ra_divmod_i64(k, split, q, r);
    return hi[q] * lo[r];
}

// One contiguous row of a 1-D real transform, small enough for 32-bit indices (the grid-stride
// step stays below 2^24, so k + step cannot overflow), with a power-of-two twiddle split.
RA_DEVICE bool ra_fft_one_row(ra_i64 batch, ra_i64 sn, ra_i64 h, ra_i64 split) {
    return batch == 1 && sn == 1 && h < (1LL << 30) && (split & (split - 1)) == 0;
}

// r2c post-pass (ra_fft_r2c_output). z: rows of h = N/2 complex values, the forward FFT of the
// real row viewed as complex pairs; X[k] for k = 0..h. One thread makes the pair X[k], X[h-k]
// (k = 0 .. h/2) from z[k] and z[h-k], so each input is read once.
template <typename R>
__global__ void ra_rocfft_r2c_post(const ra_complex<R>* z, ra_complex<R>* out, const ra_complex<R>* RA_RESTRICT hi,
                                   const ra_complex<R>* RA_RESTRICT lo, ra_i64 split, ra_i64 h, ra_i64 batch,
                                   ra_i64 d0, ra_i64 s0, ra_i64 s1, ra_i64 sn, R scale) {
    const ra_i64 pairs = h / 2 + 1;
    if (ra_fft_one_row(batch, sn, h, split)) {  // a contiguous 1-D row: 32-bit indices, shifts
        const int n2 = (int)h, log_split = ra_log2_i64(split);
        for (int k = (int)ra_global_thread_id(); k < (int)pairs; k += (int)ra_grid_threads()) {
            const ra_complex<R> zk = z[k];
            const ra_complex<R> zp = z[k == 0 ? 0 : n2 - k];
            const ra_complex<R> w = ra_fft_pow2_twiddle<R>(hi, lo, k, log_split);
            out[k] = scale * ra_fft_r2c_output<R>(zk, ra_conj(zp), w);
            if (n2 - k != k) out[n2 - k] = scale * ra_fft_r2c_output<R>(zp, ra_conj(zk), ra_make_complex<R>(-w.re, w.im));
        }
        return;
    }
    const ra_i64 total = batch * pairs;
    for (ra_i64 e = ra_global_thread_id(); e < total; e += ra_grid_threads()) {
        ra_i64 b, k, i0, i1;
        ra_divmod_i64(e, pairs, b, k);
        ra_divmod_i64(b, d0, i1, i0);
        const ra_complex<R>* row = z + b * h;
        ra_complex<R>* o = out + i0 * s0 + i1 * s1;
        const ra_complex<R> zk = row[k];
        const ra_complex<R> zp = row[k == 0 ? 0 : h - k];
        const ra_complex<R> w = ra_fft_split_twiddle<R>(hi, lo, k, split);
        o[k * sn] = scale * ra_fft_r2c_output<R>(zk, ra_conj(zp), w);
        if (h - k != k) o[(h - k) * sn] = scale * ra_fft_r2c_output<R>(zp, ra_conj(zk), ra_make_complex<R>(-w.re, w.im));
    }
}

// c2r pre-pass (ra_fft_c2r_input): x holds rows of h+1 Hermitian coefficients (imaginary parts of
// x[0] and x[h] are ignored, as NumPy does); z[k] for k < h. One thread makes z[k] and z[h-k]
// (k = 1 .. h/2; k = 0 alone), reading x[k] and x[h-k] once; W_N^-(h-k) = -W_N^k.
template <typename R>
__global__ void ra_rocfft_c2r_pre(const ra_complex<R>* x, ra_complex<R>* z, const ra_complex<R>* RA_RESTRICT hi,
                                  const ra_complex<R>* RA_RESTRICT lo, ra_i64 split, ra_i64 h, ra_i64 batch,
                                  ra_i64 d0, ra_i64 s0, ra_i64 s1, ra_i64 sn) {
    const ra_i64 pairs = h / 2 + 1;
    if (ra_fft_one_row(batch, sn, h, split)) {  // a contiguous 1-D row: 32-bit indices, shifts
        const int n2 = (int)h, log_split = ra_log2_i64(split);
        for (int k = (int)ra_global_thread_id(); k < (int)pairs; k += (int)ra_grid_threads()) {
            ra_complex<R> a = x[k];
            ra_complex<R> c = x[n2 - k];
            if (k == 0) {
                a.im = 0;
                c.im = 0;
            }
            const ra_complex<R> w = ra_conj(ra_fft_pow2_twiddle<R>(hi, lo, k, log_split));
            if (k < n2) z[k] = ra_fft_c2r_input<R>(a, ra_conj(c), w);
            if (k > 0 && n2 - k != k) z[n2 - k] = ra_fft_c2r_input<R>(c, ra_conj(a), ra_make_complex<R>(-w.re, w.im));
        }
        return;
    }
    const ra_i64 total = batch * pairs;
    for (ra_i64 e = ra_global_thread_id(); e < total; e += ra_grid_threads()) {
        ra_i64 b, k, i0, i1;
        ra_divmod_i64(e, pairs, b, k);
        ra_divmod_i64(b, d0, i1, i0);
        const ra_complex<R>* row = x + i0 * s0 + i1 * s1;
        ra_complex<R>* zr = z + b * h;
        ra_complex<R> a = row[k * sn];
        ra_complex<R> c = row[(h - k) * sn];  // x[h-k], conjugated below
        if (k == 0) {
            a.im = 0;
            c.im = 0;
        }
        const ra_complex<R> w = ra_conj(ra_fft_split_twiddle<R>(hi, lo, k, split));
        if (k < h) zr[k] = ra_fft_c2r_input<R>(a, ra_conj(c), w);
        if (k > 0 && h - k != k) zr[h - k] = ra_fft_c2r_input<R>(c, ra_conj(a), ra_make_complex<R>(-w.re, w.im));
    }
}
