// prim search: lower/upper bound of many queries in one sorted array (numpy.searchsorted).
//
// ra_prim_search: one thread per query (grid-stride over the queries). The order is NumPy's sort
// order: NaN after every number for floats, and for complex the lexicographic order with NaNs
// last, R + Rj < R + nanj < nan + Rj < nan + nanj. side 'left' finds the first i with
// !(a[i] < v), side 'right' the first i with v < a[i]; both are "count of i where pred(a[i])"
// for a predicate that is true on a prefix of the sorted array.
//
// The top levels of the implicit search tree are cached in shared memory: every block first
// loads S = min(n, RA_PRIM_SEARCH_SAMPLES) samples a[k * step] (step = ceil(n / S)), then each
// query binary-searches the samples (shared memory, no global traffic), which bounds the answer
// to one stride of `step` elements, and finishes with a binary search of that stride in global
// memory (about log2(step) dependent loads instead of log2(n)). With a sorter, a[i] reads
// a[sorter[i]]. Indices are 64-bit.

#define RA_PRIM_SEARCH_BLOCK 256
#define RA_PRIM_SEARCH_SAMPLES 1024

// NumPy's "a < b" of the sort order.
template <typename T> RA_DEVICE bool ra_prim_search_lt(T a, T b) { return a < b; }
template <> RA_DEVICE bool ra_prim_search_lt<float>(float a, float b) { return a < b || (b != b && a == a); }
template <> RA_DEVICE bool ra_prim_search_lt<double>(double a, double b) { return a < b || (b != b && a == a); }
template <> RA_DEVICE bool ra_prim_search_lt<ra_half>(ra_half a, ra_half b) {
    return ra_prim_search_lt(ra_half_to_float(a), ra_half_to_float(b));
}
template <typename R> RA_DEVICE bool ra_prim_search_lt_c(ra_complex<R> a, ra_complex<R> b) {
    if (a.re < b.re) return a.im == a.im || b.im != b.im;
    if (a.re > b.re) return b.im != b.im && a.im == a.im;
    if (a.re == b.re || (a.re != a.re && b.re != b.re)) return a.im < b.im || (b.im != b.im && a.im == a.im);
    return b.re != b.re;
}
template <> RA_DEVICE bool ra_prim_search_lt<ra_c64>(ra_c64 a, ra_c64 b) { return ra_prim_search_lt_c(a, b); }
template <> RA_DEVICE bool ra_prim_search_lt<ra_c128>(ra_c128 a, ra_c128 b) { return ra_prim_search_lt_c(a, b); }

// pred(a_i): left: a_i < v; right: !(v < a_i).
template <typename T> RA_DEVICE bool ra_prim_search_pred(T ai, T v, int right) {
    return right ? !ra_prim_search_lt(v, ai) : ra_prim_search_lt(ai, v);
}

// Grid: any number of blocks of RA_PRIM_SEARCH_BLOCK threads (the host launches about one wave).
// a: n sorted elements (n >= 1), read through sorter when it is set; v: m queries; out: m indices.
template <typename T>
__global__ void RA_LAUNCH_BOUNDS(RA_PRIM_SEARCH_BLOCK)
ra_prim_search(const T* a, ra_i64 n, const ra_i64* sorter, const T* v, ra_i64 m, int right, ra_i64* out) {
    __shared__ T samples[RA_PRIM_SEARCH_SAMPLES];
    const ra_i64 step = (n + RA_PRIM_SEARCH_SAMPLES - 1) / RA_PRIM_SEARCH_SAMPLES;
    const int ns = (int)((n + step - 1) / step);
    for (int k = (int)threadIdx.x; k < ns; k += RA_PRIM_SEARCH_BLOCK) {
        const ra_i64 p = (ra_i64)k * step;
        samples[k] = a[sorter ? sorter[p] : p];
    }
    ra_syncthreads();
    for (ra_i64 q = ra_global_thread_id(); q < m; q += ra_grid_threads()) {
        const T x = v[q];
        // Samples with pred true: a prefix of length K.
        int lo_s = 0, hi_s = ns;
        while (lo_s < hi_s) {
            const int mid = (lo_s + hi_s) >> 1;
            if (ra_prim_search_pred(samples[mid], x, right)) lo_s = mid + 1;
            else hi_s = mid;
        }
        ra_i64 lo = lo_s == 0 ? 0 : (ra_i64)(lo_s - 1) * step + 1;
        ra_i64 hi = lo_s < ns ? (ra_i64)lo_s * step : n;
        while (lo < hi) {
            const ra_i64 mid = lo + ((hi - lo) >> 1);
            const T am = a[sorter ? sorter[mid] : mid];
            if (ra_prim_search_pred(am, x, right)) lo = mid + 1;
            else hi = mid;
        }
        out[q] = lo;
    }
}
