// Test-only kernels that exercise every helper of rocarray/_kernels/include/*.cuh.
// Not package data: tests/core/test_compile_matrix.py compiles this file for sm_90, gfx90a and
// gfx940 through rocarray._core.offline, and tests/core/test_prelude.py runs it on a GPU through
// rocarray._core.compile (the runtime path) and checks every result against NumPy.
//
// The template instantiations both tests register, one per line (parsed by the tests):
// instantiate: ra_test_warp_reduce<int, ra_op_sum>
// instantiate: ra_test_warp_reduce<ra_i64, ra_op_sum>
// instantiate: ra_test_warp_reduce<float, ra_op_sum>
// instantiate: ra_test_warp_reduce<double, ra_op_sum>
// instantiate: ra_test_warp_reduce<ra_c64, ra_op_sum>
// instantiate: ra_test_warp_reduce<ra_c128, ra_op_sum>
// instantiate: ra_test_warp_reduce<int, ra_op_max>
// instantiate: ra_test_warp_reduce<ra_i64, ra_op_min>
// instantiate: ra_test_warp_reduce<float, ra_op_max>
// instantiate: ra_test_warp_reduce<double, ra_op_min>
// instantiate: ra_test_block_reduce<64, int, ra_op_sum>
// instantiate: ra_test_block_reduce<256, int, ra_op_sum>
// instantiate: ra_test_block_reduce<1024, int, ra_op_sum>
// instantiate: ra_test_block_reduce<256, ra_i64, ra_op_sum>
// instantiate: ra_test_block_reduce<1024, ra_i64, ra_op_max>
// instantiate: ra_test_block_reduce<256, float, ra_op_sum>
// instantiate: ra_test_block_reduce<1024, double, ra_op_min>
// instantiate: ra_test_block_reduce<256, ra_c128, ra_op_sum>
// instantiate: ra_test_shuffles<int>
// instantiate: ra_test_shuffles<ra_i64>
// instantiate: ra_test_shuffles<float>
// instantiate: ra_test_shuffles<double>
// instantiate: ra_test_shuffles<ra_c64>
// instantiate: ra_test_shuffles<ra_c128>
// instantiate: ra_test_complex<float>
// instantiate: ra_test_complex<double>
// instantiate: ra_test_traits_roundtrip<float>
// instantiate: ra_test_traits_roundtrip<ra_half>
// instantiate: ra_test_traits_roundtrip<ra_bfloat16>
// instantiate: ra_test_traits_roundtrip<ra_c64>

// ---- warp and block reductions ------------------------------------------------------------

// Each thread contributes in[t]; every lane writes its warp's reduction to out[t] (all lanes of a
// warp must agree, bit for bit).
template <typename T, typename Op>
__global__ void ra_test_warp_reduce(const T* RA_RESTRICT in, T* RA_RESTRICT out) {
    const ra_i64 t = ra_global_thread_id();
    T v = ra_warp_reduce(in[t], Op());
    out[t] = v;
}

// One block of BLOCK threads per output: out[blockIdx.x] = reduction of in[block slice].
template <int BLOCK, typename T, typename Op>
__global__ void RA_LAUNCH_BOUNDS(BLOCK) ra_test_block_reduce(const T* RA_RESTRICT in, T* RA_RESTRICT out) {
    __shared__ T scratch[BLOCK / RA_WARP_SIZE];
    T v = ra_block_reduce<BLOCK>(in[ra_global_thread_id()], Op(), scratch);
    if (threadIdx.x == 0) out[blockIdx.x] = v;
}

// ---- ballot, lane/warp ids, 64-bit thread indices ---------------------------------------

// masks[w] = ballot of pred over global warp w; popc[t] = popcount seen by every lane;
// ids[4 t ..] = global thread id, lane id, warp id (in block), grid thread count.
RA_KERNEL void ra_test_ballot(const int* RA_RESTRICT pred, ra_lane_mask* RA_RESTRICT masks,
                              int* RA_RESTRICT popc, ra_i64* RA_RESTRICT ids) {
    const ra_i64 t = ra_global_thread_id();
    ra_lane_mask m = ra_ballot(pred[t] != 0);
    ra_warp_sync();
    if (ra_lane_id() == 0) masks[t / RA_WARP_SIZE] = m;
    popc[t] = ra_popc64(m);
    ids[4 * t + 0] = t;
    ids[4 * t + 1] = ra_lane_id();
    ids[4 * t + 2] = ra_warp_id();
    ids[4 * t + 3] = ra_grid_threads();
}

// ---- shuffles ---------------------------------------------------------------------------

// Within each warp (lane l, width W = RA_WARP_SIZE):
//   by_index[t] = in[lane (5 l + 3) mod W], by_xor[t] = in[lane l ^ xor_mask],
//   down[t] = in[l + delta] (own value past the end), up[t] = in[l - delta] (own value before 0).
template <typename T>
__global__ void ra_test_shuffles(const T* RA_RESTRICT in, T* RA_RESTRICT by_index, T* RA_RESTRICT by_xor,
                                 T* RA_RESTRICT down, T* RA_RESTRICT up, int xor_mask, int delta) {
    const ra_i64 t = ra_global_thread_id();
    const T v = in[t];
    by_index[t] = ra_shfl(v, (5 * ra_lane_id() + 3) % RA_WARP_SIZE);
    by_xor[t] = ra_shfl_xor(v, xor_mask);
    down[t] = ra_shfl_down(v, (unsigned)delta);
    up[t] = ra_shfl_up(v, (unsigned)delta);
}

// ---- element types: fp16 / bf16 conversions, traits, complex arithmetic ------------------

// For each float x: half bits, half -> float, bf16 bits, bf16 -> float.
RA_KERNEL void ra_test_half_bf16(const float* RA_RESTRICT x, ra_half* RA_RESTRICT h, float* RA_RESTRICT h_back,
                                 ra_bfloat16* RA_RESTRICT b, float* RA_RESTRICT b_back, ra_i64 n) {
    for (ra_i64 i = ra_global_thread_id(); i < n; i += ra_grid_threads()) {
        const ra_half hv = ra_float_to_half(x[i]);
        const ra_bfloat16 bv = ra_float_to_bfloat16(x[i]);
        h[i] = hv;
        b[i] = bv;
        h_back[i] = ra_half_to_float(hv);
        b_back[i] = ra_bfloat16_to_float(bv);
    }
}

// b[i] = the rounding of gemm results to bfloat16 (any quiet NaN for a NaN).
RA_KERNEL void ra_test_bf16_rn(const float* RA_RESTRICT x, ra_bfloat16* RA_RESTRICT b, ra_i64 n) {
    for (ra_i64 i = ra_global_thread_id(); i < n; i += ra_grid_threads()) b[i] = ra_float_to_bfloat16_rn(x[i]);
}

// out[i] = from_acc(to_acc(x[i]) + to_acc(x[i])) - i.e. 2 x computed in the accumulation type.
template <typename T>
__global__ void ra_test_traits_roundtrip(const T* RA_RESTRICT x, T* RA_RESTRICT out, ra_i64 n) {
    typedef ra_traits<T> tr;
    for (ra_i64 i = ra_global_thread_id(); i < n; i += ra_grid_threads()) {
        typename tr::acc a = tr::zero();
        a = a + tr::to_acc(x[i]);
        a = a + tr::to_acc(x[i]);
        out[i] = tr::from_acc(a);
    }
}

// Complex arithmetic: a*b, a+b, a-b, conj(a), s*a, |re|+|im| of a.
template <typename R>
__global__ void ra_test_complex(const ra_complex<R>* RA_RESTRICT a, const ra_complex<R>* RA_RESTRICT b, R s,
                                ra_complex<R>* RA_RESTRICT mul, ra_complex<R>* RA_RESTRICT add,
                                ra_complex<R>* RA_RESTRICT sub, ra_complex<R>* RA_RESTRICT conj,
                                ra_complex<R>* RA_RESTRICT scaled, R* RA_RESTRICT abs1, ra_i64 n) {
    for (ra_i64 i = ra_global_thread_id(); i < n; i += ra_grid_threads()) {
        const ra_complex<R> x = a[i], y = b[i];
        mul[i] = x * y;
        add[i] = x + y;
        sub[i] = x - y;
        conj[i] = ra_conj(x);
        scaled[i] = s * x;
        abs1[i] = ra_abs1(x);
    }
}

// ---- math helpers -----------------------------------------------------------------------

// Per x[i] (float and double): abs, sqrt(|x|), fma(x, y, z), isnan, min, max, abs1,
// and the fast float wrappers rsqrt(|x|+1), exp(x/8), log(|x|+1), x/(|y|+1).
RA_KERNEL void ra_test_math(const float* RA_RESTRICT xf, const float* RA_RESTRICT yf, const double* RA_RESTRICT xd,
                            const double* RA_RESTRICT yd, float* RA_RESTRICT outf, double* RA_RESTRICT outd,
                            int* RA_RESTRICT nan_flags, ra_i64 n) {
    for (ra_i64 i = ra_global_thread_id(); i < n; i += ra_grid_threads()) {
        const float x = xf[i], y = yf[i];
        const double u = xd[i], w = yd[i];
        float* of = outf + 11 * i;
        double* od = outd + 7 * i;
        of[0] = ra_abs(x);
        of[1] = ra_sqrt(ra_abs(x));
        of[2] = ra_fma(x, y, 1.0f);
        of[3] = ra_min(x, y);
        of[4] = ra_max(x, y);
        of[5] = ra_abs1(x);
        of[6] = ra_fast_rsqrt(ra_abs(x) + 1.0f);
        of[7] = ra_fast_exp(x * 0.125f);
        of[8] = ra_fast_log(ra_abs(x) + 1.0f);
        of[9] = ra_fast_div(x, ra_abs(y) + 1.0f);
        of[10] = ra_max(ra_abs(x), ra_abs(y));
        od[0] = ra_abs(u);
        od[1] = ra_sqrt(ra_abs(u));
        od[2] = ra_fma(u, w, 1.0);
        od[3] = ra_min(u, w);
        od[4] = ra_max(u, w);
        od[5] = ra_abs1(u);
        od[6] = (double)ra_min<ra_i64>((ra_i64)u, (ra_i64)w);
        nan_flags[2 * i] = ra_isnan(x) ? 1 : 0;
        nan_flags[2 * i + 1] = ra_isnan(u) ? 1 : 0;
    }
}

// ---- strided offsets --------------------------------------------------------------------

// offsets[i] = ra_strided_offset(idx[i], n, inc), with 64-bit indices.
RA_KERNEL void ra_test_strided_offset(const ra_i64* RA_RESTRICT idx, ra_i64 n, ra_i64 inc,
                                      ra_i64* RA_RESTRICT offsets, ra_i64 count) {
    for (ra_i64 i = ra_global_thread_id(); i < count; i += ra_grid_threads()) {
        offsets[i] = ra_strided_offset(idx[i], n, inc);
    }
}

// ---- atomics ----------------------------------------------------------------------------

// counters: [0] ticket counter (ra_atomic_inc_u32), [1] sum of v (ra_atomic_add_u32),
// [2] CAS-loop increment count (ra_atomic_cas_u32); sum64 = sum of (v << 32 | v)
// (ra_atomic_add_u64); sum_i32 = sum of (v - 50) (ra_atomic_add_i32); tickets[t] = the ticket each
// thread drew (a permutation of 0..n-1).
RA_KERNEL void ra_test_atomics(const int* RA_RESTRICT v, unsigned int* RA_RESTRICT counters, ra_u64* RA_RESTRICT sum64,
                               int* RA_RESTRICT sum_i32, unsigned int* RA_RESTRICT tickets, ra_i64 n) {
    const ra_i64 t = ra_global_thread_id();
    if (t < n) {
        tickets[t] = ra_atomic_inc_u32(&counters[0]);
        ra_atomic_add_u32(&counters[1], (unsigned int)v[t]);
        ra_atomic_add_u64(sum64, ((ra_u64)(unsigned int)v[t] << 32) | (ra_u64)(unsigned int)v[t]);
        ra_atomic_add_i32(sum_i32, v[t] - 50);
        unsigned int seen = counters[2];
        for (;;) {
            const unsigned int prev = ra_atomic_cas_u32(&counters[2], seen, seen + 1u);
            if (prev == seen) break;
            seen = prev;
        }
    }
    ra_threadfence();
    ra_syncthreads();
}
